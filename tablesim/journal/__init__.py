"""The durable round journal: every input and outcome, hash-chained, in SQLite."""

from tablesim.journal.store import Journal, Record, open_journal

__all__ = ["Journal", "Record", "open_journal"]
