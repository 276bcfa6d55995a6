"""An append-only, keyed-chain journal over a store (SQLite: ``sqlite/``).

Each public table action is one transaction: its input record and every
outcome it causes commit together, or (refused, crashed) not at all. So the
journal never holds half an action, and a bet the table acknowledged is on
disk before the acknowledgement returns.

Each record carries its predecessor's link and its own: an HMAC-SHA256 of
both and every field under the table's key (``chain.py``), so editing,
deleting, reordering, inserting or re-chaining records without the key
breaks the chain at the first record touched. The head names the last
record and the checkpoint the last record verified before the open round
began, each with a MAC; the journal's first keyed record (kind ``meta``,
name ``chain``) seals any legacy records before it, and each round's first
record (``meta``/``round``) names the rule profile and the count and last
link of the round closed before it (``tip.py`` makes each row).

One process writes a journal (``lock.py``); readers open it read-only. A
full disk or an I/O error refuses the action with one line
(:class:`StorageError`) and changes nothing.
"""

from __future__ import annotations

import os
import secrets
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

from tablecore.errors import InputError
from tablesim.journal.canonical import canonical
from tablesim.journal.chain import CHAIN_KIND, CHAIN_NAME, ROUND_KIND, ROUND_NAME, seal_mac
from tablesim.journal.clock import now_stamp
from tablesim.journal.keys import default_key_path, key_for
from tablesim.journal.lock import WriterLock
from tablesim.journal.reading import Reading
from tablesim.journal.record import Record
from tablesim.journal.sqlite import SqliteStore
from tablesim.journal.storage import StorageError, Store
from tablesim.journal.tip import Tip
from tablesim.journal.transactions import Nested, Savepoint

__all__ = ["Journal", "Record", "StorageError", "open_journal"]

#: the free space an action needs before it starts (bytes): below it the
#: action is refused before anything changes, instead of failing half-way
RESERVE_BYTES = 1 << 20


class Journal(Reading):
    """A table's journal.

    Written (the default): the process takes the journal's lock, creates the
    file if needed, and links every record under ``key`` (default: the key
    file ``key_file``, else ``<data dir>/<table id>.key``, created on first
    use while the journal has no keyed record).

    ``readonly``: open an existing journal for reading (audit, history):
    nothing is created or changed, no lock is taken, no file is left, and a
    file that is not a journal is refused.

    ``store``: the store's class (:class:`tablesim.journal.storage.Store`).
    """

    def __init__(self, path: str | Path, *, durable: bool = True, readonly: bool = False,
                 key: bytes | None = None, key_file: str | Path | None = None, store: type = SqliteStore) -> None:
        self.path = str(path)
        self.readonly = readonly
        self.durable = durable
        #: how far the journal got, kept beside the key (``witness.py``): set by the table's start
        self.mark: Any = None
        #: the file was made by this open, or was empty (a refused start puts it back as it was)
        self.created = self.was_empty = False
        self._key, self._key_file = key, (None if key_file is None else Path(key_file))
        self._lock: WriterLock | None = None
        self.store: Store | None = None
        self.failed: str | None = None  # a write failed after the table acted: no more actions
        self.profile: dict[str, str] | None = None  # stamped on each round's first record
        self.profile_rules: dict[str, Any] | None = None  # and its rules, published beside the stamp
        self.reserve = RESERVE_BYTES
        self._space_dir: str | None = None  # the folder the file lies in (a symlink's target's), found once
        try:
            self.store = self._open(store)
            self.fresh = self.store.fresh  # (no tables yet: made with the first record)
            self.tip = self._load_tip()
        except store.errors as exc:
            self._release()
            raise InputError(f"cannot open journal: {exc}", where=self.path) from None
        except OSError as exc:  # (its folder cannot be made: a full or read-only disk)
            self._release()
            raise InputError(f"cannot open journal: {exc.strerror or exc}", where=self.path) from None
        except BaseException:
            self._release()
            raise
        self.errors = self.store.errors
        self._depth = 0
        self._touched = 0
        self._head_of: str | None = None  # the table whose record the head must name at the commit
        #: a group transaction's records (and moved checkpoint), written at its commit; None outside a group
        self._rows: list[tuple] | None = None
        self._checkpoint_row: tuple | None = None
        self._nested = Nested(self)
        #: called after each commit that wrote records (no arguments, on the committing
        #: thread; each must return at once and never raise): the studio's outbox wakes
        #: there. Woken by the table's events instead, it looked before the commit,
        #: found nothing new and slept its idle wait, so a round's records reached the
        #: bus 100-250 ms after they were committed.
        self.on_commit: list[Callable[[], None]] = []
        #: told each transaction's seconds, begin to durable commit (a table's metrics), or None
        self.commit_timer: Callable[[float], None] | None = None

    def _open(self, store: type) -> Store:
        if self.readonly:
            return store.reader(self.path)
        if self.path == ":memory:":
            self._key = self._key or secrets.token_bytes(32)  # nothing to verify after the process
            return store.writer(self.path, durable=self.durable)
        self._lock_file()
        opened = store.writer(self.path, durable=self.durable)
        self._lock.cover_journal()  # (a new file: made by the store just now)
        return opened

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

    def _load_tip(self) -> Tip:
        """Where the chain ends, read from the store."""
        store = self.store
        last = None if store.fresh else next(iter(store.select(newest=True, limit=1)), None)
        if last is None:
            return Tip()
        keyed = self.checkpoint() is not None or next(
            iter(store.select(kind=CHAIN_KIND, names=(CHAIN_NAME,), limit=1)), None) is not None
        in_round = next(iter(store.select(in_round=True, newest=True, limit=1)), None)
        tip = Tip(last[0], last[9], keyed, in_round[3] if in_round else "")
        if tip.round_id:
            end = next(iter(store.select(round_id=tip.round_id, newest=True, limit=1)), None)
            # (a damaged index may find none of the round's records: the
            # start-up check refuses such a file before anything is written)
            if end is not None:
                tip.round_records, tip.round_last, tip.round_link = store.count(round_id=tip.round_id), end[0], end[9]
        return tip

    # --- where the chain ends ------------------------------------------------------

    @property
    def seq(self) -> int:
        return self.tip.seq

    @property
    def last_hash(self) -> str:
        return self.tip.link

    @property
    def keyed(self) -> bool:
        return self.tip.keyed

    @property
    def round_id(self) -> str:
        return self.tip.round_id

    # --- closing ---------------------------------------------------------------------

    def _release(self) -> None:
        if self.store is not None:
            self.store.cleanup()
        if self._lock is not None:
            self._lock.release()

    def abandon(self) -> None:
        """Close without changing a byte (a refused start); a file this open
        made (or found empty) is put back as it was."""
        if self.path == ":memory:" or self.readonly or self.created or self.was_empty:
            self.close()
            if self.seq == 0 and self.path != ":memory:":
                self.store.put_back(self.created, self.was_empty)
            return
        try:
            if self.mark is not None:
                self.mark.close()
            self.store.abandon()
        finally:
            if self._lock is not None:
                self._lock.release()

    def close(self) -> None:
        try:
            if self.mark is not None:
                self.mark.close()
            self.store.close()
        finally:
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
        chained as they come, and written in one call at the commit, so a
        savepoint is a mark in that list instead of two store calls.
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
        saved = self.tip.saved()
        began = time.perf_counter()
        self._touched = 0
        try:
            self.store.begin()
        except self.errors as exc:
            raise self._storage(exc, retry=True) from None
        self._depth = 1
        marking = False
        self._head_of = None
        self._rows = [] if group else None
        self._checkpoint_row = None
        try:
            self.store.ensure_schema()
            yield
            self._flush()
            self._write_head()
            marking = self.mark is not None and self.tip.seq != saved[0]
            if marking:
                self.mark.begin(self.seq, self.last_hash)  # flushed while the store commits
            self.store.commit()
        except BaseException as exc:
            if marking:
                self._finish_mark(None)
            self.store.rollback()
            self.tip.restore(saved)
            self._head_of = None
            if self.store.storage_problem(exc) is None or isinstance(exc, StorageError):
                raise
            raise self._storage(exc, retry=self._touched <= 1) from None
        finally:
            self._depth = 0
            self._rows = self._checkpoint_row = None
        if self.commit_timer is not None:
            self.commit_timer(time.perf_counter() - began)
        if marking:
            self._finish_mark((self.seq, self.last_hash))
        if self.on_commit and self.tip.seq != saved[0]:
            for hook in self.on_commit:
                hook()

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
            self.store.add_many(self._rows)
        if self._checkpoint_row is not None:
            self.store.put_checkpoint(self._checkpoint_row)

    def _storage(self, exc: BaseException, *, retry: bool) -> StorageError:
        why = self.store.storage_problem(exc) or str(exc)
        if not retry:
            self.failed = why
        return StorageError(self.path, why, retry=retry)

    def _check_space(self) -> None:
        if self.path == ":memory:" or self.reserve <= 0:
            return
        try:
            # (a symlink's target's disk, resolved once: the file open is the one it was then, and
            # resolving it again took three lstat a transaction, more than the statvfs itself)
            if self._space_dir is None:
                self._space_dir = os.path.dirname(os.path.realpath(self.path))
            st = os.statvfs(self._space_dir)
        except OSError:
            return
        if st.f_bavail * st.f_frsize < self.reserve:
            raise StorageError(self.path, f"the disk is full (less than {self.reserve // 1024} KiB free)")

    def savepoint(self) -> Savepoint:
        """One action inside an open transaction (group commit: several table
        actions in one transaction, one fsync). If the action raises, the
        records it appended are undone and the transaction goes on without
        them; otherwise they commit with the rest of the transaction."""
        if not self._depth:
            raise RuntimeError("a savepoint needs an open transaction")
        return Savepoint(self)

    def append(self, table_id: str, round_id: str, kind: str, name: str, data: dict[str, Any], actor: str = "",
               text: str | None = None) -> Record:
        """``text``: ``data``'s canonical JSON when the caller made it already (a group of
        bets': ``betbatch.record_text``), written and hashed as it is."""
        if self._depth:  # inside the action's transaction (the usual case): no context of its own
            return self._append(table_id, round_id, kind, name, data, actor, text)
        with self.transaction():
            return self._append(table_id, round_id, kind, name, data, actor, text)

    def _append(self, table_id: str, round_id: str, kind: str, name: str, data: dict[str, Any], actor: str,
                text: str | None = None) -> Record:
        self._touched += 1
        if not self.tip.keyed:
            self._seal(table_id)
        if round_id and round_id != self.tip.round_id and kind != "meta":
            self._start_round(table_id, round_id)
        return self._insert(table_id, round_id, kind, name, data, actor, text)

    def seal(self, table_id: str) -> None:
        """Begin the keyed chain now (a new or legacy journal), if not begun."""
        if not self.keyed:
            with self.transaction():
                self._seal(table_id)

    def _seal(self, table_id: str) -> None:
        self._insert(table_id, "", CHAIN_KIND, CHAIN_NAME, self.tip.chain_data(self.key(table_id)), "journal")

    def _start_round(self, table_id: str, round_id: str) -> None:
        """The round's first record: its profile, and the round closed before it.
        The checkpoint moves to the record before it: the open round is never
        behind the checkpoint, so a restart always verifies what it replays."""
        tip = self.tip
        row = (tip.seq, tip.link, seal_mac(self.key(table_id), "checkpoint", tip.seq, tip.link))
        if self._rows is not None:
            self._checkpoint_row = row  # written at the group's commit, after its records
        else:
            self.store.put_checkpoint(row)
        # (the round's seal: a MAC under the chain's key, so only the journal's holder can
        # make it, and the same journal always gives the same one)
        seal = seal_mac(self.key(table_id), "round seal", tip.seq + 1, f"{table_id}/{round_id}")
        self._insert(table_id, round_id, ROUND_KIND, ROUND_NAME, tip.round_data(self.profile, seal, self.profile_rules), "journal")

    def _insert(self, table_id: str, round_id: str, kind: str, name: str, data: dict[str, Any], actor: str,
                text: str | None = None) -> Record:
        tip = self.tip
        row = tip.row(self.key(table_id) if tip.keyed else None, now_stamp(), table_id, round_id, kind, name, actor,
                      canonical(data) if text is None else text)
        if self._rows is not None:
            self._rows.append(row)  # a group: written at its commit
        else:
            self.store.add(row)
        self._head_of = table_id  # the head is written once, at the commit
        return Record._of(row, data)

    def _write_head(self) -> None:
        """The head names the last record under the key, so cutting records off
        the end and naming the new last record in the head does not verify.
        Written once per transaction (the same row for every record in it:
        group commit writes thousands)."""
        table_id, self._head_of = self._head_of, None
        if table_id is None:
            return
        tip = self.tip
        mac = seal_mac(self.key(table_id), "head", tip.seq, tip.link) if tip.keyed else None
        self.store.put_head(tip.seq, tip.link, mac)


def open_journal(path: str | Path | None, *, durable: bool = True, key_file: str | Path | None = None) -> Journal | None:
    """``None`` or ``"none"``: no journal (simulations only)."""
    if path is None or str(path) == "none":
        return None
    if str(path) in (":memory:", "memory"):
        return Journal(":memory:", durable=False)
    return Journal(path, durable=durable, key_file=key_file)
