"""One writer per journal: an exclusive OS lock held for as long as a table runs.

The writer takes ``flock(LOCK_EX | LOCK_NB)`` on ``<journal>.lock`` beside
the journal and writes its pid into it, and takes the same lock on the
journal file itself: a lock file can be deleted under a live table (and a
second process would lock a new one), the journal file it writes cannot be
replaced without the table losing its journal. (``flock`` does not touch
SQLite's own ``fcntl`` locks on the file: on Linux the two kinds are
independent; the descriptor is closed only after SQLite closed its own.)
The OS drops the locks when the process dies, however it dies, so a crash
never leaves a stale lock; the lock file stays (unlocked, it means nothing).

``flock`` locks belong to an open file, not to a process, so two opens in
one process would refuse each other. A process holds one lock per journal
and shares it between its own ``Journal`` objects (tests drop a table
without closing it, as a power loss would, and build a new one on the same
file): the promise is one writing *process* per journal.

Readers never take the lock; :func:`writer_pid` tells them whether a writer
is live (from ``/proc/locks`` where there is one) without disturbing it.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from tablecore.errors import InputError

#: realpath of the lock file -> [fd, users, journal fd] for the locks this process holds
_HELD: dict[str, list[int]] = {}


class JournalBusy(InputError):
    """Another process writes to this journal."""


def lock_path(journal: str | Path) -> Path:
    """Beside the journal's real file: a journal reached through a symbolic
    link (to the file or to a folder) takes the same lock as by its own name."""
    return Path(f"{os.path.realpath(journal)}.lock")


class WriterLock:
    def __init__(self, journal: str | Path) -> None:
        self.path = os.path.realpath(lock_path(journal))
        self.journal = str(journal)
        held = _HELD.get(self.path)
        if held is not None:
            held[1] += 1
            self.released = False
            return
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise InputError(f"cannot open the journal's lock file: {exc.strerror}", where=self.path) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = _read_pid(fd)
            os.close(fd)
            who = f"process {pid}" if pid else "another process"
            raise JournalBusy(f"in use by {who}: one table at a time writes a journal", where=self.journal) from None
        except OSError as exc:
            os.close(fd)
            raise InputError(f"cannot lock the journal: {exc.strerror}", where=self.journal) from None
        links = _links(self.journal)
        if links > 1:
            # Another name of the same file would take another lock: a second
            # writer could come in through it.
            os.close(fd)
            raise InputError(f"the journal file has {links} hard links: one table at a time writes a journal, "
                             "and a journal reached by two names could have two; remove the other links",
                             where=self.journal)
        # (a journal not made yet is locked once SQLite made it: ``cover_journal``)
        own = _lock_journal(self.journal, fd) if os.path.exists(os.path.realpath(self.journal)) else None
        try:
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
        except OSError as exc:  # a full disk: no table can journal here now
            os.close(fd)
            if own is not None:
                os.close(own)
            raise InputError(f"cannot write the journal's lock file: {exc.strerror}", where=self.path) from None
        _HELD[self.path] = [fd, 1, own]
        self.released = False

    def cover_journal(self) -> None:
        """Lock the journal file too, if it was made after the lock was taken."""
        held = _HELD.get(self.path)
        if held is not None and held[2] is None and os.path.exists(os.path.realpath(self.journal)):
            held[2] = _lock_journal(self.journal, None)

    def release(self) -> None:
        if self.released:
            return
        self.released = True
        held = _HELD.get(self.path)
        if held is None:
            return
        held[1] -= 1
        if held[1] == 0:
            del _HELD[self.path]
            if held[2] is not None:
                os.close(held[2])
            os.close(held[0])  # closing the last descriptor drops the flock


def _lock_journal(journal: str, lock_fd: int | None) -> int:
    """``flock`` on the journal file itself; its descriptor, or JournalBusy
    naming the holder (``lock_fd``, the lock file's, is closed then)."""
    try:
        own = os.open(os.path.realpath(journal), os.O_RDWR)
    except OSError as exc:
        if lock_fd is not None:
            os.close(lock_fd)
        raise InputError(f"cannot open the journal: {exc.strerror}", where=journal) from None
    try:
        fcntl.flock(own, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        os.close(own)
        if lock_fd is not None:
            os.close(lock_fd)
        if isinstance(exc, BlockingIOError):
            pid = writer_pid(journal)
            who = f"process {pid}" if pid and pid > 0 else "another process"
            raise JournalBusy(f"in use by {who}: one table at a time writes a journal (its lock file "
                              "was replaced)", where=journal) from None
        raise InputError(f"cannot lock the journal: {exc.strerror}", where=journal) from None
    return own


def _links(journal: str) -> int:
    try:
        return os.stat(journal).st_nlink
    except OSError:
        return 1  # (a new journal: created by this process, under its lock)


def _read_pid(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode().strip()
        return int(text) if text.isdigit() else None
    except (OSError, UnicodeDecodeError):
        return None


def writer_pid(journal: str | Path) -> int | None:
    """The pid of the live writer of ``journal``, or None when nobody writes it."""
    path = lock_path(journal)
    if os.path.realpath(path) in _HELD:
        return os.getpid()
    devs = set()
    for each in (path, Path(os.path.realpath(journal))):  # the lock file, and the journal itself
        try:
            st = os.stat(each)
        except OSError:
            continue
        devs.add(f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}")
    if not devs:
        return None
    try:
        with open("/proc/locks") as fh:
            text = fh.read()
    except OSError:
        return _probe(path)
    for line in text.splitlines():
        parts = line.split()
        if "->" in parts:  # a waiter's line
            continue
        if len(parts) >= 6 and parts[1] == "FLOCK" and parts[5].lower() in devs:
            return int(parts[4]) if parts[4].isdigit() else -1
    return None


def _probe(path: Path) -> int | None:
    """Without /proc/locks: try the lock and let it go at once."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return _read_pid(fd) or -1
    finally:
        os.close(fd)
    return None
