"""The journal's store in SQLite: one file in WAL mode, ``synchronous=FULL``.

Records are rows of ``records`` (the chain's columns, all text but ``seq``);
``head`` and ``checkpoint`` are one row each; ``bet_refs`` indexes every bet
ref (``refs.py``). A new file gets its tables with its first transaction,
so a file that holds the tables and no record had every record deleted.
What the store keeps apart from the journal: the SQL, the connection, and
what SQLite needs to leave a file untouched (``abandon``) or as it was
(``put_back``).
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Iterable, Iterator, Sequence

from tablecore.errors import InputError
from tablesim.journal.sqlite import queries, schema
from tablesim.journal.sqlite.faults import storage_problem
from tablesim.journal.sqlite.readonly import ReadOnly

_INSERT = "INSERT INTO records VALUES (?,?,?,?,?,?,?,?,?,?)"
_CHECKPOINT = "INSERT OR REPLACE INTO checkpoint VALUES (1, ?, ?, ?)"


class SqliteStore:
    """A journal file in SQLite, opened to write (:meth:`writer`), to read a
    snapshot that leaves no file behind (:meth:`reader`), or to follow a
    writer's commits (:meth:`follower`)."""

    #: what its calls raise when the file cannot be read or written
    errors: tuple[type[BaseException], ...] = (sqlite3.DatabaseError,)
    storage_problem = staticmethod(storage_problem)

    def __init__(self, path: str, db: sqlite3.Connection, *, reader: ReadOnly | None = None,
                 schema_ok: bool = True) -> None:
        self.path = path
        self.db = db
        self._reader = reader
        self._schema_ok = schema_ok
        self._schema_saved = schema_ok
        #: a new file: no tables yet (made with the first record)
        self.fresh = False

    @classmethod
    def writer(cls, path: str, *, durable: bool = True) -> "SqliteStore":
        memory = path == ":memory:"
        db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        try:
            db.execute("PRAGMA journal_mode=MEMORY" if memory else "PRAGMA journal_mode=WAL")
            db.execute(f"PRAGMA synchronous={'FULL' if durable else 'OFF'}")
            # An existing journal is left as it is until the table writes
            # (after it verified it): a refused start changes no byte.
            store = cls(path, db, schema_ok=False)
            store.fresh = not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'records'").fetchone()
        except BaseException:
            db.close()
            raise
        return store

    @classmethod
    def reader(cls, path: str) -> "SqliteStore":
        """A journal as it stands (``readonly.py``); refused (InputError) if the file is no journal."""
        reader = ReadOnly(path)
        store = cls(path, reader.db, reader=reader)
        try:
            if not store.has_records_table():
                raise InputError("not a tablesim journal (no records table)", where=path)
        except BaseException:
            store.close()
            raise
        return store

    @classmethod
    def follower(cls, path: str) -> "SqliteStore":
        """A read-only connection of its own beside the table's writer (never
        the table's): every commit shows. Refused (InputError) if it cannot read records."""
        uri = Path(path).resolve().as_uri() + "?mode=ro"
        try:
            db = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False, timeout=5)
            db.execute("SELECT 1 FROM records LIMIT 1").fetchall()
        except sqlite3.DatabaseError as exc:
            raise InputError(f"cannot read the journal: {exc}", where=path) from None
        return cls(path, db)

    def has_records_table(self) -> bool:
        return bool(self.db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'records'")
                    .fetchone())

    # --- transactions -------------------------------------------------------------

    def begin(self) -> None:
        self._schema_saved = self._schema_ok  # (tables made in a transaction that rolls back are gone again)
        self.db.execute("BEGIN IMMEDIATE")

    def commit(self) -> None:
        self.db.execute("COMMIT")

    def rollback(self) -> None:
        self._schema_ok = self._schema_saved
        try:
            self.db.execute("ROLLBACK")
        except sqlite3.DatabaseError:
            pass  # a failed COMMIT may have ended the transaction already

    def savepoint(self) -> None:
        self.db.execute("SAVEPOINT action")

    def release(self) -> None:
        self.db.execute("RELEASE action")

    def undo_savepoint(self) -> None:
        if self.db.in_transaction:
            self.db.execute("ROLLBACK TO action")
            self.db.execute("RELEASE action")

    def ensure_schema(self) -> None:
        if not self._schema_ok:
            schema.create(self.db)
            self._schema_ok = True

    # --- writing (inside a transaction) ---------------------------------------------

    def add(self, row: tuple) -> None:
        self.db.execute(_INSERT, row)

    def add_many(self, rows: list[tuple]) -> None:
        self.db.executemany(_INSERT, rows)

    def put_checkpoint(self, row: tuple[int, str, str]) -> None:
        self.db.execute(_CHECKPOINT, row)

    def put_head(self, seq: int, link: str, mac: str | None) -> None:
        self.db.execute("INSERT OR REPLACE INTO head (id, seq, hash, mac) VALUES (1, ?, ?, ?)", (seq, link, mac))

    # --- the seals ------------------------------------------------------------------

    def head(self) -> tuple[int, str] | None:
        try:
            row = self.db.execute("SELECT seq, hash FROM head WHERE id = 1").fetchone()
        except sqlite3.OperationalError:
            return None  # a journal from before the head table
        return (row[0], row[1]) if row else None

    def checkpoint(self) -> tuple | None:
        try:
            return self.db.execute("SELECT seq, hash, mac FROM checkpoint WHERE id = 1").fetchone()
        except sqlite3.OperationalError:
            return None

    def seal_rows(self, which: str) -> list[tuple] | None:
        """Every row of the ``head`` or ``checkpoint`` as stored ((seq, link,
        mac), text as bytes), or None if the journal has no such table."""
        if which not in ("head", "checkpoint"):
            raise ValueError(which)
        if not self.db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (which,)).fetchone():
            return None
        cols = {r[1] for r in self.db.execute(f"PRAGMA table_info({which})")}
        with _as_bytes(self.db):
            return self.db.execute(f"SELECT seq, hash, {'mac' if 'mac' in cols else 'NULL'} FROM {which}").fetchall()

    # --- reading --------------------------------------------------------------------

    def select(self, *, after: int | None = None, upto: int | None = None, kind: str | None = None,
               names: Sequence[str] = (), table_id: str | None = None, round_id: str | None = None,
               in_round: bool = False, newest: bool = False, limit: int | None = None) -> Iterable[tuple]:
        """The records matching every part given, by seq (``newest``: the
        latest first), each a row of the chain's columns as stored."""
        sql, params = queries.select(queries.ALL, after, upto, kind, tuple(names), table_id, round_id, in_round,
                                     newest, limit)
        return self.db.execute(sql, params)

    def count(self, *, kind: str | None = None, names: Sequence[str] = (), table_id: str | None = None,
              round_id: str | None = None) -> int:
        sql = "SELECT COUNT(*) FROM records" + queries.where(False, False, kind is not None, len(names),
                                                              table_id is not None, round_id is not None, False)
        params = [v for v in (kind,) if v is not None] + list(names) + [v for v in (table_id, round_id)
                                                                        if v is not None]
        return self.db.execute(sql, params).fetchone()[0]

    def link(self, seq: int) -> str | None:
        """The link of record ``seq`` as stored, or None if there is none."""
        row = self.db.execute("SELECT hash FROM records WHERE seq = ?", (seq,)).fetchone()
        return row[0] if row else None

    def round_ids(self) -> list[str]:
        rows = self.db.execute(
            "SELECT round_id, MIN(seq) FROM records WHERE round_id != '' GROUP BY round_id ORDER BY MIN(seq)")
        return [r[0] for r in rows]

    def raw_rows(self, after: int = 0) -> Iterator[tuple]:
        """Every record from ``after + 1`` on as stored (text as bytes), in storage order."""
        cur = self.db.cursor()
        with _as_bytes(self.db):
            cur.execute(f"SELECT {queries.AS_STORED} FROM records WHERE rowid > ? ORDER BY rowid", (after,))
        while True:
            with _as_bytes(self.db):
                batch = cur.fetchmany(2048)
            if not batch:
                return
            yield from batch

    def raw_rounds(self, round_ids: list[str]) -> list[tuple]:
        """The records of ``round_ids`` as stored (as :meth:`raw_rows`), by seq."""
        with _as_bytes(self.db):
            return self.db.execute(f"SELECT {queries.AS_STORED} FROM records WHERE round_id IN "
                                   f"({','.join('?' * len(round_ids))}) ORDER BY seq", round_ids).fetchall()

    # --- the storage's own soundness ---------------------------------------------------

    def damage(self) -> str | None:
        """SQLite's integrity check (pages, records and every index agreeing
        with them), as one line, or None if the file is sound."""
        try:
            rows = self.db.execute("PRAGMA integrity_check").fetchall()
        except sqlite3.DatabaseError as exc:
            return f"SQLite integrity check: {exc}"
        texts = [str(r[0]) for r in rows]
        return None if texts == ["ok"] else "SQLite integrity check: " + "; ".join(texts[:3])

    def schema_problem(self) -> str | None:
        """An altered table, or an object (a trigger, a view) no journal has."""
        with _as_bytes(self.db):
            objects = self.db.execute("SELECT type, name, sql FROM sqlite_master").fetchall()
        return schema.problem(objects)

    # --- the bet ref index (``refs.py``) ------------------------------------------------

    def ref_entries(self, table_id: str, refs: list[str]) -> Iterator[tuple]:
        """(player, ref, round_id, position, bet, amount) of every entry under ``refs``."""
        try:
            for at in range(0, len(refs), 500):
                part = refs[at:at + 500]
                yield from self.db.execute(
                    "SELECT player, ref, round_id, position, bet, amount FROM bet_refs WHERE table_id = ? AND ref IN "
                    f"({','.join('?' * len(part))})", (table_id, *part))
        except sqlite3.OperationalError:  # (no index yet)
            return

    def add_refs(self, entries: list[tuple]) -> None:
        """Index entries (table, player, ref, round, position, bet, amount, seq); a known one stays."""
        self.db.executemany("INSERT OR IGNORE INTO bet_refs VALUES (?, ?, ?, ?, ?, ?, ?, ?)", entries)

    def ref_counts(self, table_id: str) -> tuple[int, int]:
        """(entries indexed, refs the table's ``bet_refs`` records and its batch
        records' bets with a ref hold)."""
        indexed = self.db.execute("SELECT COUNT(*) FROM bet_refs WHERE table_id = ?", (table_id,)).fetchone()[0]
        (chained,) = self.db.execute(
            "SELECT COALESCE(SUM(json_array_length(data, '$.refs')), 0) FROM records"
            " WHERE kind = 'meta' AND name = 'bet_refs' AND table_id = ?", (table_id,)).fetchone()
        (batched,) = self.db.execute(
            "SELECT COUNT(*) FROM records, json_each(records.data, '$.bets') AS e"
            " WHERE kind = 'input' AND name = 'place_bets' AND table_id = ?"
            " AND json_extract(e.value, '$[0]') IS NOT NULL",
            (table_id,)).fetchone()
        return indexed, chained + batched

    # --- the file -------------------------------------------------------------------------

    def copy_to(self, dest: str | Path) -> None:
        """The journal as of one committed transaction, into the empty file
        ``dest``: SQLite's online backup in one step (one read transaction),
        as one self-contained file (no ``-wal`` of its own)."""
        out = sqlite3.connect(dest, isolation_level=None)
        try:
            self.db.backup(out)  # pages=-1: every page in one step
            out.execute("PRAGMA journal_mode=DELETE")
        finally:
            out.close()

    def close(self) -> None:
        if self._reader is not None:
            self._reader.close()  # (its connection, then its private copy)
        else:
            self.db.close()

    def cleanup(self) -> None:
        """What a reader left (its private copy), without closing the connection."""
        if self._reader is not None:
            self._reader.cleanup()

    def abandon(self) -> None:
        """Close without changing a byte (a refused start): SQLite's last
        connection would fold the ``-wal`` file into the journal as it
        closes (a damaged one: its good part, the rest deleted). A read-only
        connection held across the close stops that, and itself never
        checkpoints."""
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

    def put_back(self, created: bool, was_empty: bool) -> None:
        """(Closed) the file as it was before the open: none, or empty."""
        if created:
            for side in ("", "-wal", "-shm"):
                Path(self.path + side).unlink(missing_ok=True)
        elif was_empty:
            os.truncate(self.path, 0)
            for side in ("-wal", "-shm"):
                Path(self.path + side).unlink(missing_ok=True)


class _as_bytes:
    """Text read as the bytes stored (what the chain covers), for one statement."""

    __slots__ = ("db", "saved")

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.saved = self.db.text_factory
        self.db.text_factory = bytes

    def __exit__(self, *exc: object) -> None:
        self.db.text_factory = self.saved
