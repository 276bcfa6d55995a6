"""The platform's own durable log of the bets it debits (SQLite, ``--db``).

Each bet is written here before its debit is sent (``debiting``), and moves
on as it goes: ``refused`` (the wallet refused the debit: nothing taken),
``cancelling`` and ``cancelled``; ``stood`` once the stream showed the table
journaled it. A bet the table's subject answered it took stays ``debiting``
until then: a move to ``placed`` would decide nothing (only the stream
does), and it cost a row write a bet, a third of the log's work (a remote
hand's decision is still noted ``placed``).
A bet left in ``debiting``, ``placed`` or ``cancelling`` (the platform died
in between, the table or the wallet did not answer, an answer said placed
that the table's journal does not hold) is an orphan candidate: once its
round is closed, the stream says whether the table accepted its ref; if
not, its debit is cancelled (a cancel of a debit the wallet never saw
leaves a tombstone: safe either way). The log is what lets a platform find
its own orphans; the stream is what decides them.

A round's later debits (a Play decided on a shared remote hand during the round) are
rows of their own with ``kind`` saying what they stake; the settlement
names every debit of the player's round whatever its kind.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from pathlib import Path
from typing import NamedTuple

from tablecore.errors import InputError
from tablecore.threadnames import name_this_thread

OPEN = ("debiting", "cancelling")
#: not decided yet by the stream: open, or answered ``placed`` by whoever answered on the table's
#: subject (the stream alone says whether the table journaled it: ``stood`` once it is found there)
UNDECIDED = (*OPEN, "placed")
#: the undecided rows, as the index's condition and the sweep's queries both write it. A chain of
#: ``=`` and not ``state IN (...)``: SQLite evaluated a partial index's IN list at every row
#: written (a temporary table made each time: half of a bet's insert); and the same literal term
#: in the queries, so the index serves them (a term with bound parameters never did: they read
#: the whole log at every sweep)
_PENDING = " OR ".join(f"state = '{state}'" for state in UNDECIDED)

SCHEMA = f"""
CREATE TABLE IF NOT EXISTS intent (
    debit TEXT PRIMARY KEY, kind TEXT NOT NULL, player TEXT NOT NULL, currency TEXT NOT NULL,
    amount TEXT NOT NULL, tbl TEXT NOT NULL, round TEXT NOT NULL, position TEXT NOT NULL, bet TEXT NOT NULL,
    state TEXT NOT NULL, note TEXT, at REAL NOT NULL);
DROP INDEX IF EXISTS intent_open;
DROP INDEX IF EXISTS intent_undecided;
CREATE INDEX IF NOT EXISTS intent_pending ON intent (tbl, round) WHERE {_PENDING};
"""


class Intent(NamedTuple):
    """A bet's debit as the log holds it. A named tuple, as immutable as a
    frozen dataclass, made at a fifth of its cost (one a bet: a frozen
    dataclass sets each of its ten fields through ``object.__setattr__``)."""

    debit: str
    kind: str
    player: str
    currency: str
    amount: Decimal
    table: str
    round: str
    position: str
    bet: str
    state: str


class Intents:
    def __init__(self, path: str | Path) -> None:
        try:
            self.db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False, timeout=5.0)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")  # an intent must be on disk before its debit is sent
            self.db.executescript(SCHEMA)
        except sqlite3.Error as exc:
            raise InputError(f"cannot open the platform's database: {exc}", where=str(path)) from None
        self.lock = threading.Lock()
        self._turn: list[tuple] = []  # the writes waiting for the next group: (sql, args, future or None)
        self._due = False  # a group is due on the loop's next turn
        self._committing = False  # a group is under way (the next gathers meanwhile)
        self._group_task: asyncio.Task | None = None
        # Only what waits on the disk leaves the loop's thread: the COMMIT (and a BEGIN that has to
        # wait for another process's write lock). The statements run on the loop's thread, between its
        # other work: on a thread of their own, each row's statement waited for the interpreter lock
        # to come back from the loop's thread, and the loop's work waited for theirs.
        self.disk = ThreadPoolExecutor(1, thread_name_prefix="platform-intents", initializer=name_this_thread)

    def close(self) -> None:
        self.disk.shutdown(wait=True)
        self.db.close()

    async def add(self, it: Intent) -> None:
        """Written and on disk (with the others waiting: one commit for them all)."""
        await self._write(_INSERT, (it.debit, it.kind, it.player, it.currency, format(it.amount, "f"), it.table,
                                    it.round, it.position, it.bet, it.state, time.time()))

    async def add_many(self, its: list[Intent]) -> None:
        """All written and on disk, in one transaction (with whatever else waits),
        up to ``ROWS`` rows a statement: their values in one list a statement,
        made here (an intent's fields are the columns' order, the amount a text)."""
        if not its:
            return
        now = time.time()
        future = asyncio.get_running_loop().create_future()
        for start in range(0, len(its), ROWS):
            chunk = its[start:start + ROWS]
            values: list = []
            for it in chunk:
                values += it
                values[-6] = format(it.amount, "f")  # (the amount, fifth of the ten)
                values.append(now)
            self._turn.append((_INSERTS[len(chunk)], values, future if start + ROWS >= len(its) else None))
        self._handed()
        await future

    async def move(self, debit: str, state: str, note: str | None = None) -> None:
        await self._write(_MOVE, (state, note, debit))

    async def move_many(self, moves: list[tuple[str, str | None, str]]) -> None:
        """Each ``(state, note, debit)`` moved, on disk, in one transaction."""
        await self._write_many(_MOVE, moves)

    def note(self, debit: str, state: str) -> None:
        """Move without waiting for the commit (a bet left open in the log
        is decided from the stream by the sweep: ``placed`` only saves it that)."""
        self._hand(_MOVE, (state, None, debit), None)

    def note_many(self, moves: list[tuple[str, str | None, str]]) -> None:
        """Each ``(state, note, debit)`` moved without waiting for the commit (as ``note``)."""
        if moves:
            self._turn.extend((_MOVE, args, None) for args in moves)
            self._handed()

    async def _write(self, sql: str, args: tuple) -> None:
        future = asyncio.get_running_loop().create_future()
        self._hand(sql, args, future)
        await future

    async def _write_many(self, sql: str, rows: list[tuple]) -> None:
        """Rows of one statement, one future for them all (the last: a group commits whole)."""
        if not rows:
            return
        future = asyncio.get_running_loop().create_future()
        self._turn.extend((sql, args, None) for args in rows[:-1])
        self._hand(sql, rows[-1], future)
        await future

    def _hand(self, sql: str, args: tuple, future: asyncio.Future | None) -> None:
        self._turn.append((sql, args, future))
        self._handed()

    def _handed(self) -> None:
        """The next group starts on the loop's next turn (the writes of bets placed
        together go together), or when the group under way has committed."""
        if not self._due and not self._committing:
            self._due = True
            asyncio.get_running_loop().call_soon(self._start)

    def _start(self) -> None:
        self._due = False
        if self._committing or not self._turn:
            return
        self._committing = True
        self._group_task = asyncio.ensure_future(self._groups())

    async def _groups(self) -> None:
        """Every write waiting, a group at a time, each in one transaction (one
        fsync); each group's waiting writers woken once it is on disk."""
        loop = asyncio.get_running_loop()
        try:
            while self._turn:
                group, self._turn = self._turn, []  # (whole: a batch's rows commit together or not at all)
                error = None
                try:
                    await self._commit(loop, group)
                except Exception as exc:
                    error = exc
                _deliver([future for _, _, future in group if future is not None], error)
        finally:
            self._committing = False

    async def _commit(self, loop: asyncio.AbstractEventLoop, group: list[tuple]) -> None:
        if self.lock.acquire(blocking=False):
            if self._begin_at_once():
                try:
                    self._statements(group)
                except BaseException:
                    self.db.execute("ROLLBACK")
                    self.lock.release()
                    raise
                await loop.run_in_executor(self.disk, self._commit_and_release)
                return
            self.lock.release()
        # (another process holds the write lock, or a reader of another thread this one's: all of it waits there)
        await loop.run_in_executor(self.disk, self._whole, group)

    def _begin_at_once(self) -> bool:
        """A write transaction if no other connection holds the write lock now."""
        self.db.execute("PRAGMA busy_timeout=0")
        try:
            self.db.execute("BEGIN IMMEDIATE")
            return True
        except sqlite3.OperationalError:
            return False
        finally:
            self.db.execute("PRAGMA busy_timeout=5000")

    def _commit_and_release(self) -> None:
        try:
            self.db.execute("COMMIT")
        except BaseException:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            raise
        finally:
            self.lock.release()

    def _whole(self, group: list[tuple]) -> None:
        with self.lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                self._statements(group)
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")

    def _statements(self, group: list[tuple]) -> None:
        """The group's statements in order, a run of the same statement at once."""
        at = 0
        while at < len(group):
            sql, end = group[at][0], at + 1
            while end < len(group) and group[end][0] == sql:
                end += 1
            self.db.executemany(sql, [args for _, args, _ in group[at:end]])
            at = end

    def get(self, debit: str) -> Intent | None:
        with self.lock:
            row = self.db.execute(f"SELECT {_COLUMNS} FROM intent WHERE debit=?", (debit,)).fetchone()
        return None if row is None else _intent(row)

    def open(self) -> list[Intent]:
        """Every bet whose outcome is not settled yet in this log (open: debiting or cancelling)."""
        with self.lock:
            rows = self.db.execute(f"SELECT {_COLUMNS} FROM intent WHERE state IN (?, ?) ORDER BY at",
                                   OPEN).fetchall()
        return [_intent(r) for r in rows]

    def undecided_rounds(self) -> list[tuple[str, str]]:
        """The rounds with a bet the stream has not decided yet (orphan candidates' rounds), by table and round."""
        with self.lock:
            return self.db.execute(f"SELECT DISTINCT tbl, round FROM intent WHERE {_PENDING}").fetchall()

    def undecided(self, table: str, round_id: str) -> list[Intent]:
        """A round's bets the stream has not decided yet."""
        with self.lock:
            rows = self.db.execute(f"SELECT {_COLUMNS} FROM intent WHERE ({_PENDING}) AND tbl=? AND round=? "
                                   "ORDER BY at", (table, round_id)).fetchall()
        return [_intent(r) for r in rows]

    def counts(self) -> dict[str, int]:
        with self.lock:
            return dict(self.db.execute("SELECT state, COUNT(*) FROM intent GROUP BY state").fetchall())


def _deliver(futures: list[asyncio.Future], error: Exception | None) -> None:
    for future in futures:
        if future.done():
            continue
        if error is None:
            future.set_result(None)
        else:
            future.set_exception(error)


_INSERT = ("INSERT INTO intent (debit, kind, player, currency, amount, tbl, round, position, bet, state, at) "
           "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
#: the rows a batch's insert writes in one statement (``add_many``): one statement of many rows costs
#: a quarter less a row than ``executemany``'s step, reset and binding a row (7.5 -> 5.5 us a row in a
#: batch of 98). At most 64 rows (704 values: under the oldest SQLite's limit of 999), each count's
#: statement made once here and prepared once (the connection keeps 128)
ROWS = 64
_INSERTS = [""] + [_INSERT.replace("VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", "VALUES " + ",".join(
    ["(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"] * n)) for n in range(1, ROWS + 1)]
_MOVE = "UPDATE intent SET state=?, note=COALESCE(?, note) WHERE debit=?"


_COLUMNS = "debit, kind, player, currency, amount, tbl, round, position, bet, state"


def _intent(row) -> Intent:
    return Intent(row[0], row[1], row[2], row[3], Decimal(row[4]), row[5], row[6], row[7], row[8], row[9])
