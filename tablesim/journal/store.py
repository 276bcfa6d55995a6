"""An append-only, hash-chained journal in SQLite (WAL, synchronous=FULL).

Each public table action is one transaction: its input record and every
outcome it causes commit together, or (refused, crashed) not at all. So the
journal never holds half an action, and a bet the table acknowledged is on
disk before the acknowledgement returns.

Each record carries the hash of the one before it, so editing, deleting or
reordering any record breaks the chain at that record (``verify``).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

from tablesim.core.errors import InputError

GENESIS = "0" * 64

SCHEMA = """
CREATE TABLE IF NOT EXISTS records (
    seq INTEGER PRIMARY KEY,
    ts TEXT NOT NULL,
    table_id TEXT NOT NULL,
    round_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    actor TEXT NOT NULL,
    data TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS records_round ON records (round_id);
CREATE TABLE IF NOT EXISTS head (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    seq INTEGER NOT NULL,
    hash TEXT NOT NULL
);
"""


@dataclass(frozen=True)
class Record:
    seq: int
    ts: str
    table_id: str
    round_id: str
    kind: str  # input | event | operator | meta
    name: str
    actor: str
    data: dict[str, Any]
    prev_hash: str
    hash: str


def canonical(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)


def record_hash(prev: str, seq: int, ts: str, table_id: str, round_id: str, kind: str, name: str, actor: str, data: str) -> str:
    text = "\x1f".join((prev, str(seq), ts, table_id, round_id, kind, name, actor, data))
    return hashlib.sha256(text.encode()).hexdigest()


class Journal:
    """``readonly``: open an existing journal for reading (audit, history):
    nothing is created or changed, and a file that is not a journal is refused."""

    def __init__(self, path: str | Path, *, durable: bool = True, readonly: bool = False) -> None:
        self.path = str(path)
        try:
            if readonly:
                uri = Path(self.path).resolve().as_uri() + "?mode=ro"
                self.db = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
                tables = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
                if "records" not in tables:
                    raise InputError("not a tablesim journal (no records table)", where=self.path)
            else:
                if self.path != ":memory:":
                    Path(self.path).parent.mkdir(parents=True, exist_ok=True)
                self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
                self.db.execute("PRAGMA journal_mode=WAL" if self.path != ":memory:" else "PRAGMA journal_mode=MEMORY")
                self.db.execute(f"PRAGMA synchronous={'FULL' if durable else 'OFF'}")
                self.db.executescript(SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise InputError(f"cannot open journal: {exc}", where=self.path) from None
        row = self.db.execute("SELECT seq, hash FROM records ORDER BY seq DESC LIMIT 1").fetchone()
        self.seq, self.last_hash = (row[0], row[1]) if row else (0, GENESIS)
        self._depth = 0

    def close(self) -> None:
        self.db.close()

    # --- writing -----------------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """All records appended inside commit together; an exception rolls back."""
        if self._depth:
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
            return
        seq, last = self.seq, self.last_hash
        self.db.execute("BEGIN IMMEDIATE")
        self._depth = 1
        try:
            yield
        except BaseException:
            # Put the head back first: a failed write (disk full, I/O error,
            # interrupt) may already have rolled the transaction back.
            self.seq, self.last_hash = seq, last
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            raise
        else:
            self.db.execute("COMMIT")
        finally:
            self._depth = 0

    @contextmanager
    def savepoint(self) -> Iterator[None]:
        """One action inside an open transaction (group commit: several table
        actions in one transaction, one fsync). If the action raises, the
        records it appended are undone and the transaction goes on without
        them; otherwise they commit with the rest of the transaction."""
        if not self._depth:
            raise RuntimeError("a savepoint needs an open transaction")
        seq, last = self.seq, self.last_hash
        self.db.execute("SAVEPOINT action")
        try:
            yield
        except BaseException:
            self.seq, self.last_hash = seq, last
            if self.db.in_transaction:
                self.db.execute("ROLLBACK TO action")
                self.db.execute("RELEASE action")
            raise
        else:
            self.db.execute("RELEASE action")

    def append(self, table_id: str, round_id: str, kind: str, name: str, data: dict[str, Any], actor: str = "") -> Record:
        with self.transaction():
            seq = self.seq + 1
            ts = datetime.now(timezone.utc).isoformat(timespec="microseconds")
            text = canonical(data)
            digest = record_hash(self.last_hash, seq, ts, table_id, round_id, kind, name, actor, text)
            self.db.execute(
                "INSERT INTO records VALUES (?,?,?,?,?,?,?,?,?,?)",
                (seq, ts, table_id, round_id, kind, name, actor, text, self.last_hash, digest),
            )
            # The head names the last record, so deleting records from the end
            # (which leaves a valid chain) is caught by the audit too.
            self.db.execute("INSERT OR REPLACE INTO head VALUES (1, ?, ?)", (seq, digest))
            record = Record(seq, ts, table_id, round_id, kind, name, actor, data, self.last_hash, digest)
            self.seq, self.last_hash = seq, digest
        return record

    def head(self) -> tuple[int, str] | None:
        try:
            row = self.db.execute("SELECT seq, hash FROM head WHERE id = 1").fetchone()
        except sqlite3.OperationalError:
            return None  # a journal from before the head table
        return (row[0], row[1]) if row else None

    # --- reading -----------------------------------------------------------------

    def records(self, round_id: str | None = None) -> Iterator[Record]:
        if round_id is None:
            rows = self.db.execute("SELECT * FROM records ORDER BY seq")
        else:
            rows = self.db.execute("SELECT * FROM records WHERE round_id = ? ORDER BY seq", (round_id,))
        for row in rows:
            yield Record(*row[:7], json.loads(row[7]), row[8], row[9])

    def raw_rows(self) -> Iterator[tuple]:
        yield from self.db.execute("SELECT * FROM records ORDER BY rowid")

    def round_ids(self) -> list[str]:
        rows = self.db.execute(
            "SELECT round_id, MIN(seq) FROM records WHERE round_id != '' GROUP BY round_id ORDER BY MIN(seq)"
        )
        return [r[0] for r in rows]

    def last_round_id(self, table_id: str | None = None) -> str | None:
        """The latest round (of ``table_id`` when given: tables never take
        over each other's rounds in a shared file)."""
        if table_id is None:
            row = self.db.execute(
                "SELECT round_id FROM records WHERE round_id != '' ORDER BY seq DESC LIMIT 1"
            ).fetchone()
        else:
            row = self.db.execute(
                "SELECT round_id FROM records WHERE round_id != '' AND table_id = ? ORDER BY seq DESC LIMIT 1",
                (table_id,),
            ).fetchone()
        return row[0] if row else None


def open_journal(path: str | Path | None, *, durable: bool = True) -> Journal | None:
    """``None`` or ``"none"``: no journal (simulations only)."""
    if path is None or str(path) == "none":
        return None
    if str(path) in (":memory:", "memory"):
        return Journal(":memory:", durable=False)
    return Journal(path, durable=durable)
