"""The reference wallet's ledger: the balance invariant under any sequence
of debits, credits, cancels and repeats (hypothesis), and debits of one
player from two connections at once."""

from __future__ import annotations

import json
import threading
from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from tablecore.money import MONEY
from tablesim.wallet.app import Wallet
from tablesim.wallet.ledger import Ledger
from tablesim.wallet.players import Limits, Player, Roster
from tablesim.wallet.protocol import Refused, parse

OPENING = {"p1": Decimal("100.00"), "p2": Decimal("7.50")}
ROSTER = Roster({"MOP": Decimal("0.01")}, tuple(Player(pid, "MOP", bal, Limits()) for pid, bal in OPENING.items()))

op = st.tuples(st.sampled_from(["debit", "credit", "cancel", "repeat"]), st.sampled_from(["p1", "p2"]),
               st.integers(0, 2), st.integers(0, 6000), st.integers(0, 7))


class Run:
    """Requests sent through the wallet's own parsing and ledger; the first
    answer of each transaction id, and every repeat held against it."""

    def __init__(self) -> None:
        ledger = Ledger(":memory:")
        ledger.load(ROSTER)
        self.wallet = Wallet(ledger, b"x" * 32)
        self.sent: list[tuple[str, bytes]] = []
        self.first: dict[str, tuple[dict, bytes]] = {}

    def send(self, call: str, body: dict) -> None:
        raw = json.dumps(body).encode()
        try:
            _, answer = self.wallet.call(call, raw)
        except Refused:  # an id reused with other content, or a bad amount: nothing kept
            return
        tid = body["transaction_id"]
        if tid in self.first:
            assert answer == self.first[tid][1], "a repeat got another answer"
        else:
            self.first[tid] = (body | {"call": call}, answer)
        self.sent.append((call, raw))

    def accepted(self, player: str) -> dict[str, list[str]]:
        """The player's standing debits (accepted, not cancelled) by round."""
        ok = [(b, json.loads(a)["status"] == "ok") for b, a in self.first.values()]
        cancelled = {b["debit"] for b, good in ok if b["call"] == "cancel" and good}
        rounds: dict[str, list[str]] = {}
        for b, good in ok:
            if b["call"] == "debit" and good and b["player"] == player and b["transaction_id"] not in cancelled:
                rounds.setdefault(b["round"], []).append(b["transaction_id"])
        return rounds


def _step(run: Run, kind: str, player: str, rnd: int, cents: int, n: int) -> None:
    amount = format(MONEY.multiply(Decimal(cents), Decimal("0.01")), "f")
    where = {"player": player, "table": "T", "round": f"R{rnd}"}
    if kind == "debit":
        run.send("debit", {"transaction_id": f"d{n}", "currency": "MOP", "amount": amount, **where})
    elif kind == "credit":
        standing = run.accepted(player)  # mostly a round with debits standing; sometimes any round
        if standing and n % 4:
            where["round"] = sorted(standing)[rnd % len(standing)]
        debits = standing.get(where["round"]) or [f"d{n}"]
        run.send("credit", {"transaction_id": f"c{n}", "currency": "MOP", "amount": amount, "debits": debits,
                            **where})
    elif kind == "cancel":
        run.send("cancel", {"transaction_id": f"x{n}", "debit": f"d{cents % 8}", **where})
    elif run.sent:
        call, raw = run.sent[cents % len(run.sent)]
        run.send(call, json.loads(raw))


@given(st.lists(op, max_size=40))
def test_balance_is_opening_minus_debits_plus_credits_plus_cancelled(ops):
    run = Run()
    for step in ops:
        _step(run, *step)
    expected = dict(OPENING)
    for body, answer in run.first.values():
        a = json.loads(answer)
        if a["status"] != "ok":
            continue
        sign = {"debit": -1, "credit": 1}.get(body["call"])
        amount = Decimal(a["cancelled"]) if body["call"] == "cancel" else Decimal(body["amount"]) * sign
        expected[body["player"]] = MONEY.add(expected[body["player"]], amount)
        assert Decimal(a["balance"]) >= 0
    for player, balance in expected.items():
        _, answer = run.wallet.call("balance", json.dumps({"request_id": "b", "player": player,
                                                           "currency": "MOP"}).encode())
        assert Decimal(json.loads(answer)["balance"]) == balance
    db = run.wallet.ledger.db  # the sums the trigger keeps are the rows' sums
    kept = {pl: moved for pl, moved in db.execute("SELECT player, moved FROM account") if moved}
    assert kept == {pl: moved for pl, moved in db.execute("SELECT player, SUM(effect) FROM tx GROUP BY player")
                    if moved}
    for body, answer in run.first.values():  # a cancel returns what its debit took, or nothing
        a = json.loads(answer)
        if body["call"] == "cancel" and a["status"] == "ok":
            debit = run.first.get(body["debit"])
            took = debit and json.loads(debit[1])["status"] == "ok"
            assert Decimal(a["cancelled"]) == (Decimal(debit[0]["amount"]) if took else 0)


def test_concurrent_debits_from_two_connections_never_overdraw(tmp_path):
    db = tmp_path / "w.db"
    Ledger(db).load(ROSTER)
    results: list[str] = []

    def debits(k: int) -> None:
        wallet = Wallet(Ledger(db), b"x" * 32)
        for i in range(20):
            body = {"transaction_id": f"t{k}-{i}", "player": "p2", "currency": "MOP", "amount": "0.50",
                    "table": "T", "round": "R"}
            results.append(json.loads(wallet.call("debit", json.dumps(body).encode())[1])["status"])

    threads = [threading.Thread(target=debits, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results.count("ok") == 15 and results.count("insufficient_funds") == 25
    _, answer = Wallet(Ledger(db), b"x" * 32).call("balance", b'{"request_id":"b","player":"p2","currency":"MOP"}')
    assert json.loads(answer)["balance"] == "0.00"


@given(st.lists(op, max_size=40), st.lists(st.integers(1, 6), min_size=1, max_size=20))
def test_a_group_commit_answers_as_the_writes_one_by_one(ops, sizes):
    """The served wallet commits the writes in flight together (one fsync);
    each write's answer is the one it gets alone, in the same order."""
    run = Run()
    for step in ops:
        _step(run, *step)
    grouped = Ledger(":memory:")
    grouped.load(ROSTER)
    records = [parse(call, json.loads(raw)) for call, raw in run.sent]
    answers, at = [], 0
    for size in sizes * (len(records) // len(sizes) + 1):
        if at >= len(records):
            break
        answers += grouped.write_many(records[at:at + size])
        at += size
    for (call, raw), got in zip(run.sent, answers):
        assert got == run.wallet.ledger.write(parse(call, json.loads(raw))), (call, raw)


def test_responsible_gaming_limits_with_the_operators_text(tmp_path):
    from tablesim.wallet.players import load_players

    import walletproc

    _, players = walletproc.write_files(tmp_path)
    ledger = Ledger(":memory:")
    ledger.load(load_players(players))
    wallet = Wallet(ledger, b"x" * 32)

    def debit(tid: str, amount: str) -> dict:
        body = {"transaction_id": tid, "player": "bob", "currency": "HKD", "amount": amount, "table": "T", "round": "R"}
        return json.loads(wallet.call("debit", json.dumps(body).encode())[1])

    text = "Bob's limit: 100 a bet, 300 a day."
    assert debit("b0", "101") == {"status": "limit_reached", "transaction_id": "b0", "balance": "500", "message": text}
    assert [debit(f"b{i}", "100")["status"] for i in (1, 2, 3)] == ["ok", "ok", "ok"]
    assert debit("b4", "1")["status"] == "limit_reached"  # 301 staked today
    cancel = {"transaction_id": "x1", "player": "bob", "table": "T", "round": "R", "debit": "b3"}
    assert json.loads(wallet.call("cancel", json.dumps(cancel).encode())[1])["cancelled"] == "100"
    assert debit("b5", "1") == {"status": "ok", "transaction_id": "b5", "balance": "299", "message": None}


def test_a_yaml_players_file(tmp_path):
    from tablesim.wallet.players import load_players

    path = tmp_path / "players.yaml"
    path.write_text("currencies: {MOP: '0.10'}\nplayers:\n  - {id: y1, currency: MOP, balance: 12.30}\n"
                    "  - {id: y2, currency: HKD, balance: '5', limits: {max_debit: 2}}\n")
    roster = load_players(path)
    assert [(p.id, p.balance, roster.units[p.currency]) for p in roster.players] == [
        ("y1", Decimal("12.3"), Decimal("0.10")), ("y2", Decimal("5"), Decimal("0.01"))]
    assert roster.players[1].limits.max_debit == Decimal(2)


def test_a_ledger_written_before_the_kept_sums_gets_them_from_its_rows(tmp_path):
    import sqlite3

    db = tmp_path / "old.db"
    ledger = Ledger(db)
    ledger.load(ROSTER)
    wallet = Wallet(ledger, b"x" * 32)
    for i, amount in enumerate(("1.25", "2.50", "0.75")):
        body = {"transaction_id": f"o{i}", "player": "p1", "currency": "MOP", "amount": amount, "table": "T",
                "round": "R"}
        assert json.loads(wallet.call("debit", json.dumps(body).encode())[1])["status"] == "ok"
    ledger.close()
    old = sqlite3.connect(db)
    old.executescript("DROP TRIGGER tx_moves; DROP TABLE account;")  # as a ledger of the release before
    old.close()
    again = Wallet(Ledger(db), b"x" * 32)
    _, answer = again.call("balance", b'{"request_id":"b","player":"p1","currency":"MOP"}')
    assert json.loads(answer)["balance"] == "95.50"
    body = {"transaction_id": "o9", "player": "p1", "currency": "MOP", "amount": "0.50", "table": "T", "round": "R"}
    assert json.loads(again.call("debit", json.dumps(body).encode())[1])["balance"] == "95.00"


def test_an_amount_with_spaces_around_it_is_refused_and_nothing_is_kept():
    ledger = Ledger(":memory:")
    ledger.load(ROSTER)
    wallet = Wallet(ledger, b"x" * 32)
    for n, amount in enumerate((" 10", "10\u2003", "\t10\n", "10 ")):
        debit = {"transaction_id": f"s{n}", "player": "p1", "currency": "MOP", "amount": amount, "table": "T",
                 "round": "R"}
        try:
            wallet.call("debit", json.dumps(debit).encode())
        except Refused as refusal:
            assert refusal.message == f"debit: amount: {json.dumps(amount)} has spaces around it: an amount is " \
                                      "its digits only", refusal.message
        else:
            raise AssertionError(f"{amount!r} was taken")
        credit = {**debit, "transaction_id": f"c{n}", "debits": ["d"]}
        try:
            wallet.call("credit", json.dumps(credit).encode())
        except Refused as refusal:
            assert "has spaces around it" in refusal.message
        else:
            raise AssertionError(f"a credit of {amount!r} was taken")
    batch = {"request_id": "b", "calls": [{"call": "debit", "request": {**debit, "transaction_id": "b1"}}]}
    _, answer = wallet.call("batch", json.dumps(batch).encode())
    assert json.loads(answer)["answers"][0]["status"] == "invalid_request"
    assert ledger.db.execute("SELECT COUNT(*) FROM tx").fetchone() == (0,)
    _, answer = wallet.call("balance", b'{"request_id":"b","player":"p1","currency":"MOP"}')
    assert json.loads(answer)["balance"] == "100.00"


def test_a_group_reads_its_players_and_credited_rounds_once_and_follows_its_own_writes():
    """A group of writes reads its players' balances and their rounds' credits
    once for all: a write after another of the group sees what that one did
    (a balance moved by a debit, a credit or a cancel; a round credited), as
    it would one by one."""
    def reqs():
        where = {"player": "p2", "table": "T", "round": "R1"}
        return [parse("debit", {"transaction_id": "g1", "currency": "MOP", "amount": "5.00", **where}),
                parse("debit", {"transaction_id": "g2", "currency": "MOP", "amount": "3.00", **where}),
                parse("cancel", {"transaction_id": "g3", "debit": "g1", **where}),
                parse("debit", {"transaction_id": "g4", "currency": "MOP", "amount": "3.00", **where}),
                parse("credit", {"transaction_id": "g5", "currency": "MOP", "amount": "1.00", "debits": ["g4"],
                                 **where}),
                parse("debit", {"transaction_id": "g6", "currency": "MOP", "amount": "1.00", **where}),
                parse("debit", {"transaction_id": "g7", "currency": "MOP", "amount": "9.00", "player": "p2",
                                "table": "T", "round": "R2"}),
                parse("debit", {"transaction_id": "g8", "currency": "MOP", "amount": "1.00", "player": "nobody",
                                "table": "T", "round": "R1"})]

    alone = Ledger(":memory:")
    alone.load(ROSTER)
    one_by_one = [alone.write(r) for r in reqs()]
    grouped = Ledger(":memory:")
    grouped.load(ROSTER)
    together = grouped.write_many(reqs())
    assert together == one_by_one
    statuses = [json.loads(body)["status"] for _, body in together]
    assert statuses == ["ok", "insufficient_funds", "ok", "ok", "ok", "already_settled", "insufficient_funds",
                        "unknown_player"]
    assert json.loads(together[4][1])["balance"] == "5.50"
