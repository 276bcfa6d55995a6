"""The intent log's index of the bets the stream has not decided yet: the
sweep's two queries find the same rows, in the same order, as a walk over
every row; they are served by the index (a term with bound parameters never
was); the index's condition costs a written row no IN list (SQLite made a
temporary table for it at every row: half of a bet's insert); and a log of
an older platform is opened with its index replaced, its rows as they were."""

from __future__ import annotations

import sqlite3
from decimal import Decimal

from hypothesis import given, settings, strategies as st

from examples import examples
from tablesim.platform.intents import UNDECIDED, Intent, Intents, _PENDING

STATES = ("debiting", "cancelling", "placed", "cancelled", "refused", "stood")


def _rows(log: Intents) -> list[tuple]:
    return log.db.execute("SELECT debit, tbl, round, state, at FROM intent ORDER BY rowid").fetchall()


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["T1", "T2"]), st.sampled_from(["R1", "R2", "R3"]),
                          st.sampled_from(STATES), st.integers(0, 3)), max_size=40))
def test_the_undecided_bets_are_the_rows_a_walk_over_the_whole_log_finds_in_its_order(tmp_path_factory, rows):
    log = Intents(tmp_path_factory.mktemp("log") / "p.db")
    try:
        log.db.execute("BEGIN")
        for i, (table, round_id, state, at) in enumerate(rows):
            log.db.execute("INSERT INTO intent (debit, kind, player, currency, amount, tbl, round, position, bet, "
                           "state, at) VALUES (?, 'bet', 'ann', 'MOP', '1', ?, ?, 'ann', '5', ?, ?)",
                           (f"d-{i:04d}", table, round_id, state, float(at)))  # (equal times: a batch's rows)
        log.db.execute("COMMIT")
        every = _rows(log)
        assert set(log.undecided_rounds()) == {(t, r) for _, t, r, s, _ in every if s in UNDECIDED}
        for table in ("T1", "T2"):
            for round_id in ("R1", "R2", "R3"):
                walked = sorted([row for row in every if row[1:3] == (table, round_id) and row[3] in UNDECIDED],
                                key=lambda row: row[4])  # (stable: rows of the same time in the order written)
                assert [(it.debit, it.state) for it in log.undecided(table, round_id)] == \
                    [(row[0], row[3]) for row in walked]
    finally:
        log.close()


def test_the_sweeps_queries_are_served_by_the_index_whose_condition_is_no_in_list(tmp_path):
    log = Intents(tmp_path / "p.db")
    try:
        index = log.db.execute("SELECT sql FROM sqlite_master WHERE name = 'intent_pending'").fetchone()[0]
        assert " IN " not in index.upper() and _PENDING in index
        for query, args in ((f"SELECT DISTINCT tbl, round FROM intent WHERE {_PENDING}", ()),
                            (f"SELECT debit FROM intent WHERE ({_PENDING}) AND tbl=? AND round=? ORDER BY at",
                             ("T", "R"))):
            plan = " ".join(str(row[-1]) for row in log.db.execute("EXPLAIN QUERY PLAN " + query, args))
            assert "USING INDEX intent_pending" in plan, plan
        # (the methods run exactly these queries: a slip in their text would scan the log again)
        seen: list[str] = []
        log.db.set_trace_callback(seen.append)
        log.undecided_rounds()
        log.undecided("T", "R")
        log.db.set_trace_callback(None)
        assert len(seen) == 2
        for sql in seen:  # (as run: its parameters written in, or still to bind)
            plan = " ".join(str(row[-1]) for row in log.db.execute("EXPLAIN QUERY PLAN " + sql,
                                                                   ("T", "R") if "?" in sql else ()))
            assert "USING INDEX intent_pending" in plan, (sql, plan)
    finally:
        log.close()


def test_an_older_platforms_log_is_opened_with_its_index_replaced_and_its_rows_kept(tmp_path):
    path = tmp_path / "old.db"
    db = sqlite3.connect(path)
    db.executescript("""
        CREATE TABLE intent (
            debit TEXT PRIMARY KEY, kind TEXT NOT NULL, player TEXT NOT NULL, currency TEXT NOT NULL,
            amount TEXT NOT NULL, tbl TEXT NOT NULL, round TEXT NOT NULL, position TEXT NOT NULL, bet TEXT NOT NULL,
            state TEXT NOT NULL, note TEXT, at REAL NOT NULL);
        CREATE INDEX intent_undecided ON intent (state, tbl, round) WHERE state IN ('debiting', 'cancelling', 'placed');
        INSERT INTO intent VALUES ('d-1', 'bet', 'ann', 'MOP', '5', 'T', 'R', 'ann', '5', 'debiting', NULL, 1.0);
        INSERT INTO intent VALUES ('d-2', 'bet', 'ann', 'MOP', '5', 'T', 'R', 'ann', '5', 'stood', NULL, 2.0);
    """)
    db.close()
    log = Intents(path)
    try:
        names = {row[0] for row in log.db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert "intent_undecided" not in names and "intent_pending" in names
        assert [it.debit for it in log.undecided("T", "R")] == ["d-1"] and log.undecided_rounds() == [("T", "R")]
        assert log.get("d-2") == Intent("d-2", "bet", "ann", "MOP", Decimal(5), "T", "R", "ann", "5", "stood")
    finally:
        log.close()


def test_an_intent_is_its_fields_by_name_immutable_and_read_back_as_written(tmp_path):
    """(A named tuple since a frozen dataclass cost a fifth of a bet's check: the same fields, in the same
    order, by name; no field set after it is made; and the log gives back what was written.)"""
    import asyncio

    import pytest

    it = Intent("d-1", "bet", "ann", "MOP", Decimal("2.50"), "T", "R", "box", "5", "debiting")
    assert (it.debit, it.kind, it.player, it.currency, it.amount, it.table, it.round, it.position, it.bet,
            it.state) == ("d-1", "bet", "ann", "MOP", Decimal("2.50"), "T", "R", "box", "5", "debiting")
    assert repr(it).startswith("Intent(debit='d-1', kind='bet'")
    with pytest.raises(AttributeError):
        it.state = "stood"
    log = Intents(tmp_path / "p.db")
    try:
        asyncio.run(log.add_many([it]))
        assert log.get("d-1") == it and log.open() == [it]
    finally:
        log.close()
