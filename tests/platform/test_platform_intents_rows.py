"""The intent log writes a batch's rows many a statement: the log holds the
same rows, in the same order, as written one by one; a batch with a bad row
writes none of its rows."""

from __future__ import annotations

import asyncio
import sqlite3
from decimal import Decimal

import pytest
from hypothesis import given, settings, strategies as st

from tablesim.platform import intents as i
from tablesim.platform.intents import Intent, Intents


def _intent(n: int, state: str = "debiting") -> Intent:
    return Intent(f"d-{n:05d}", "bet", f"p{n % 7}", "MOP", Decimal("10.50"), "T1", f"R{n % 3}", "0", "red", state)


def _every(log: Intents) -> list[tuple]:
    return log.db.execute("SELECT rowid, * FROM intent ORDER BY rowid").fetchall()


@settings(max_examples=40, deadline=None)
@given(st.lists(st.one_of(st.integers(1, 150), st.sampled_from(["move"])), min_size=1, max_size=5))
def test_a_groups_rows_are_those_written_one_by_one(tmp_path_factory, steps):
    """Runs of inserts of any count (past ``ROWS``, one row) between moves: the
    same rows, rowids and states as each statement run a row at a time."""
    folder = tmp_path_factory.mktemp("log")
    quick, plain = Intents(folder / "quick.db"), Intents(folder / "plain.db")
    try:
        group, made = [], 0
        for step in steps:
            if step == "move":
                group += [(i._MOVE, ("cancelling", "why", f"d-{n:05d}"), None) for n in range(0, made, 3)]
            else:
                group += [(i._INSERT, (f"d-{n:05d}", "bet", "ann", "MOP", "1.50", "T1", "R1", "0", "red", "debiting",
                                       1.0 + n), None) for n in range(made, made + step)]
                made += step
        for log, write in ((quick, quick._statements), (plain, lambda g: [plain.db.execute(sql, args)
                                                                           for sql, args, _ in g])):
            log.db.execute("BEGIN")
            write(group)
            log.db.execute("COMMIT")
        assert _every(quick) == _every(plain) and len(_every(quick)) == made
    finally:
        quick.close()
        plain.close()


def test_a_batch_with_a_row_already_written_writes_none_of_its_rows(tmp_path):
    log = Intents(tmp_path / "p.db")

    async def go():
        await log.add_many([_intent(n) for n in range(3)])
        with pytest.raises(sqlite3.IntegrityError):
            await log.add_many([_intent(n) for n in range(3, 80)] + [_intent(1)])
        await log.add_many([_intent(n) for n in range(3, 70)])

    try:
        asyncio.run(go())
        assert [r[1] for r in _every(log)] == [f"d-{n:05d}" for n in range(70)]
        assert log.get("d-00042") == _intent(42)
    finally:
        log.close()
