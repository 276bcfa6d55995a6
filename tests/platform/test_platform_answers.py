"""A batch's bet answers: each placed bet's JSON made once with its
receipt's shared part (the group's signed root) encoded once a group, the
same bytes as the whole answer encoded at once; and the answers of a
batch to one socket written in one write, in order."""

from __future__ import annotations

import json
from decimal import Decimal

from hypothesis import given, strategies as st

from tablesim.platform.betdesk import Answer, placed_answer
from tablesim.platform.player.hub import Hub, dumps
from tablesim.platform.player.socket import PlayerSocket, answer
from tablesim.platform.rounds import Rounds
from tablesim.platform.tables import Offer
from stubwire import StubWire, texts

ENCODE = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode


def _head(ref: str) -> dict:
    return {"ok": True, "status": "placed", "bet_id": ref, "table": "WHEEL-1", "round": "R-1", "amount": "1.00",
            "balance": "99.00"}


def _group_receipt(ref: str, at: int, sig: str = "ab" * 64) -> dict:
    return {"v": 2, "table_id": "WHEEL-1", "seq": 7, "ref": ref, "at": at, "bet": [ref, "ann", "rot", "1.00", "ann"],
            "path": ["0f" * 32, "1e" * 32], "statement": "tablesim-bets/1|WHEEL-1|7|R-1|ts|" + "cd" * 32 + "|2",
            "sig": sig, "key": "ef" * 32}


def test_a_placed_answer_is_the_same_bytes_as_its_body_encoded_whole_whatever_its_receipt():
    shared: dict = {}
    receipts = [_group_receipt("d-1", 0), _group_receipt("d-2", 1), _group_receipt("d-3", 0, sig="99" * 64),
                {"v": 1, "table_id": "WHEEL-1", "seq": 3, "ref": "d-4", "message": "m", "sig": "s", "key": "k"},
                {**{k: v for k, v in _group_receipt("d-5", 0).items() if k != "path"}, "path": []},
                dict(reversed(list(_group_receipt("d-6", 0).items()))), None, {"v": 2, "note": "päid €"}]
    for i, receipt in enumerate(receipts):
        got = placed_answer(_head(f"d-{i}"), receipt, shared)
        assert got.body == {**_head(f"d-{i}"), "receipt": receipt}
        assert got.text == ENCODE(got.body), receipt
        assert json.loads(got.text) == got.body
    # the shared part of a group encoded once: two groups (two signatures) seen, two kept
    assert len(shared) == 2 and all(t.startswith('"statement":') for t in shared.values())


class _Hub:
    def __init__(self) -> None:
        self.sent: list[str] = []

    def _send(self, client, text: str) -> None:
        self.sent.append(text)


class _Client:
    def placed(self, bet_id: str) -> None:
        pass


def test_the_socket_writes_a_made_answer_as_it_would_have_encoded_it():
    hub = _Hub()
    sock = PlayerSocket(None, None, hub)
    sock.client, sock.betting = _Client(), 3
    made = placed_answer(_head("d-1"), _group_receipt("d-1", 0), {})
    for rid, got in ((12, made), ("x-\u00e9", made), (-7, made), (10**39, made), (None, made), ("12", made),
                     (None, Answer(200, made.body)),
                     (5, Answer(409, {"ok": False, "status": "refused_by_table", "message": "no"}))):
        sock._bet_answer(rid, got)
        assert hub.sent[-1] == dumps(answer(rid, {"kind": "bet", **got.body}))
    assert sock.betting == -5


_PINGS = st.one_of(
    st.integers(min_value=-10**25, max_value=10**25).map(lambda t: '{"type":"ping","t":%d}' % t),
    st.floats(allow_nan=False, allow_infinity=False).map(lambda t: json.dumps({"type": "ping", "t": t})),
    st.sampled_from(['{"type":"ping","t":007}', '{"type":"ping","t":12} ', '{"type":"ping","t":1²}',
                     '{"type":"ping","t":12,"x":1}', '{"type":"ping","t":}', '{"type":"ping","t":0}',
                     '{"type":"ping","t":"5"}', '{"type":"ping","t":123456789012345678901}', '{"type":"ping","t":1']),
    st.text(max_size=12).map(lambda t: '{"type":"ping","t":' + t))


@given(_PINGS)
def test_a_latency_ping_is_answered_as_the_parser_and_the_encoder_answer_it(text):
    """The page's ping (a thousand a second at 5,000 players) is answered off its
    text: the same pong, or the same refusal, as the message parsed whole."""
    import time as clock

    def said(fast: bool) -> list[str]:
        hub = _Hub()
        sock = PlayerSocket(None, None, hub)
        sock.client = _Client()
        if not fast:  # (the parsed way: ``_handle`` and its refusals)
            from tablesim.platform.player import socket as module

            saved, module._PING = module._PING, "\0never"
            try:
                sock._take(text)
            finally:
                module._PING = saved
        else:
            sock._take(text)
        return hub.sent

    import re

    before = int(clock.time() * 1000)
    fast, slow = said(True), said(False)
    after = int(clock.time() * 1000)
    for m in fast:  # (the platform's clock, read when answering)
        if m.startswith('{"type":"pong"'):
            assert before <= json.loads(m)["now"] <= after
    now = re.compile(r'"now":\d+}$')
    assert [now.sub('"now":0}', m) for m in fast] == [now.sub('"now":0}', m) for m in slow]


def test_the_usual_ping_is_answered_without_the_parser(monkeypatch):
    from tablesim.platform.player import socket as module

    monkeypatch.setattr(module, "read", lambda text: (_ for _ in ()).throw(AssertionError("parsed")))
    hub = _Hub()
    sock = PlayerSocket(None, None, hub)
    sock.client = _Client()
    sock._take('{"type":"ping","t":1234567}')
    assert hub.sent and hub.sent[0].startswith('{"type":"pong","t":1234567,"now":')


def test_what_a_hold_keeps_goes_to_each_client_in_one_write_in_order():
    hub = Hub({"WHEEL-1": Offer("WHEEL-1", "MOP", Decimal(1), "player", Decimal(10000), game="wheel")}, Rounds())
    ann, abe = StubWire(), StubWire()
    a, b = hub.join("ann", ann), hub.join("abe", abe)
    hub._send(a, '{"n":0}')
    with hub.held():
        hub._send(a, '{"n":1}')
        with hub.held():  # (held already: the outer one writes)
            hub._send(b, '{"n":2}')
            hub._send(a, '{"n":3}')
        assert ann.writes == [b'\x81\x07{"n":0}'] and abe.writes == []
        hub._send(a, '{"n":4}')
    assert [texts(w) for w in ann.writes] == [['{"n":0}'], ['{"n":1}', '{"n":3}', '{"n":4}']]
    assert [texts(w) for w in abe.writes] == [['{"n":2}']]
    assert hub.counts["sent"] == 5
    hub._send(b, '{"n":5}')  # (after the hold: written at once again)
    assert [texts(w) for w in abe.writes] == [['{"n":2}'], ['{"n":5}']]


def test_the_desk_asks_for_the_shared_part_once_and_answers_each_bet_its_whole_receipt():
    import asyncio

    from tablesim.platform.betdesk import Desk, _Bet
    from tablesim.platform.intents import Intent

    sent: list[dict] = []
    whole = [_group_receipt(f"d-{i}", i) for i in range(3)]
    part = {k: whole[0][k] for k in ("statement", "sig", "key")}
    results = [{"ok": True, "round_id": "R-1", "ref": r["ref"],
                "receipt": {k: v for k, v in r.items() if k not in part}} for r in whole]
    results[2]["receipt"] = dict(whole[2])  # (a table that gave it whole: kept as it is)

    class _Intents:
        def note_many(self, moves) -> None:
            pass

    desk = Desk(wallet=None, patient=None, nc_source=None, rounds=None, intents=_Intents(), offers={})

    async def send(table, request):
        sent.append(request)
        return {"v": 1, "results": results, "shared": {"7": part}}

    desk._send = send
    got: list[Answer] = []
    bets = []
    for i in range(3):
        it = Intent(f"d-{i}", "bet", "ann", "MOP", Decimal(1), "WHEEL-1", "R-1", "ann", "rot", "debiting")
        key = ("WHEEL-1", "R-1", "ann")
        desk.in_flight[key] = desk.in_flight.get(key, 0) + 1
        b = _Bet(it, key, {"ref": it.debit, "position": "ann", "bet": "rot", "amount": "1.00", "round": "R-1"},
                 got.append)
        b.balance = Decimal("99.00")
        bets.append(b)
    asyncio.run(desk._to_table("WHEEL-1", bets))
    assert sent[0]["shared"] is True and [b["ref"] for b in sent[0]["bets"]] == ["d-0", "d-1", "d-2"]
    assert [a.body["receipt"] for a in got] == whole
    assert all(a.text == ENCODE(a.body) and list(a.body["receipt"]) == list(whole[0]) for a in got)


def test_a_receipt_given_apart_is_answered_whole_and_the_same_bytes_as_encoded_whole():
    from tablesim.platform.betdesk import placed_apart

    whole = _group_receipt("d-1", 0)
    part = {k: whole[k] for k in ("statement", "sig", "key")}
    own = {k: v for k, v in whole.items() if k not in part}
    shared: dict = {}
    for parts, expect in (({"7": part}, whole),  # (the record's part put back after the bet's own fields)
                          ({"7": dict(reversed(list(part.items())))}, {**own, **dict(reversed(list(part.items())))}),
                          ({"8": part}, own), ("no", own)):  # (no part for its seq: its own fields only)
        got = placed_apart(_head("d-1"), dict(own), parts, shared)
        assert got.body == {**_head("d-1"), "receipt": expect} and got.text == ENCODE(got.body)
    assert list(shared) == ["7"]


def test_a_batch_placed_by_the_table_costs_the_intent_log_no_write_a_bet(tmp_path):
    """Its intents were written (on disk) before the debits; the table's answer
    moves none of them (a move to ``placed`` decided nothing and cost a row
    write a bet): they stay ``debiting`` for the stream to decide; a bet the
    table refused still moves to ``cancelling``."""
    import asyncio

    from tablesim.platform.betdesk import Desk, _Bet
    from tablesim.platform.intents import Intent, Intents

    log = Intents(tmp_path / "p.db")
    its = [Intent(f"d-{i}", "bet", "ann", "MOP", Decimal(1), "WHEEL-1", "R-1", "ann", "rot", "debiting")
           for i in range(3)]
    whole = [_group_receipt(it.debit, i) for i, it in enumerate(its)]

    async def go() -> list[Answer]:
        await log.add_many(its)
        desk = Desk(wallet=None, patient=None, nc_source=None, rounds=None, intents=log, offers={})
        cancelled: list[str] = []

        def cancel(items, answer):
            cancelled.extend(b.it.debit for b, _ in items)

        desk._cancel_then_answer = cancel

        async def send(table, request):
            return {"v": 1, "results": [{"ok": True, "round_id": "R-1", "receipt": r} for r in whole[:2]]
                    + [{"ok": False, "reason": "closed"}]}

        desk._send = send
        got: list[Answer] = []
        bets = []
        for it in its:
            key = ("WHEEL-1", "R-1", "ann")
            desk.in_flight[key] = desk.in_flight.get(key, 0) + 1
            bets.append(_Bet(it, key, {"ref": it.debit, "position": "ann", "bet": "rot", "amount": "1.00",
                                       "round": "R-1"}, got.append))
        await desk._to_table("WHEEL-1", bets)
        for _ in range(20):  # (a write handed over would be committed within these turns)
            await asyncio.sleep(0)
        while log._committing or log._turn or log._due:
            await asyncio.sleep(0.01)
        assert cancelled == ["d-2"]
        return got

    got = asyncio.run(go())
    assert [a.body["status"] for a in got] == ["placed", "placed"]
    assert log.counts() == {"debiting": 3}
    log.close()


def test_a_placed_answer_put_together_field_by_field_is_the_bytes_the_encoder_makes():
    """The answer's text is written field by field when its texts are plain
    (nothing the encoder escapes: no control character, quote or backslash;
    the rest as it is), else by the encoder: the same bytes as the body encoded
    whole, whatever the table sent."""
    import copy
    import random

    from tablesim.platform.betdesk import _placed_text, _spliced

    whole = _group_receipt("d-1", 0)
    part = {k: whole[k] for k in ("statement", "sig", "key")}
    own = {k: v for k, v in whole.items() if k not in part}
    tail = ENCODE(part)[1:]
    odd = ["é", "日本", "a,b", 'q"', "b\\s", "\n", "\x7f", "\u2028", "", " ", "\x1f", "\ud800", "\U0001f600", 1, -3, None,
           True, 1.5, ["x"], []]
    rng = random.Random(7)
    fast = 0
    for _ in range(3000):
        h, o = _head("d-1"), {**own, "bet": list(own["bet"]), "path": list(own["path"])}
        for _ in range(rng.randint(0, 2)):
            value = copy.deepcopy(rng.choice(odd))
            where = rng.choice(["head", "own", "bet", "path"])
            if where == "head":
                h[rng.choice(list(h))] = value
            elif where == "own":
                o[rng.choice(list(o))] = value
            elif isinstance(o[where], list) and o[where]:
                o[where][rng.randrange(len(o[where]))] = value
        body = {**h, "receipt": {**o, **part}}
        assert _spliced(h, o, tail, body).text == ENCODE(body), (h, o)
        fast += _placed_text(h, o, tail) is not None
    assert fast > 500
    assert _placed_text(_head("d-1"), own, tail) == ENCODE({**_head("d-1"), "receipt": whole})


#: a bet's entry as a table writes it: ref, position, bet, amount, and the player (null: the position's own seat)
_TEXTS = st.one_of(st.sampled_from(["d-1", "p00001", "3", "1.00", "é", 'q"', "b\\s", "\n", ""]), st.text(max_size=6))


@given(st.lists(st.one_of(st.none(), _TEXTS, st.integers(-2, 2)), max_size=6))
def test_a_bet_entry_holding_nulls_is_put_together_as_the_encoder_writes_it(entry):
    """The usual entry ends in a null (the table's own seat): it is written field by
    field too (not by the encoder), the nulls as ``null``, the same bytes as encoded whole."""
    from tablesim.platform.betdesk import _placed_text, _spliced

    whole = _group_receipt("d-1", 0)
    part = {k: whole[k] for k in ("statement", "sig", "key")}
    own = {**{k: v for k, v in whole.items() if k not in part}, "bet": entry}
    tail = ENCODE(part)[1:]
    body = {**_head("d-1"), "receipt": {**own, **part}}
    assert _spliced(_head("d-1"), own, tail, body).text == ENCODE(body)
    fast = _placed_text(_head("d-1"), own, tail)
    # (written as they are: texts the encoder escapes nothing of, no control character, quote or backslash)
    plain = all(b is None or (type(b) is str and not any(c < " " or c in '"\\' for c in b)) for b in entry)
    assert (fast is not None) == plain and (fast is None or fast == ENCODE(body))


def test_the_usual_entry_with_its_null_player_is_not_left_to_the_encoder():
    from tablesim.platform.betdesk import _placed_text

    whole = {**_group_receipt("d-1", 0), "bet": ["d-1", "p00001", "3", "1", None]}
    part = {k: whole[k] for k in ("statement", "sig", "key")}
    own = {k: v for k, v in whole.items() if k not in part}
    assert _placed_text(_head("d-1"), own, ENCODE(part)[1:]) == ENCODE({**_head("d-1"), "receipt": whole})
