"""The durable round journal: every input and outcome, in a keyed chain,
over a store (SQLite: ``sqlite/``; what a store provides: ``storage.py``)."""

from tablesim.journal.journal import Journal, open_journal
from tablesim.journal.record import Record
from tablesim.journal.storage import StorageError

__all__ = ["Journal", "Record", "StorageError", "open_journal"]
