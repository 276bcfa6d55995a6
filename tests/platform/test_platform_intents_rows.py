"""The intent log writes a batch's rows many a statement: the log holds the
same rows, in the same order, as written one by one; a batch with a bad row
writes none of its rows."""

from __future__ import annotations

import asyncio
import sqlite3
from decimal import Decimal

import pytest
from hypothesis import given, settings, strategies as st

from examples import examples
from tablesim.platform import intents as i
from tablesim.platform.intents import Intent, Intents


def _intent(n: int, state: str = "debiting") -> Intent:
    return Intent(f"d-{n:05d}", "bet", f"p{n % 7}", "MOP", Decimal("10.50"), "T1", f"R{n % 3}", "0", "red", state)


def _every(log: Intents) -> list[tuple]:
    return log.db.execute("SELECT rowid, * FROM intent ORDER BY rowid").fetchall()


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(st.one_of(st.integers(0, 150), st.sampled_from(["move"])), min_size=1, max_size=5),
       st.booleans())
def test_a_batchs_rows_are_those_written_one_by_one(tmp_path_factory, steps, together):
    """Batches of any count (past ``ROWS``, one row, none) and moves between
    them, in one group or each alone: the same rows, rowids and states as each
    row inserted alone, every field as the intent has it, one time a batch."""
    folder = tmp_path_factory.mktemp("log")
    quick, plain = Intents(folder / "quick.db"), Intents(folder / "plain.db")
    writes, made = [], 0
    for step in steps:
        if step == "move":
            writes.append([("cancelling", "why", f"d-{n:05d}") for n in range(0, made, 3)])
        else:
            writes.append([_intent(n) for n in range(made, made + step)])
            made += step

    async def go():
        calls = [quick.move_many(w) if w and type(w[0]) is tuple else quick.add_many(w) for w in writes]
        if together:
            await asyncio.gather(*calls)
        else:
            for call in calls:
                await call

    try:
        asyncio.run(go())
        for w in writes:
            for x in w:
                if type(x) is tuple:
                    plain.db.execute(i._MOVE, x)
                else:
                    plain.db.execute(i._INSERT, (*x[:4], format(x.amount, "f"), *x[5:], 0.0))
        rows = _every(quick)
        assert [r[:-1] for r in rows] == [r[:-1] for r in _every(plain)] and len(rows) == made
        assert [quick.get(f"d-{n:05d}") for n in range(made)] == [
            _intent(n, "cancelling" if any(w and type(w[0]) is tuple and ("cancelling", "why", f"d-{n:05d}") in w
                                           for w in writes) else "debiting") for n in range(made)]
        batches = [{f"d-{n:05d}" for n in range(sum(len(v) for v in writes[:k] if v and type(v[0]) is not tuple),
                                                 sum(len(v) for v in writes[:k + 1] if v and type(v[0]) is not tuple))}
                   for k in range(len(writes))]
        for batch in batches:
            assert len({r[-1] for r in rows if r[1] in batch}) <= 1
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
