"""What the journal needs of the store that holds its records.

The journal (``journal.py``) owns the chain, the key, the mark and what a
transaction means for the table; the store owns the file. SQLite is the
store (``sqlite/``); another store provides what :class:`Store` lists, with
the same promises: a transaction is all or nothing and durable at its
commit; a savepoint inside it undoes one action; records come back byte
for byte as written, in ``seq`` order; and a reader never changes the file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Iterator, Protocol, Sequence

from tablecore.errors import IllegalAction
from tablecore.wording import CORE_WORDS


class StorageError(IllegalAction):
    """The journal cannot record the action (full disk, I/O error): refused, nothing changed."""

    def __init__(self, path: str, why: str, *, retry: bool = True) -> None:
        # (the English words are the catalog's: "journal {path}: {why}: nothing was changed; ...")
        super().__init__("action", CORE_WORDS("refusal.journal_retry" if retry else "refusal.journal_stopped",
                                              path=path, why=why))

    def __str__(self) -> str:
        return f"refused: {self.reason}"


class Store(Protocol):
    """A journal's file. A row is the chain's columns (``chain.COLUMNS``):
    seq, ts, table_id, round_id, kind, name, actor, data (canonical JSON
    text), prev_hash, hash.

    Opened by the store's own class methods: ``writer(path, durable=)`` (one
    process, under the journal's lock), ``reader(path)`` (a snapshot, no
    file left behind, InputError if it is no journal) and ``follower(path)``
    (read-only, beside a live writer: every commit shows)."""

    path: str
    #: a new file: nothing in it yet
    fresh: bool
    #: what its calls raise when the file cannot be read or written
    errors: tuple[type[BaseException], ...]

    def storage_problem(self, exc: BaseException) -> str | None:
        """The storage failure ``exc`` stands for (a full disk, an I/O error), or None."""

    # transactions: one at a time, savepoints inside
    def begin(self) -> None: ...
    def commit(self) -> None: ...
    def rollback(self) -> None: ...
    def savepoint(self) -> None: ...
    def release(self) -> None: ...
    def undo_savepoint(self) -> None: ...

    def ensure_schema(self) -> None:
        """(In a transaction) make what the first record needs; undone by a rollback."""

    # writing, inside a transaction
    def add(self, row: tuple) -> None: ...
    def add_many(self, rows: list[tuple]) -> None: ...
    def put_checkpoint(self, row: tuple[int, str, str]) -> None: ...
    def put_head(self, seq: int, link: str, mac: str | None) -> None: ...

    # the seals: (seq, link) of the head, (seq, link, mac) of the checkpoint
    def head(self) -> tuple[int, str] | None: ...
    def checkpoint(self) -> tuple | None: ...

    def seal_rows(self, which: str) -> list[tuple] | None:
        """The audit's view of ``head`` or ``checkpoint``: every row as stored, text as bytes."""

    # reading
    def select(self, *, after: int | None = None, upto: int | None = None, kind: str | None = None,
               names: Sequence[str] = (), table_id: str | None = None, round_id: str | None = None,
               in_round: bool = False, newest: bool = False, limit: int | None = None) -> Iterable[tuple]:
        """Rows matching every part given (``after``/``upto``: seq bounds;
        ``in_round``: with a round id), by seq or, ``newest``, latest first."""

    def count(self, *, kind: str | None = None, names: Sequence[str] = (), table_id: str | None = None,
              round_id: str | None = None) -> int: ...
    def link(self, seq: int) -> str | None: ...
    def round_ids(self) -> list[str]: ...

    def raw_rows(self, after: int = 0) -> Iterator[tuple]:
        """The chain rows the audit walks: every row after ``after`` as
        stored, text as bytes (a value stored as anything but text reads as
        other bytes), in storage order."""

    def raw_rounds(self, round_ids: list[str]) -> list[tuple]: ...

    # the storage's own soundness, each one line or None
    def damage(self) -> str | None: ...
    def schema_problem(self) -> str | None: ...

    # the bet ref index (``refs.py``), kept in the transaction of its records
    def ref_entries(self, table_id: str, refs: list[str]) -> Iterator[tuple]: ...
    def add_refs(self, entries: list[tuple]) -> None: ...
    def ref_counts(self, table_id: str) -> tuple[int, int]: ...

    # the file
    def copy_to(self, dest: str | Path) -> None:
        """The journal as of one commit, into the empty file ``dest`` (a backup)."""

    def close(self) -> None: ...
    def cleanup(self) -> None: ...

    def abandon(self) -> None:
        """Close without changing a byte (a refused start)."""

    def put_back(self, created: bool, was_empty: bool) -> None:
        """(Closed) the file as it was before the open: none, or empty."""
