"""The journal's store in SQLite (``store.py``): the one place the journal's
file is opened as a database."""

from tablesim.journal.sqlite.store import SqliteStore

__all__ = ["SqliteStore"]
