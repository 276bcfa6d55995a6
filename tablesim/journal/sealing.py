"""Sealing a legacy journal: an operator's act, once, under a key already there.

A journal from before keyed chains has plain SHA-256 links: anyone can
compute them, so a keyed journal re-chained without its key (with an edit
in it) looks exactly like one. A table never seals one by itself; the
operator checks it and seals it with ``tablesim journal seal-legacy``: its
whole plain chain is verified, then the chain record seals its records
(their count and last link) under the table's existing key. From then on it
is an ordinary keyed journal, with its mark beside the key.
"""

from __future__ import annotations

from pathlib import Path

from tablecore.errors import InputError
from tablesim.journal.audit import journal_table_id, legacy_check
from tablesim.journal.keys import TABLE_ID, default_key_path, key_id, load_key
from tablesim.journal.reach import open_mark
from tablesim.journal.journal import Journal


def seal_legacy_journal(path: str, table: str | None, key_path: Path | None) -> str:
    """Seal ``path`` under the table's key; the line to show. Refused
    (InputError) unless it is an unkeyed journal whose plain chain holds and
    whose table's key exists."""
    journal = Journal(path, key_file=key_path)
    try:
        owner = journal_table_id(journal)
        table = table or owner
        if journal.seq == 0 or table is None:
            raise InputError("the journal holds no record: nothing to seal", where=path)
        if owner != table:
            raise InputError(f"the journal is table {owner}'s, not table {table}'s", where=path)
        if not TABLE_ID.fullmatch(table):
            raise InputError(f"its table id {table!r} is not one (1 to 32 of A-Z a-z 0-9 _ -)", where=path)
        if journal.keyed:
            raise InputError("the journal is already keyed: a legacy journal is sealed once", where=path)
        key_file = key_path if key_path is not None else default_key_path(table)
        if not key_file.exists():
            raise InputError(f"table {table} has no key ({key_file}): make it first with `tablesim journal "
                             f"new-key --table {table}`", where=path)
        key = load_key(key_file)
        result = legacy_check(journal)
        if not result.ok:
            raise InputError(f"not sealed: its plain chain does not hold: {result.describe()}", where=path)
        legacy = journal.seq
        journal.seal(table)
        open_mark(journal, table)
    except BaseException:
        journal.abandon()
        raise
    journal.close()
    return (f"journal {path}: {legacy} legacy records sealed under table {table}'s key {key_id(key)}; "
            "the table can start on it now")
