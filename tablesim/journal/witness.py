"""The journal's mark: how far it got, kept outside the SQLite file, beside the key.

A journal file cannot tell that it lost its end: a lost ``-wal`` file (every
transaction since the last checkpoint was only there), a bit flipped in it
(SQLite drops the frames from the bad one on), an older copy put back, a
deleted or emptied file. Each leaves a journal that verifies, only shorter,
or none at all. The mark says how far it got: the journal's first link
(which history it is), its last committed record's number and link, under
the table's key. A table refuses a journal behind its mark, or a missing
one where a mark says there was one.

One mark file per journal file: ``<key file>.<id>.mark``, the id a hash of
the journal's real path. It holds two fixed-size slots written in turn
(``pwrite`` + ``fdatasync``, no rename): a write torn by a power loss spoils
at most the slot being written, and the other still holds the mark before
it.

Each transaction's mark is written and flushed while SQLite commits it (on
a thread of its own: the two flushes overlap instead of adding up), and
the action is answered only once both are on disk. So a mark names two
points: the transaction being committed (``seq``, ``link``) and the last
one committed before it (``prev``). A journal must reach ``seq``, or end
exactly at ``prev``: that transaction was never answered (the table died
while committing it). A journal may also be ahead of its mark.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from tablecore.errors import InputError
from tablecore.threadnames import name_this_thread

SLOT = 512
MAGIC = "tablesim-mark 2"


def mark_path(key_path: Path, journal: str) -> Path:
    ident = hashlib.sha256(os.path.realpath(journal).encode()).hexdigest()[:16]
    return key_path.with_name(f"{key_path.name}.{ident}.mark")


@dataclass(frozen=True)
class Reach:
    """How far a journal got: its first link, the record and link of the
    transaction being committed, and of the last one committed before it."""

    first: str
    seq: int
    link: str
    prev_seq: int = 0
    prev_link: str = ""

    def _text(self) -> str:
        return f"{self.first} {self.prev_seq} {self.prev_link or '-'} {self.seq} {self.link}"


def _mac(key: bytes, where: str, reach: Reach) -> str:
    return hmac.new(key, f"mark\x1f{where}\x1f{reach._text()}".encode(), hashlib.sha256).hexdigest()


def _slot(key: bytes, where: str, reach: Reach) -> bytes:
    line = f"{MAGIC} {reach._text()} {_mac(key, where, reach)}"
    return line.encode("ascii").ljust(SLOT - 1, b" ") + b"\n"


def _parse(key: bytes, where: str, raw: bytes) -> Reach | None:
    try:
        magic1, magic2, first, prev_seq, prev_link, seq, link, mac = raw.decode("ascii").split()
        reach = Reach(first, int(seq), link, int(prev_seq), "" if prev_link == "-" else prev_link)
    except (UnicodeDecodeError, ValueError):
        return None
    if f"{magic1} {magic2}" != MAGIC or not hmac.compare_digest(_mac(key, where, reach), mac):
        return None
    return reach


def read_mark(path: Path, key: bytes) -> Reach | None:
    """The furthest slot of the mark file that verifies; None if there is no
    file; InputError if there is one and no slot verifies (damaged, or
    another key's)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise InputError(f"cannot read the journal's mark: {exc.strerror}", where=str(path)) from None
    where = path.name.rsplit(".", 2)[-2]
    found = [r for r in (_parse(key, where, data[i:i + SLOT]) for i in (0, SLOT)) if r is not None]
    if not found:
        raise InputError("the journal's mark does not verify under the table's key (damaged, or another key's): "
                         "the table cannot tell how far its journal got", where=str(path))
    return max(found, key=lambda r: r.seq)


def marks_of(key_path: Path) -> list[Path]:
    """Every mark file beside the key (one per journal file it keyed)."""
    return sorted(key_path.parent.glob(f"{key_path.name}.*.mark"))


class Mark:
    """The mark of one journal file, open for advancing (the writer's)."""

    def __init__(self, path: Path, key: bytes, reach: Reach, *, durable: bool = True) -> None:
        self.path, self.key, self.durable = path, key, durable
        self.where = path.name.rsplit(".", 2)[-2]
        self.first = reach.first
        created = not path.exists()
        try:
            self.fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:
            raise InputError(f"cannot write the journal's mark beside the key: {exc.strerror}",
                             where=str(path)) from None
        self.next = 0
        self.durable_at = (reach.seq, reach.link)  # the last transaction known committed
        self._pending: Future | None = None
        self._writer: ThreadPoolExecutor | None = None
        try:
            for _ in range(2):  # both slots: a new or older file holds only this
                self._write(reach.seq, reach.link)
            if created and durable:
                _sync_folder(path.parent)
        except OSError as exc:
            os.close(self.fd)
            raise InputError(f"cannot write the journal's mark beside the key: {exc.strerror}",
                             where=str(path)) from None

    def _write(self, seq: int, link: str) -> None:
        """Over the older slot: ``seq`` being committed, after ``durable_at``."""
        reach = Reach(self.first, seq, link, *self.durable_at)
        os.pwrite(self.fd, _slot(self.key, self.where, reach), self.next * SLOT)
        if self.durable:
            os.fdatasync(self.fd)
        self.next ^= 1

    def _settle(self) -> None:
        seq, link = self.durable_at
        reach = Reach(self.first, seq, link, seq, link)
        for _ in range(2):  # both slots (each flushed before the next): the in-flight one reads as the newer
            os.pwrite(self.fd, _slot(self.key, self.where, reach), self.next * SLOT)
            if self.durable:
                os.fdatasync(self.fd)
            self.next ^= 1

    def begin(self, seq: int, link: str) -> None:
        """A transaction ending at ``seq`` is about to commit: its mark is
        written meanwhile (:meth:`finish` waits for it)."""
        if self._writer is None:
            self._writer = ThreadPoolExecutor(1, thread_name_prefix="journal-mark", initializer=name_this_thread)
        self._pending = self._writer.submit(self._write, seq, link)

    def finish(self, committed: tuple[int, str] | None) -> None:
        """Wait for the mark begun; ``committed``: the transaction is on disk
        (None: it was rolled back). Raises what the mark's write raised."""
        pending, self._pending = self._pending, None
        if committed is not None:
            self.durable_at = committed
        if pending is not None:
            pending.result()

    def close(self) -> None:
        """Stop advancing. A clean close leaves the mark settled: nothing in
        flight, the last transaction committed. Without it the mark would still
        say its last transaction was being committed, and a copy of the journal
        taken just before that transaction, put back after a clean stop, would
        pass for a table that died while committing it."""
        if self._writer is not None:
            self._writer.shutdown(wait=True)
            self._writer = None
        if self.fd >= 0:
            try:
                self._settle()
            except OSError:
                pass  # (the mark stays as its last write left it: behind the journal, which is allowed)
            os.close(self.fd)
            self.fd = -1


def _sync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
