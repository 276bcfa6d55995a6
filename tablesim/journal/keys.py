"""The per-table key of the journal's chain: a file of 64 hex digits, mode 0600.

The key never enters the journal: whoever holds only the journal file cannot
compute a link, so no edit, deletion, insertion or re-chaining verifies. A
table configuration names its key file (``[table] key_file``); without one,
and for mock tables, the key is ``<data dir>/<table id>.key``, created on
first use. A journal names its key by a short id (a hash of the key), so a
wrong key is told apart from a tampered record.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
from pathlib import Path

from tablecore.errors import InputError
from tablecore.secretfile import read_owner_only
from tablesim.journal.location import data_dir

TABLE_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")


def default_key_path(table_id: str) -> Path:
    if not TABLE_ID.fullmatch(table_id):
        raise InputError(f"table id {table_id!r} must be 1 to 32 of A-Z a-z 0-9 _ -")
    return data_dir() / f"{table_id}.key"


def key_id(key: bytes) -> str:
    return hashlib.sha256(b"tablesim journal key\x00" + key).hexdigest()[:16]


def load_key(path: str | Path) -> bytes:
    """Read a key file; refused (one line) if missing, unreadable, readable
    by others or not a key."""
    text = read_owner_only(path, "the key file", encoding="ascii").strip()
    if not re.fullmatch(r"[0-9a-f]{64}", text):
        raise InputError("not a tablesim key (64 hex digits)", where=str(path))
    return bytes.fromhex(text)


def create_key(path: str | Path) -> bytes:
    """A new random key in a new file (mode 0600); never overwrites one."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create the key file's folder: {exc.strerror}", where=str(path.parent)) from None
    key = secrets.token_bytes(32)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return load_key(path)
    except OSError as exc:
        raise InputError(f"cannot create the key file: {exc.strerror}", where=str(path)) from None
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(key.hex() + "\n")
            fh.flush()
            os.fsync(fh.fileno())
    except OSError as exc:
        # (a full disk) an empty or partial key file would stop every later
        # start as "not a tablesim key": it goes, and nothing was keyed with it
        path.unlink(missing_ok=True)
        raise InputError(f"cannot write the key file: {exc.strerror}", where=str(path)) from None
    return key


def key_for(path: str | Path, *, create: bool) -> bytes:
    path = Path(path)
    if create and not path.exists():
        return create_key(path)
    return load_key(path)
