"""A bus request of bets, in process (no broker): a request over the limit is
refused whole and places nothing; each accepted bet's receipt (its entry and
Merkle path, the group's root signed once) verifies on its own, and the reply's
bytes, made with what the receipts share encoded once, are the reply's JSON."""

from __future__ import annotations

import asyncio
import json
from decimal import Decimal

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tablecore import betbatch
from tablesim.journal.record import Record
from tablesim.studio import receipts
from tablesim.studio.bus_bets import MAX_BETS, BusBets

KEY = Ed25519PrivateKey.generate()


class Link:
    """The studio link's part the receipts need: the table's signing key."""

    def group_proof(self, seq, round_id, ts, entries):
        return receipts.GroupProof(KEY, "T-1", seq, round_id, ts, entries)

    def ref_records(self, round_id, after=0):
        return []  # (no record of refs read here: a duplicate's receipt is not found)


def answer(body: dict, submit) -> dict:
    async def run() -> dict:
        bets = BusBets("T-1", submit, asyncio.get_running_loop())
        bets.bind_link(Link())
        reply = await bets.answer(json.dumps(body).encode())
        encoded = bets.encoded(reply)
        assert json.loads(encoded) == json.loads(json.dumps(reply))  # (the shared parts encoded once)
        return json.loads(encoded)

    return asyncio.run(run())


def test_a_request_over_the_limit_is_refused_whole_and_places_nothing():
    asked = []

    async def submit(bets):
        asked.append(bets)
        return []

    bets = [{"ref": f"r{i}", "position": "1", "bet": "ante", "amount": "1"} for i in range(MAX_BETS + 1)]
    got = answer({"v": 1, "bets": bets}, submit)
    assert got["error"] == "bad_input" and str(MAX_BETS) in got["detail"] and "\n" not in got["detail"]
    assert asked == []


def test_each_accepted_bet_carries_a_receipt_of_its_own_entry_checked_offline():
    async def submit(bets):
        entries = [betbatch.entry(b["ref"], b["position"], b["bet"], str(b["amount"]), b.get("player"))
                   for b in bets if b["position"] != "9"]
        group = Record(41, "2026-12-06T05:00:00.000000+00:00", "T-1", "T-1-000007", "input", "place_bets", "bus",
                       {"bets": entries, "root": betbatch.root(entries)}, "0" * 64, "1" * 64)
        out, at = [], 0
        for b in bets:
            if b["position"] == "9":  # (the table's refusal: no receipt)
                out.append({"ok": False, "round_id": "T-1-000007", "ref": b["ref"], "error": "refused",
                            "action": "bet", "reason": "no box 9", "detail": "bet refused: no box 9"})
                continue
            out.append({"ok": True, "round_id": "T-1-000007", "ref": b["ref"], "group": group, "at": at})
            at += 1
        return out

    bets = [{"ref": f"r{i}", "position": "9" if i == 3 else str(1 + i % 7), "bet": "ante", "amount": "5",
             "player": f"p{i}"} for i in range(11)]
    got = answer({"v": 1, "bets": bets}, submit)["results"]
    assert [r["ok"] for r in got] == [i != 3 for i in range(11)] and "receipt" not in got[3]
    pub = KEY.public_key()
    for i, result in enumerate(got):
        if i == 3:
            continue
        receipt = receipts.parse(result)
        assert "group" not in result and "at" not in result  # (the table's own notes stay at the table)
        ok, said = receipts.check(receipt, "T-1", pub)
        assert ok, said
        assert f"ref r{i}, player p{i}, in round T-1-000007 (record 41" in said
    forged = dict(got[0]["receipt"], bet=["r0", "1", "ante", "500", "p0"])
    assert receipts.check(receipts.parse(forged), "T-1", pub)[0] is False
    moved = dict(got[0]["receipt"], at=1)
    assert receipts.check(receipts.parse(moved), "T-1", pub)[0] is False
    assert Decimal(got[1]["receipt"]["bet"][3]) == 5


def test_asked_for_it_a_reply_gives_each_records_shared_part_once_and_the_receipts_verify_put_back():
    async def submit(bets):
        out = []
        for g, chunk in enumerate((bets[:4], bets[4:])):  # (two groups: two records, two signed roots)
            entries = [betbatch.entry(b["ref"], b["position"], b["bet"], str(b["amount"]), b.get("player"))
                       for b in chunk]
            group = Record(41 + g, "2026-12-06T05:00:00.000000+00:00", "T-1", "T-1-000007", "input", "place_bets",
                           "bus", {"bets": entries, "root": betbatch.root(entries)}, "0" * 64, "1" * 64)
            out += [{"ok": True, "round_id": "T-1-000007", "ref": b["ref"], "group": group, "at": at}
                    for at, b in enumerate(chunk)]
        return out

    bets = [{"ref": f"r{i}", "position": str(1 + i), "bet": "ante", "amount": "5", "player": f"p{i}"}
            for i in range(7)]
    full = answer({"v": 1, "bets": bets}, submit)
    compact = answer({"v": 1, "bets": bets, "shared": True}, submit)
    assert "shared" not in full and set(compact["shared"]) == {"41", "42"}
    assert all(set(p) == {"statement", "sig", "key"} for p in compact["shared"].values())
    pub = KEY.public_key()
    for whole, short in zip(full["results"], compact["results"]):
        assert not {"statement", "sig", "key"} & set(short["receipt"])
        back = {**short["receipt"], **compact["shared"][str(short["receipt"]["seq"])]}
        assert back == whole["receipt"] and list(back) == list(whole["receipt"])  # (the same receipt, keys in order)
        assert receipts.check(receipts.parse(back), "T-1", pub)[0]
    # a lone bet object never asks (its fields are a bet's)
    lone = answer({"ref": "r9", "position": "1", "bet": "ante", "amount": "5", "shared": True}, submit)
    assert "shared" not in lone


def test_a_reply_with_an_older_journals_receipt_keeps_its_shared_part_when_encoded_in_pieces():
    bets = BusBets("T-1", None, None)
    reply = {"v": 1, "results": [
        {"ok": True, "round_id": "R", "ref": "a", "receipt": {"v": 1, "table_id": "T-1", "seq": 3, "ref": "a",
                                                             "message": "m", "sig": "s", "key": "k"}},
        {"ok": True, "round_id": "R", "ref": "b", "receipt": {"v": 2, "table_id": "T-1", "seq": 4, "ref": "b",
                                                             "at": 0, "bet": ["b", "1", "ante", "5", None],
                                                             "path": []}}],
        "shared": {"4": {"statement": "st", "sig": "sg", "key": "ky"}}}
    assert json.loads(bets.encoded(reply)) == reply


def test_requests_that_arrive_while_one_commits_go_on_together_and_each_gets_its_own_answer_in_order():
    """The subscription hands its requests over one at a time: a request answered in
    place held every later one back until its bets were committed (each request a
    group of its own). Now each goes on at once, and their bets reach the intake in
    the order the requests came."""
    asked: list[list[str]] = []

    async def main() -> list:
        gate = asyncio.Event()

        async def submit(bets):
            asked.append([b["ref"] for b in bets])
            await gate.wait()  # (a group being committed)
            return [{"ok": True, "round_id": "R-1", "ref": b["ref"]} for b in bets]

        class Sub:
            async def subscribe(self, subject, queue, cb):
                self.cb = cb

        class Msg:
            def __init__(self, refs):
                self.reply, self.answer = "inbox", None
                self.data = json.dumps({"v": 1, "bets": [{"ref": r, "position": "1", "bet": "red", "amount": "1"}
                                                         for r in refs]}).encode()

            async def respond(self, data):
                self.answer = json.loads(data)

        bets = BusBets("T-1", submit, asyncio.get_running_loop())
        nc = Sub()
        await bets.attach(nc)
        msgs = [Msg(["a1", "a2"]), Msg(["b1"]), Msg(["c1", "c2"])]
        for m in msgs:  # (as the subscription does: one message after the other)
            await asyncio.wait_for(nc.cb(m), 2)
        for _ in range(5):
            await asyncio.sleep(0)
        assert asked == [["a1", "a2"], ["b1"], ["c1", "c2"]]  # all three under way, in order
        assert all(m.answer is None for m in msgs)  # nothing answered before its bets stand
        gate.set()
        for _ in range(20):
            await asyncio.sleep(0)
        return [m.answer for m in msgs]

    answers = asyncio.run(main())
    assert [[r["ref"] for r in a["results"]] for a in answers] == [["a1", "a2"], ["b1"], ["c1", "c2"]]
    assert all(r["ok"] for a in answers for r in a["results"])


def test_a_reply_written_from_its_groups_pieces_is_byte_for_byte_the_encoders():
    """The placed bets' results are spliced from what their group made once (the entry's
    text, the path's hashes): the bytes must be the whole reply's in one encoder call,
    whatever the strings hold, with duplicates, refusals and both receipt shapes among them."""
    from tablesim.studio import bus_bets

    odd = ['q"uote', "back\\slash", "üx", '"\\"', "plain"]  # (a ref is printable; a position need not be)
    spots = ["ü\u2028x", "tab\tend", 'q"', "\\", "7"]

    async def submit(bets):
        placed = [b for b in bets if b["position"] != "9"]
        entries = [betbatch.entry(b["ref"], b["position"], b["bet"], str(b["amount"]), b.get("player"))
                   for b in placed]
        entries[1].append("platform:p1")  # (an entry naming its own actor: its bet is its first five)
        texts: list = []
        tree = betbatch.levels(entries, texts)
        receipts.remember_tree(entries, tree, texts)
        group = Record(41, "2026-12-06T05:00:00.000000+00:00", "T-1", 'R-"1"', "input", "place_bets", "bus",
                       {"bets": entries, "root": betbatch.root(entries, tree)}, "0" * 64, "1" * 64)
        out, at = [], 0
        for b in bets:
            if b["position"] == "9":
                out.append({"ok": False, "round_id": 'R-"1"', "ref": b["ref"], "error": "refused", "action": "bet",
                            "reason": "no box 9", "detail": "bet refused: no box 9"})
                continue
            out.append({"ok": True, "round_id": 'R-"1"', "ref": b["ref"], "group": group, "at": at})
            at += 1
        return out

    bets = [{"ref": f"{odd[i % 5]}-{i}", "position": "9" if i == 2 else spots[i % 5], "bet": "ante",
             "amount": "5", **({"player": odd[i % 5]} if i % 2 else {})} for i in range(9)]

    async def run(shared: bool):
        bb = BusBets("T-1", submit, asyncio.get_running_loop())
        bb.bind_link(Link())
        reply = await bb.answer(json.dumps({"v": 1, "bets": bets, "shared": shared}).encode())
        reply["results"][5]["duplicate"] = True  # (a result of another shape among them)
        return reply, bb.encoded(reply)

    spliced = []
    own_json = receipts.GroupProof.own_json

    def counted(self, receipt):
        out = own_json(self, receipt)
        spliced.append(out is not None)
        return out

    receipts.GroupProof.own_json = counted
    try:
        for shared in (False, True):
            spliced.clear()
            reply, got = asyncio.run(run(shared))
            assert got == bus_bets._encode(reply).encode()
            assert sum(1 for r in reply["results"] if "receipt" in r) == 8
            assert spliced.count(True) == 7  # (all but the duplicate's, written from the pieces)
    finally:
        receipts.GroupProof.own_json = own_json


def test_a_reply_of_bets_all_placed_now_is_written_straight_and_is_the_answers_bytes():
    """A request whose bets were all placed now (the usual one) is answered from its groups'
    pieces with no receipt made as a dict: the same bytes as the answer encoded, whatever
    the strings hold, over two groups, with and without the shared parts apart; a request
    with any other result among them goes the whole way."""
    from tablesim.studio import bus_bets

    odd = ['q"uote', "back\\slash", "üx", '"\\"', "plain"]
    spots = ["ü\u2028x", "tab\tend", 'q"', "\\", "7"]

    def groups_of(bets):
        out = []
        for g, chunk in enumerate((bets[:3], bets[3:])):
            entries = [betbatch.entry(b["ref"], b["position"], b["bet"], str(b["amount"]), b.get("player"))
                       for b in chunk]
            if g == 1:
                entries[0].append("platform:p1")  # (an entry naming its own actor: its bet is its first five)
            group = Record(41 + g, "2026-12-06T05:00:00.000000+00:00", "T-1", 'R-"1"', "input", "place_bets", "bus",
                           {"bets": entries, "root": betbatch.root(entries)}, "0" * 64, "1" * 64)
            out += [{"ok": True, "round_id": 'R-"1"', "ref": b["ref"], "group": group, "at": at}
                    for at, b in enumerate(chunk)]
        return out

    async def placed(bets):
        return groups_of(bets)

    async def one_duplicate(bets):
        out = groups_of(bets)
        out[4] = {"ok": True, "round_id": 'R-"1"', "ref": bets[4]["ref"], "duplicate": True}
        return out

    bets = [{"ref": f"{odd[i % 5]}-{i}", "position": spots[i % 5], "bet": "ante", "amount": "5",
             **({"player": odd[i % 5]} if i % 2 else {})} for i in range(8)]
    made = []
    receipts_of = BusBets._receipts

    def counted(self, parsed, results):
        made.append(len(results))
        return receipts_of(self, parsed, results)

    async def run(submit, shared: bool) -> tuple[bytes, bytes]:
        bb = BusBets("T-1", submit, asyncio.get_running_loop())
        bb.bind_link(Link())
        body = json.dumps({"v": 1, "bets": bets, "shared": shared}).encode()
        got = await bb.reply(body)
        return got, bb.encoded(await bb.answer(body))

    BusBets._receipts = counted
    try:
        for shared in (False, True):
            made.clear()
            got, want = asyncio.run(run(placed, shared))
            assert got == want and made == [8]  # (only the answer made receipts as dicts)
            assert got == bus_bets._encode(json.loads(want)).encode()
            made.clear()
            got, want = asyncio.run(run(one_duplicate, shared))
            assert got == want and made == [8, 8]  # (a duplicate among them: the whole way, both times)
    finally:
        BusBets._receipts = receipts_of
    reply = json.loads(asyncio.run(run(placed, True))[0])
    assert list(reply["shared"]) == ["41", "42"]
    for result in reply["results"]:
        back = {**result["receipt"], **reply["shared"][str(result["receipt"]["seq"])]}
        assert receipts.check(receipts.parse(back), "T-1", KEY.public_key())[0]


def test_an_entrys_text_is_the_encoders_whatever_it_holds():
    for e in (["r", "1", "ante", "5", None], ['q"', "\\", "\u2028é", "\x01", "p", "actor"], [1, "b", True, 1.5, None],
              [], {"a": 1}, "abc", None, ("x",), ["x", ["y"]]):
        assert betbatch.text(e) == betbatch._encode(e)
    entries = [["r", "1", "ante", "5", None], ['q"', "\\", "\u2028é", "5", "p"]]
    texts: list = []
    assert betbatch.levels(entries, texts) == betbatch.levels(entries) and texts == [betbatch._encode(e) for e in entries]


def test_a_bet_taken_at_a_glance_is_answered_as_every_check_in_turn_answers_it():
    """The usual bet (strings within bounds) is taken without the field-by-field checks:
    whatever a bet holds, the answer is the one the checks in turn give."""
    import random

    from tablesim.studio import bus_bets

    values = [None, "", " ", "a", "x" * 40, "x" * 41, "x" * 80, "x" * 81, "x" * 101, "1", "0", "-1", "1.5", "1e3",
              "abc", "\t", " 5 ", 1, 0, True, 1.5, [], {}, "é", "a\nb", "\u2028"]
    rnd = random.Random(7)
    for _ in range(20000):
        item = {k: rnd.choice(values) for k, p in (("ref", .9), ("position", .9), ("bet", .9), ("amount", .9),
                                                    ("player", .3), ("round", .3), ("v", .1), ("extra", .05))
                if rnd.random() < p}
        assert bus_bets._bet(item, 3) == bus_bets._bet_checked(item, 3), item
    usual = {"ref": "p7-1", "position": " ann ", "bet": "red", "amount": "2.50", "player": "ann", "round": "R-1"}
    assert bus_bets._bet(usual, 0) == {"position": "ann", "bet": "red", "amount": Decimal("2.50"), "ref": "p7-1",
                                       "actor": "bus", "player": "ann", "round": "R-1"}


def test_a_request_under_way_across_a_reconnection_gives_its_place_back_to_its_own_connection():
    from tablesim.studio.bus_bets import IN_FLIGHT

    async def main():
        gate = asyncio.Event()

        async def submit(bets):
            await gate.wait()
            return [{"ok": True, "round_id": "R-1", "ref": b["ref"]} for b in bets]

        class Sub:
            async def subscribe(self, subject, queue, cb):
                self.cb = cb

        class Msg:
            reply = "inbox"
            data = json.dumps({"v": 1, "bets": [{"ref": "a", "position": "1", "bet": "red", "amount": "1"}]}).encode()

            async def respond(self, data):
                pass

        bets = BusBets("T-1", submit, asyncio.get_running_loop())
        first = Sub()
        await bets.attach(first)
        await first.cb(Msg())
        old = bets._slots
        await bets.attach(Sub())  # (the link reconnected: a new connection, its own places)
        gate.set()
        for _ in range(20):
            await asyncio.sleep(0)
        return old._value, bets._slots._value

    assert asyncio.run(main()) == (IN_FLIGHT, IN_FLIGHT)
