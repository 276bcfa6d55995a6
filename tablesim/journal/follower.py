"""A journal read beside the table that writes it (the studio's outbox):
a read-only opening of its own, never the table's, that sees each commit."""

from __future__ import annotations

from typing import Any, Iterator

from tablesim.journal.record import named
from tablesim.journal.sqlite import SqliteStore


class Follower:
    """Refused (InputError, one line) if the file holds no records table."""

    def __init__(self, path: str, *, store: type = SqliteStore) -> None:
        self.path = path
        self.store = store.follower(path)
        #: what its reads raise when the file cannot be read
        self.errors = self.store.errors

    def rows(self, **where: Any) -> Iterator[dict[str, Any]]:
        """The records matching ``where`` (as ``Store.select``) as stored, by column name."""
        return named(self.store.select(**where))

    def last_seq(self) -> int:
        """The last record's seq (0: none yet)."""
        row = next(iter(self.store.select(newest=True, limit=1)), None)
        return row[0] if row else 0

    def close(self) -> None:
        self.store.close()
