"""The names earlier releases imported from here, where they live now:
the journal (``journal.py``), its records (``record.py``), the refusal of a
full disk (``storage.py``), the record time (``clock.py``), the canonical
data text (``canonical.py``) and the legacy link (``chain.py``)."""

from tablesim.journal.canonical import canonical
from tablesim.journal.chain import GENESIS, record_hash
from tablesim.journal.clock import now_stamp, stamp
from tablesim.journal.journal import Journal, open_journal
from tablesim.journal.record import Record
from tablesim.journal.storage import StorageError

__all__ = ["GENESIS", "Journal", "Record", "StorageError", "canonical", "now_stamp", "open_journal", "record_hash",
           "stamp"]
