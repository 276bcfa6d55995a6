"""An append-only, keyed-chain journal in SQLite (WAL, synchronous=FULL).

Each public table action is one transaction: its input record and every
outcome it causes commit together, or (refused, crashed) not at all. So the
journal never holds half an action, and a bet the table acknowledged is on
disk before the acknowledgement returns.

Each record carries its predecessor's link and its own: an HMAC-SHA256 of
both and every field under the table's key (``chain.py``), so editing,
deleting, reordering, inserting or re-chaining records without the key
breaks the chain at the first record touched. The ``head`` row names the
last record and the ``checkpoint`` row the last record verified before the
open round began, each with a MAC; the journal's first keyed record (kind
``meta``, name ``chain``) seals any legacy records before it, and each
round's first record (``meta``/``round``) names the rule profile and the
count and last link of the round closed before it.

One process writes a journal (``lock.py``); readers open it read-only
(``readonly.py``). A full disk or an I/O error refuses the action with one
line (:class:`StorageError`) and changes nothing.
"""

from __future__ import annotations

import json
import os
from json.encoder import c_make_encoder, encode_basestring_ascii
import secrets
import sqlite3
import time
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

from tablecore.errors import IllegalAction, InputError
from tablecore.frozen import built
from tablecore.said import CORE_WORDS
from tablesim.journal.chain import (
    ALGORITHM, CHAIN_KIND, CHAIN_NAME, GENESIS, ROUND_KIND, ROUND_NAME, record_hash, record_link, seal_mac,
)
from tablesim.journal.keys import default_key_path, key_for, key_id
from tablesim.journal.lock import WriterLock
from tablesim.journal.readonly import ReadOnly

__all__ = ["GENESIS", "Journal", "Record", "StorageError", "canonical", "open_journal", "record_hash"]

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
    hash TEXT NOT NULL,
    mac TEXT
);
CREATE TABLE IF NOT EXISTS checkpoint (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    seq INTEGER NOT NULL,
    hash TEXT NOT NULL,
    mac TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS bet_refs (
    table_id TEXT NOT NULL,
    player TEXT NOT NULL,
    ref TEXT NOT NULL,
    round_id TEXT NOT NULL,
    position TEXT NOT NULL,
    bet TEXT NOT NULL,
    amount TEXT NOT NULL,
    seq INTEGER NOT NULL,
    PRIMARY KEY (table_id, ref, player)
) WITHOUT ROWID;
"""

#: the free space an action needs before it starts (bytes): below it the
#: action is refused before anything changes, instead of failing half-way
RESERVE_BYTES = 1 << 20


class StorageError(IllegalAction):
    """The journal cannot record the action (full disk, I/O error): refused, nothing changed."""

    def __init__(self, path: str, why: str, *, retry: bool = True) -> None:
        # (the English words are the catalog's: "journal {path}: {why}: nothing was changed; ...")
        super().__init__("action", CORE_WORDS("refusal.journal_retry" if retry else "refusal.journal_stopped",
                                              path=path, why=why))

    def __str__(self) -> str:
        return f"refused: {self.reason}"


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

    @classmethod
    def _of(cls, row: tuple, data: dict[str, Any]) -> "Record":
        """The record of a row just written (``data`` as given, not read back),
        built at once (``tablecore.frozen``: a group builds thousands)."""
        seq, ts, table_id, round_id, kind, name, actor, _, prev_hash, link = row
        return built(cls, {"seq": seq, "ts": ts, "table_id": table_id, "round_id": round_id, "kind": kind,
                           "name": name, "actor": actor, "data": data, "prev_hash": prev_hash, "hash": link})


class _Nested:
    """A transaction opened inside another: counted, nothing else (the outer
    one commits or rolls back). One per journal, reused: a group opens
    thousands."""

    __slots__ = ("journal",)

    def __init__(self, journal: "Journal") -> None:
        self.journal = journal

    def __enter__(self) -> None:
        self.journal._depth += 1

    def __exit__(self, *exc: Any) -> bool:
        self.journal._depth -= 1
        return False


class _Savepoint:
    """One action inside a transaction (``Journal.savepoint``). In a group
    the records wait in memory: undoing the action cuts the list back; in
    any other transaction it is an SQL savepoint."""

    __slots__ = ("journal", "saved", "rows")

    def __init__(self, journal: "Journal") -> None:
        self.journal = journal

    def __enter__(self) -> None:
        j = self.journal
        self.saved = (j.seq, j.last_hash, j.keyed, j.round_id, list(j._round), j._checkpoint_row)
        self.rows = None if j._rows is None else len(j._rows)
        if self.rows is None:
            j.db.execute("SAVEPOINT action")

    def __exit__(self, kind: Any, exc: Any, tb: Any) -> bool:
        j = self.journal
        if kind is None:
            if self.rows is None:
                j.db.execute("RELEASE action")
            return False
        j.seq, j.last_hash, j.keyed, j.round_id, j._round, j._checkpoint_row = self.saved
        if self.rows is not None:
            del j._rows[self.rows:]
        elif j.db.in_transaction:
            j.db.execute("ROLLBACK TO action")
            j.db.execute("RELEASE action")
        return False


#: json.dumps(data, sort_keys=True, separators=(",", ":"), default=str), with
#: the encoder built once instead of per record (the same text). The C
#: encoder itself is kept where there is one (``JSONEncoder.encode`` builds
#: it anew per call); no circular check: the codec has walked the data first.
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), default=str).encode
_C_ENCODER = None if c_make_encoder is None else c_make_encoder(
    None, str, encode_basestring_ascii, None, ":", ",", True, False, True)


#: (a second since the epoch, its text up to the second): one tuple, read and replaced whole
_SECOND: tuple[int, str] = (-1, "")


#: every column as the chain covers it: a value stored as anything but text
#: (a blob of the same bytes, a number) reads as other bytes, so its link
#: does not verify (the link covers the bytes; the column's type is part of
#: what was written)
_AS_STORED = "seq, " + ", ".join(
    f"CASE typeof({c}) WHEN 'text' THEN {c} ELSE 'stored as ' || typeof({c}) END"
    for c in ("ts", "table_id", "round_id", "kind", "name", "actor", "data", "prev_hash", "hash"))


def now_stamp() -> str:
    """UTC now, as ``datetime.now(timezone.utc).isoformat(timespec="microseconds")``
    writes it; the text up to the second is made once a second (a group of
    thousands of records would spend a fifth of its record-building on it)."""
    return stamp(time.time_ns() // 1000)


def stamp(micros: int) -> str:
    """The record time ``micros`` microseconds after the epoch (UTC)."""
    global _SECOND
    whole, micro = divmod(micros, 1_000_000)
    second, text = _SECOND
    if whole != second:
        text = datetime.fromtimestamp(whole, timezone.utc).isoformat(timespec="seconds")[:-6]
        _SECOND = (whole, text)
    return f"{text}.{micro:06d}+00:00"


def canonical(data: Any) -> str:
    if _C_ENCODER is None or type(data) is not dict:
        return _CANONICAL(data)
    return "".join(_C_ENCODER(data, 0))


def _storage_problem(exc: BaseException) -> str | None:
    """The storage failure an exception stands for, or None for anything else."""
    text = str(exc).lower()
    if isinstance(exc, sqlite3.OperationalError) and ("full" in text or "disk i/o" in text or "readonly" in text):
        return text
    if isinstance(exc, sqlite3.DatabaseError) and "disk i/o" in text:
        return text
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    return None


class Journal:
    """A table's journal.

    Written (the default): the process takes the journal's lock, creates the
    file if needed, and links every record under ``key`` (default: the key
    file ``key_file``, else ``<data dir>/<table id>.key``, created on first
    use while the journal has no keyed record).

    ``readonly``: open an existing journal for reading (audit, history):
    nothing is created or changed, no lock is taken, no file is left, and a
    file that is not a journal is refused.
    """

    def __init__(self, path: str | Path, *, durable: bool = True, readonly: bool = False,
                 key: bytes | None = None, key_file: str | Path | None = None) -> None:
        self.path = str(path)
        self.readonly = readonly
        self.durable = durable
        #: how far the journal got, kept beside the key (``witness.py``): set by the table's start
        self.mark: Any = None
        #: the file was made by this open, or was empty (a refused start puts it back as it was)
        self.created = self.was_empty = False
        self._key, self._key_file = key, (None if key_file is None else Path(key_file))
        self._lock: WriterLock | None = None
        self._reader: ReadOnly | None = None
        self.failed: str | None = None  # a write failed after the table acted: no more actions
        self.profile: dict[str, str] | None = None  # stamped on each round's first record
        self.reserve = RESERVE_BYTES
        self._schema_ok = True
        self.fresh = False  # a new file: no tables yet (made with the first record)
        try:
            if readonly:
                self._reader = ReadOnly(self.path)
                self.db = self._reader.db
                tables = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
                if "records" not in tables:
                    raise InputError("not a tablesim journal (no records table)", where=self.path)
            else:
                memory = self.path == ":memory:"
                if not memory:
                    self._lock_file()
                else:
                    self._key = self._key or secrets.token_bytes(32)  # nothing to verify after the process
                self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
                self.db.execute("PRAGMA journal_mode=WAL" if not memory else "PRAGMA journal_mode=MEMORY")
                self.db.execute(f"PRAGMA synchronous={'FULL' if durable else 'OFF'}")
                if self._lock is not None:
                    self._lock.cover_journal()  # (a new file: made by SQLite just now)
                # An existing journal is left as it is until the table writes
                # (after it verified it): a refused start changes no byte.
                self._schema_ok = False
                # A new journal's tables are made by its first transaction,
                # with its chain record: a journal file never holds its tables
                # and no record, so one that does had every record deleted.
                self.fresh = not self.db.execute("SELECT 1 FROM sqlite_master WHERE name = 'records'").fetchone()
            self._load_state()
        except sqlite3.DatabaseError as exc:
            self._release()
            raise InputError(f"cannot open journal: {exc}", where=self.path) from None
        except OSError as exc:  # (its folder cannot be made: a full or read-only disk)
            self._release()
            raise InputError(f"cannot open journal: {exc.strerror or exc}", where=self.path) from None
        except BaseException:
            self._release()
            raise
        self._depth = 0
        self._touched = 0
        self._head_of: str | None = None  # the table whose record the head must name at the commit
        #: a group transaction's records (and moved checkpoint), written at its commit; None outside a group
        self._rows: list[tuple] | None = None
        self._checkpoint_row: tuple | None = None
        self._nested = _Nested(self)

    def _lock_file(self) -> None:
        """The writer's side of the file: its folder, what it was before this
        open (none, empty), and the writer's lock."""
        try:
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(f"cannot create its folder: {exc.strerror}", where=self.path) from None
        if Path(self.path).is_dir():
            raise InputError("is a directory, not a journal file", where=self.path)
        self.created = not os.path.exists(self.path)
        self.was_empty = not self.created and os.path.getsize(self.path) == 0
        self._lock = WriterLock(self.path)

    def _load_state(self) -> None:
        if self.fresh:
            self.seq, self.last_hash, self.keyed, self.round_id, self._round = 0, GENESIS, False, "", [0, 0, GENESIS]
            return
        row = self.db.execute("SELECT seq, hash, round_id FROM records ORDER BY seq DESC LIMIT 1").fetchone()
        self.seq, self.last_hash = (row[0], row[1]) if row else (0, GENESIS)
        self.keyed = self.checkpoint() is not None or self.db.execute(
            "SELECT 1 FROM records WHERE kind = ? AND name = ? LIMIT 1", (CHAIN_KIND, CHAIN_NAME)
        ).fetchone() is not None if row else False
        last_round = self.db.execute(
            "SELECT round_id FROM records WHERE round_id != '' ORDER BY seq DESC LIMIT 1").fetchone() if row else None
        self.round_id = last_round[0] if last_round else ""
        if self.round_id:
            count, last = self.db.execute(
                "SELECT COUNT(*), MAX(seq) FROM records WHERE round_id = ?", (self.round_id,)).fetchone()
            link = self.db.execute("SELECT hash FROM records WHERE seq = ?", (last,)).fetchone()
            # (a damaged index may find none of the round's records: the
            # start-up check refuses such a file before anything is written)
            self._round = [count, last, link[0]] if link else [0, 0, GENESIS]
        else:
            self._round = [0, 0, GENESIS]

    def _ensure_schema(self) -> None:
        """Create the tables, or bring a journal from before keyed chains up to
        them (a checkpoint table, a MAC on the head)."""
        if self._schema_ok:
            return
        for statement in SCHEMA.split(";"):  # (executescript would commit an open transaction)
            if statement.strip():
                self.db.execute(statement)
        columns = {r[1] for r in self.db.execute("PRAGMA table_info(head)")}
        if "mac" not in columns:  # a head from before keyed chains
            self.db.execute("ALTER TABLE head ADD COLUMN mac TEXT")
        self._schema_ok = True

    def _release(self) -> None:
        if self._reader is not None:
            self._reader.cleanup()
        if self._lock is not None:
            self._lock.release()

    def abandon(self) -> None:
        """Close without changing a byte (a refused start): SQLite's last
        connection would fold the ``-wal`` file into the journal as it
        closes (a damaged one: its good part, the rest deleted). A read-only
        connection held across the close stops that, and itself never
        checkpoints."""
        if self.path == ":memory:" or self.readonly or self.created or self.was_empty:
            self.close()
            self._put_back()
            return
        try:
            keep = sqlite3.connect(f"file:{Path(self.path).resolve()}?mode=ro", uri=True)
            keep.execute("BEGIN")
            keep.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        except sqlite3.DatabaseError:
            keep = None
        try:
            self.close()
        finally:
            if keep is not None:
                keep.close()

    def _put_back(self) -> None:
        """The file as it was before this open: none, or empty."""
        if self.seq or self.path == ":memory:":
            return
        if self.created:
            for side in ("", "-wal", "-shm"):
                Path(self.path + side).unlink(missing_ok=True)
        elif self.was_empty:
            os.truncate(self.path, 0)
            for side in ("-wal", "-shm"):
                Path(self.path + side).unlink(missing_ok=True)

    def close(self) -> None:
        try:
            if self.mark is not None:
                self.mark.close()
            self.db.close()
        finally:
            if self._reader is not None:
                self._reader.close()
            if self._lock is not None:
                self._lock.release()

    # --- the key -----------------------------------------------------------------

    def key_path(self, table_id: str) -> Path:
        return self._key_file if self._key_file is not None else default_key_path(table_id)

    def key(self, table_id: str) -> bytes:
        """The chain's key (loaded, or created while the journal has no keyed record)."""
        if self._key is None:
            self._key = key_for(self.key_path(table_id), create=not self.keyed)
        return self._key

    # --- writing -----------------------------------------------------------------

    def transaction(self, *, group: bool = False):
        """All records appended inside commit together; an exception rolls back.

        ``group``: many actions in one transaction (group commit of bets),
        each in its own :meth:`savepoint`: the records are kept in memory,
        chained as they come, and written in one statement at the commit,
        so a savepoint is a mark in that list instead of two SQL statements.
        (Nothing reads the journal's records inside a group; the commit, and
        so the fsync, is the same.)

        A storage failure (full disk, I/O error) is a :class:`StorageError`.
        If it strikes before the action ran (the free-space check, the first
        record) the action can simply be retried; after (a later record, the
        commit) the table's memory is ahead of its journal, so the journal
        refuses every further action until the table is restarted.
        """
        if self._depth:  # inside the action's (or the group's) transaction: only counted
            return self._nested
        return self._outer(group)

    @contextmanager
    def _outer(self, group: bool) -> Iterator[None]:
        if self.failed:
            raise StorageError(self.path, self.failed, retry=False)
        self._check_space()
        saved = (self.seq, self.last_hash, self.keyed, self.round_id, list(self._round))
        schema_ok = self._schema_ok  # (tables made in a transaction that rolls back are gone again)
        self._touched = 0
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.DatabaseError as exc:
            raise self._storage(exc, retry=True) from None
        self._depth = 1
        marking = False
        self._head_of = None
        self._rows = [] if group else None
        self._checkpoint_row = None
        try:
            self._ensure_schema()
            yield
            self._flush()
            self._write_head()
            marking = self.mark is not None and self.seq != saved[0]
            if marking:
                self.mark.begin(self.seq, self.last_hash)  # flushed while SQLite commits
            self.db.execute("COMMIT")
        except BaseException as exc:
            if marking:
                self._finish_mark(None)
            try:
                self.db.execute("ROLLBACK")
            except sqlite3.DatabaseError:
                pass  # a failed COMMIT may have ended the transaction already
            self.seq, self.last_hash, self.keyed, self.round_id, self._round = saved
            self._schema_ok = schema_ok
            self._head_of = None
            problem = _storage_problem(exc)
            if problem is None:
                raise
            if isinstance(exc, StorageError):
                raise
            raise self._storage(exc, retry=self._touched <= 1) from None
        finally:
            self._depth = 0
            self._rows = self._checkpoint_row = None
        if marking:
            self._finish_mark((self.seq, self.last_hash))

    def _finish_mark(self, committed: tuple[int, str] | None) -> None:
        """The mark beside the key says so before the action is answered. A
        mark that cannot be written leaves the journal ahead of it (allowed),
        but then the next answer would not be covered: the table takes no
        more actions."""
        try:
            self.mark.finish(committed)
        except OSError as exc:
            self.failed = f"cannot advance the journal's mark {self.mark.path}: {exc.strerror or exc}"

    def _flush(self) -> None:
        """A group's records (and the checkpoint a round's start moved), written."""
        if self._rows:
            self.db.executemany("INSERT INTO records VALUES (?,?,?,?,?,?,?,?,?,?)", self._rows)
        if self._checkpoint_row is not None:
            self.db.execute("INSERT OR REPLACE INTO checkpoint VALUES (1, ?, ?, ?)", self._checkpoint_row)

    def _storage(self, exc: BaseException, *, retry: bool) -> StorageError:
        why = _storage_problem(exc) or str(exc)
        if not retry:
            self.failed = why
        return StorageError(self.path, why, retry=retry)

    def _check_space(self) -> None:
        if self.path == ":memory:" or self.reserve <= 0:
            return
        try:
            st = os.statvfs(Path(os.path.realpath(self.path)).parent)  # (a symlink's target's disk)
        except OSError:
            return
        if st.f_bavail * st.f_frsize < self.reserve:
            raise StorageError(self.path, f"the disk is full (less than {self.reserve // 1024} KiB free)")

    def savepoint(self) -> "_Savepoint":
        """One action inside an open transaction (group commit: several table
        actions in one transaction, one fsync). If the action raises, the
        records it appended are undone and the transaction goes on without
        them; otherwise they commit with the rest of the transaction."""
        if not self._depth:
            raise RuntimeError("a savepoint needs an open transaction")
        return _Savepoint(self)

    def append(self, table_id: str, round_id: str, kind: str, name: str, data: dict[str, Any], actor: str = "") -> Record:
        if self._depth:  # inside the action's transaction (the usual case): no context of its own
            return self._append(table_id, round_id, kind, name, data, actor)
        with self.transaction():
            return self._append(table_id, round_id, kind, name, data, actor)

    def _append(self, table_id: str, round_id: str, kind: str, name: str, data: dict[str, Any], actor: str) -> Record:
        self._touched += 1
        if not self.keyed:
            self._seal(table_id)
        if round_id and round_id != self.round_id and kind != "meta":
            self._start_round(table_id, round_id)
        return self._insert(table_id, round_id, kind, name, data, actor)

    def seal(self, table_id: str) -> None:
        """Begin the keyed chain now (a new or legacy journal), if not begun."""
        if not self.keyed:
            with self.transaction():
                self._seal(table_id)

    def _seal(self, table_id: str) -> None:
        key = self.key(table_id)
        self.keyed = True
        self._insert(table_id, "", CHAIN_KIND, CHAIN_NAME, {
            "chain": ALGORITHM, "key_id": key_id(key), "legacy": {"records": self.seq, "link": self.last_hash},
        }, "journal")

    def _start_round(self, table_id: str, round_id: str) -> None:
        """The round's first record: its profile, and the round closed before it.
        The checkpoint moves to the record before it: the open round is never
        behind the checkpoint, so a restart always verifies what it replays."""
        closed = []
        if self.round_id:
            count, last, link = self._round
            closed.append({"round_id": self.round_id, "records": count, "last_seq": last, "link": link})
        key = self.key(table_id)
        row = (self.seq, self.last_hash, seal_mac(key, "checkpoint", self.seq, self.last_hash))
        if self._rows is not None:
            self._checkpoint_row = row  # written at the group's commit, after its records
        else:
            self.db.execute("INSERT OR REPLACE INTO checkpoint VALUES (1, ?, ?, ?)", row)
        self._insert(table_id, round_id, ROUND_KIND, ROUND_NAME,
                     {"profile": self.profile, "closed": closed}, "journal")

    def _insert(self, table_id: str, round_id: str, kind: str, name: str, data: dict[str, Any], actor: str) -> Record:
        seq = self.seq + 1
        ts = now_stamp()
        text = canonical(data)
        if self.keyed:
            digest = record_link(self.key(table_id), self.last_hash, seq, ts, table_id, round_id, kind, name, actor, text)
        else:  # (only a legacy journal's own records, from before the chain record: never written now)
            digest = record_hash(self.last_hash, seq, ts, table_id, round_id, kind, name, actor, text)
        row = (seq, ts, table_id, round_id, kind, name, actor, text, self.last_hash, digest)
        if self._rows is not None:
            self._rows.append(row)  # a group: written at its commit
        else:
            self.db.execute("INSERT INTO records VALUES (?,?,?,?,?,?,?,?,?,?)", row)
        self._head_of = table_id  # the head is written once, at the commit
        record = Record._of(row, data)
        self.seq, self.last_hash = seq, digest
        if round_id:
            if round_id != self.round_id:
                self.round_id, self._round = round_id, [0, 0, GENESIS]
            self._round[0] += 1
            self._round[1] = seq
            self._round[2] = digest
        return record

    def _write_head(self) -> None:
        """The head names the last record under the key, so cutting records off
        the end and naming the new last record in the head does not verify.
        Written once per transaction (the same row for every record in it:
        group commit writes thousands)."""
        table_id, self._head_of = self._head_of, None
        if table_id is None:
            return
        mac = seal_mac(self.key(table_id), "head", self.seq, self.last_hash) if self.keyed else None
        self.db.execute("INSERT OR REPLACE INTO head (id, seq, hash, mac) VALUES (1, ?, ?, ?)",
                        (self.seq, self.last_hash, mac))

    # --- the seals ---------------------------------------------------------------

    def head(self) -> tuple[int, str] | None:
        """(seq, link) the head names, or None (the audit reads it with its MAC)."""
        try:
            row = self.db.execute("SELECT seq, hash FROM head WHERE id = 1").fetchone()
        except sqlite3.OperationalError:
            return None  # a journal from before the head table
        return (row[0], row[1]) if row else None

    def checkpoint(self) -> tuple | None:
        """(seq, link, mac) of the checkpoint, or None."""
        try:
            return self.db.execute("SELECT seq, hash, mac FROM checkpoint WHERE id = 1").fetchone()
        except sqlite3.OperationalError:
            return None

    # --- reading -----------------------------------------------------------------

    def records(self, round_id: str | None = None) -> Iterator[Record]:
        if round_id is None:
            rows = self.db.execute("SELECT * FROM records ORDER BY seq")
        else:
            rows = self.db.execute("SELECT * FROM records WHERE round_id = ? ORDER BY seq", (round_id,))
        for row in rows:
            yield Record(*row[:7], json.loads(row[7]), row[8], row[9])

    def raw_rows(self, after: int = 0) -> Iterator[tuple]:
        """Every record from ``after + 1`` on as stored (bytes), in storage order."""
        cur = self.db.cursor()
        saved = self.db.text_factory
        self.db.text_factory = bytes
        try:
            cur.execute(f"SELECT {_AS_STORED} FROM records WHERE rowid > ? ORDER BY rowid", (after,))
        finally:
            self.db.text_factory = saved
        while True:
            self.db.text_factory = bytes
            try:
                batch = cur.fetchmany(2048)
            finally:
                self.db.text_factory = saved
            if not batch:
                return
            yield from batch

    def raw_rounds(self, round_ids: list[str]) -> list[tuple]:
        """The records of ``round_ids`` as stored (bytes, as :meth:`raw_rows`), by seq."""
        saved = self.db.text_factory
        self.db.text_factory = bytes
        try:
            return self.db.execute(f"SELECT {_AS_STORED} FROM records WHERE round_id IN "
                                   f"({','.join('?' * len(round_ids))}) ORDER BY seq", round_ids).fetchall()
        finally:
            self.db.text_factory = saved

    def round_ids(self) -> list[str]:
        rows = self.db.execute(
            "SELECT round_id, MIN(seq) FROM records WHERE round_id != '' GROUP BY round_id ORDER BY MIN(seq)"
        )
        return [r[0] for r in rows]

    def round_profile(self, round_id: str) -> dict[str, str] | None:
        """The rule profile a round was played under (its first record), or None."""
        row = self.db.execute(
            "SELECT data FROM records WHERE round_id = ? AND kind = ? AND name = ? ORDER BY seq LIMIT 1",
            (round_id, ROUND_KIND, ROUND_NAME),
        ).fetchone()
        return json.loads(row[0]).get("profile") if row else None

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


def open_journal(path: str | Path | None, *, durable: bool = True, key_file: str | Path | None = None) -> Journal | None:
    """``None`` or ``"none"``: no journal (simulations only)."""
    if path is None or str(path) == "none":
        return None
    if str(path) in (":memory:", "memory"):
        return Journal(":memory:", durable=False)
    return Journal(path, durable=durable, key_file=key_file)
