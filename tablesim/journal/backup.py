"""A journal's backup, taken while a table may be writing it.

A journal in WAL mode is two files: the newest committed transactions live
in ``-wal`` until SQLite checkpoints them, so copying the main file alone
(``cp``) loses them, and copying both while the table writes can tear
either. The copy is made with SQLite's online backup API instead, through
a read-only connection (``sqlite/readonly.py``: it sees the ``-wal`` file, the
live writer's or the one a killed table left): one step, under one read
transaction, so the copy is the journal as of one committed transaction.

The copy is written beside DEST under a temporary name, as a single file
(rollback journal mode, no ``-wal`` of its own), flushed, then checked as
``tablesim audit verify`` checks a journal (SQLite's integrity check, the
keyed chain, its head and checkpoint) and held against the source: the
source must hold the copy's last record with the same link. Only then is it
renamed to DEST, so DEST is either a verified copy or untouched.
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from tablecore.errors import InputError
from tablesim.journal.audit import AuditResult, verify_file
from tablesim.journal.lock import writer_pid
from tablesim.journal.journal import Journal


@dataclass(frozen=True)
class Backup:
    dest: Path
    audit: AuditResult
    seq: int  # the copy's last record
    link: str  # and its link

    def describe(self) -> str:
        return f"{self.audit.describe()}; last record {self.seq} (link {self.link[:16]})"


def _check_dest(source: Path, dest: Path, replace: bool) -> None:
    if dest.is_dir():
        raise InputError("a folder: name the backup file", where=str(dest))
    if not dest.parent.is_dir():
        raise InputError("no such folder", where=str(dest.parent))
    if dest.exists():
        if dest.resolve() == source.resolve():
            raise InputError("the backup would replace the journal it copies", where=str(dest))
        if not replace:
            raise InputError("already exists: --force replaces it", where=str(dest))
        pid = writer_pid(dest)
        if pid is not None:
            raise InputError(f"a table (pid {pid}) writes this journal: stop it before replacing it", where=str(dest))


def _copy(source: Path, tmp: Path) -> None:
    """The online backup of ``source`` (its -wal included) into the empty file ``tmp``."""
    journal = Journal(source, readonly=True)  # (InputError: unreadable, or no journal)
    try:
        journal.store.copy_to(tmp)
    except journal.errors as exc:
        raise InputError(f"cannot back up the journal: {exc}", where=str(source)) from None
    finally:
        journal.close()
    with open(tmp, "rb+") as fh:
        os.fsync(fh.fileno())


def _last(path: Path) -> tuple[int, str]:
    journal = Journal(path, readonly=True)
    try:
        return journal.seq, (journal.last_hash if journal.seq else "")
    finally:
        journal.close()


def _source_link(source: Path, seq: int) -> str | None:
    journal = Journal(source, readonly=True)
    try:
        return journal.store.link(seq)
    finally:
        journal.close()


def _verified(source: Path, tmp: Path, key: bytes | None) -> tuple[AuditResult, int, str]:
    audit = verify_file(tmp, key)
    if not audit.ok:
        raise InputError(f"the copy does not verify ({audit.describe()}); nothing was kept "
                         "(tablesim audit verify --journal on the journal itself says more)", where=str(source))
    seq, link = _last(tmp)
    if seq and _source_link(source, seq) != link:
        raise InputError(f"the copy's last record {seq} is not the journal's; nothing was kept", where=str(source))
    return audit, seq, link


def _sync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def backup_journal(source: str | Path, dest: str | Path, *, key: bytes | None = None,
                   replace: bool = False) -> Backup:
    """Copy the journal ``source`` to ``dest`` (verified); ``replace``: an
    existing ``dest`` (not one a table writes) is replaced, its stale
    ``-wal``/``-shm`` files removed so they are never applied to the copy."""
    source, dest = Path(source), Path(dest)
    _check_dest(source, dest, replace)
    tmp = dest.with_name(f".{dest.name}.partial-{secrets.token_hex(4)}")
    try:
        os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))  # owner-only, as the journal
        _copy(source, tmp)
        audit, seq, link = _verified(source, tmp, key)
        for side in ("-wal", "-shm"):
            Path(f"{dest}{side}").unlink(missing_ok=True)
        os.replace(tmp, dest)
        _sync_folder(dest.parent)
    except OSError as exc:
        raise InputError(f"cannot write the backup: {exc.strerror or exc}", where=str(dest)) from None
    finally:
        tmp.unlink(missing_ok=True)
    return Backup(dest, audit, seq, link)
