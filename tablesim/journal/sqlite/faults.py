"""Which SQLite failures are the storage failing (a full disk, an I/O error,
a file made read-only) rather than anything else."""

from __future__ import annotations

import sqlite3


def storage_problem(exc: BaseException) -> str | None:
    """The storage failure an exception stands for, or None for anything else."""
    text = str(exc).lower()
    if isinstance(exc, sqlite3.OperationalError) and ("full" in text or "disk i/o" in text or "readonly" in text):
        return text
    if isinstance(exc, sqlite3.DatabaseError) and "disk i/o" in text:
        return text
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    return None
