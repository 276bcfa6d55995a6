"""The ledger's indexes: one no query reads is dropped from a ledger written
before (its rows, answers and balances as they were), and no query the
wallet makes would have read it."""

from __future__ import annotations

import json
import sqlite3
from decimal import Decimal

from tablesim.wallet import protocol as p
from tablesim.wallet.app import Wallet
from tablesim.wallet.ledger import SCHEMA, UNUSED_INDEXES, Ledger
from tablesim.wallet.players import Limits, Player, Roster

ROSTER = Roster({"MOP": Decimal("0.01")}, (Player("p1", "MOP", Decimal("100"), Limits()),
                                           Player("bob", "MOP", Decimal("500"), Limits(None, Decimal("300"), "no"))))


#: the indexes a ledger of before had that no query reads now
OLD_INDEXES = ("CREATE INDEX IF NOT EXISTS tx_at ON tx (at); CREATE INDEX IF NOT EXISTS tx_player ON tx (player, effect);"
               "CREATE INDEX IF NOT EXISTS tx_round_player ON tx (tbl, round, player);")


def _indexes(db) -> set[str]:
    return {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type='index'")}


def _call(wallet: Wallet, call: str, body: dict) -> dict:
    return json.loads(wallet.call(call, json.dumps(body).encode())[1])


def _work(wallet: Wallet) -> list[dict]:
    """A day's calls: debits (one of a limited player), a cancel, a credit, a repeat, balances, listings."""
    where = {"table": "T", "round": "R"}
    answers = [_call(wallet, "debit", {"transaction_id": f"d{i}", "player": "p1", "currency": "MOP",
                                       "amount": "2.50", **where}) for i in range(3)]
    answers += [_call(wallet, "debit", {"transaction_id": "b1", "player": "bob", "currency": "MOP", "amount": "5",
                                        **where}),
                _call(wallet, "cancel", {"transaction_id": "x1", "player": "p1", "debit": "d2", **where}),
                _call(wallet, "credit", {"transaction_id": "c1", "player": "p1", "currency": "MOP", "amount": "6",
                                         "debits": ["d0", "d1"], **where}),
                _call(wallet, "debit", {"transaction_id": "d0", "player": "p1", "currency": "MOP", "amount": "2.50",
                                        **where}),
                _call(wallet, "balance", {"request_id": "q", "player": "p1", "currency": "MOP"}),
                _call(wallet, "transactions", {"request_id": "q", **where, "limit": 2}),
                _call(wallet, "transactions", {"request_id": "q", "since": "2000-01-01T00:00:00.000Z",
                                               "until": "2999-01-01T00:00:00.000Z", "after": 1})]
    for a in answers:  # (each listing's rows without their times, which differ run to run)
        for row in a.get("transactions", ()):
            row.pop("at")
    return answers


def test_a_ledger_written_before_drops_its_unused_indexes_and_answers_the_same(tmp_path):
    old = sqlite3.connect(tmp_path / "old.db")  # the schema before, rows written by a wallet of then
    old.executescript(SCHEMA + OLD_INDEXES)
    old.close()
    ledger = Ledger(tmp_path / "old.db")
    ledger.load(ROSTER)
    ledger.db.executescript(OLD_INDEXES)  # (as the wallet before would have had them all along)
    wallet = Wallet(ledger, b"x" * 32)
    before = _work(wallet)
    rows = ledger.db.execute("SELECT * FROM tx ORDER BY seq").fetchall()
    ledger.close()

    reopened = Ledger(tmp_path / "old.db")
    assert not _indexes(reopened.db) & set(UNUSED_INDEXES)
    assert {"tx_round", "tx_debit", "tx_credited"} <= _indexes(reopened.db)
    assert reopened.db.execute("SELECT * FROM tx ORDER BY seq").fetchall() == rows
    again = _work(Wallet(reopened, b"x" * 32))  # every write a repeat now: its kept answer
    assert again[:7] == before[:7]
    assert again[7:] == before[7:]

    fresh = Ledger(tmp_path / "new.db")
    assert not _indexes(fresh.db) & set(UNUSED_INDEXES)


class _Recorded:
    """A connection that keeps every statement made through it, with its parameters (a plan is made for
    the statement as prepared, its values bound after: a statement with the values written in may plan
    otherwise)."""

    def __init__(self, db) -> None:
        self._db, self.made = db, []

    def execute(self, sql, args=()):
        self.made.append((sql, args))
        return self._db.execute(sql, args)

    def __getattr__(self, name):
        return getattr(self._db, name)


def test_no_query_of_the_wallet_reads_an_unused_index(tmp_path):
    """Every statement a day's calls make, planned on a ledger that still has
    the dropped indexes: none of them is in any plan."""
    ledger = Ledger(tmp_path / "w.db")
    ledger.load(ROSTER)
    db = ledger.db
    db.executescript(OLD_INDEXES)
    ledger.db = recorded = _Recorded(db)
    _work(Wallet(ledger, b"x" * 32))
    queries = [(sql, args) for sql, args in recorded.made if sql.lstrip().upper().startswith("SELECT")]
    assert any("at>=" in sql for sql, _ in queries) and len(queries) > 10
    assert any("FROM stake" in sql for sql, _ in queries)  # (bob's daily limit summed)
    for sql, args in queries:
        plan = " ".join(str(row) for row in db.execute("EXPLAIN QUERY PLAN " + sql, args))
        for name in UNUSED_INDEXES:
            assert name not in plan, (sql, plan)
        assert "SCAN tx" not in plan and "SCAN t " not in plan, (sql, plan)  # (no read of every row)


def _debit(tid: str, player: str, amount: str) -> p.Debit:
    return p.Debit(tid, player, "MOP", Decimal(amount), "T", "R")


def test_a_ledger_of_before_the_stake_table_counts_the_days_stakes_it_had(tmp_path):
    """A ledger written before the stake table (its limited player's debits
    only in its rows, its indexes by player) fills the table as it opens: the
    day's stake written before still counts against the player's limit."""
    ledger = Ledger(tmp_path / "old.db")
    ledger.load(ROSTER)
    assert ledger.write(_debit("b1", "bob", "100"))[0] is p.Status.OK
    assert ledger.write(_debit("b2", "bob", "100"))[0] is p.Status.OK
    ledger.write(p.Cancel("x2", "bob", "T", "R", "b2"))  # (a cancelled stake no longer counts)
    ledger.db.executescript("DROP TABLE stake; DROP INDEX tx_round;" + OLD_INDEXES)  # (as a wallet of before left it)
    ledger.close()

    reopened = Ledger(tmp_path / "old.db")
    assert not _indexes(reopened.db) & set(UNUSED_INDEXES)
    assert reopened.db.execute("SELECT id FROM stake").fetchall() == [("b1",), ("b2",)]
    assert reopened.write(_debit("b3", "bob", "201"))[0] is p.Status.LIMIT_REACHED  # 100 + 201 > 300
    assert reopened.write(_debit("b4", "bob", "200"))[0] is p.Status.OK
    assert reopened.write(_debit("b5", "bob", "0.01"))[0] is p.Status.LIMIT_REACHED


def test_a_player_given_a_daily_limit_has_the_days_stakes_before_it_counted(tmp_path):
    """A player's debits before they were given a daily limit count against
    it once it is given (the stake table is filled from their rows); a limit
    taken away leaves nothing of theirs there, and given again counts them all."""
    ledger = Ledger(tmp_path / "w.db")
    ledger.load(ROSTER)
    assert ledger.write(_debit("a1", "p1", "60"))[0] is p.Status.OK
    assert ledger.db.execute("SELECT COUNT(*) FROM stake").fetchone() == (0,)  # (no limit: nothing kept)

    def roster(limit: str | None) -> Roster:
        return Roster(ROSTER.units, (Player("p1", "MOP", Decimal("100"),
                                            Limits(None, None if limit is None else Decimal(limit), "p1's day.")),
                                     *ROSTER.players[1:]))

    ledger.load(roster("80"))
    assert ledger.write(_debit("a2", "p1", "21"))[0] is p.Status.LIMIT_REACHED  # 60 + 21 > 80
    assert ledger.write(_debit("a3", "p1", "20"))[0] is p.Status.OK
    ledger.load(roster(None))
    assert ledger.db.execute("SELECT COUNT(*) FROM stake WHERE player='p1'").fetchone() == (0,)
    assert ledger.write(_debit("a4", "p1", "10"))[0] is p.Status.OK  # (no limit now: 90 staked today)
    ledger.load(roster("95"))
    assert ledger.write(_debit("a5", "p1", "5.01"))[0] is p.Status.LIMIT_REACHED
    assert ledger.write(_debit("a6", "p1", "5"))[0] is p.Status.OK


def test_a_new_ledger_numbers_its_rows_without_a_counter_and_never_twice(tmp_path):
    """A new ledger's rows are numbered by their rowid (no ``AUTOINCREMENT``
    counter written at every row); rows are never deleted, so the numbers
    still only grow, a rolled back group's included."""
    ledger = Ledger(tmp_path / "new.db")
    ledger.load(ROSTER)
    (sql,) = ledger.db.execute("SELECT sql FROM sqlite_master WHERE name='tx'").fetchone()
    assert "AUTOINCREMENT" not in sql
    assert ledger.db.execute("SELECT 1 FROM sqlite_master WHERE name='sqlite_sequence'").fetchone() is None

    def debit(tid: str) -> p.Debit:
        return p.Debit(tid, "p1", "MOP", Decimal("1"), "T", "R")

    ledger.write(debit("a"))
    ledger.begin()
    ledger.write_group([debit("b")])
    ledger.rollback()
    ledger.write(debit("c"))
    assert ledger.db.execute("SELECT id, seq FROM tx ORDER BY seq").fetchall() == [("a", 1), ("c", 2)]
