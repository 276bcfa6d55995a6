"""The start's check against the mark (``witness.py``): the journal is the one
the table's key wrote at this path, and it reaches every record it committed.

Run after the journal itself verified (``attach.check_before_recovery``):
a journal that verifies but is shorter than its mark lost committed records
(a lost or damaged ``-wal`` file, an older copy put back); a new or empty
file where a mark says a journal was is a lost journal, not a new table.
"""

from __future__ import annotations

from pathlib import Path

from tablecore.errors import InputError
from tablesim.journal.journal import Journal
from tablesim.journal.witness import Mark, Reach, mark_path, marks_of, read_mark

LOST = ("a lost or damaged -wal file (the journal's newest transactions are there until SQLite checkpoints "
        "them), or an older copy of the journal put back")


def first_link(journal: Journal) -> str | None:
    link = journal.store.link(1)
    return link if isinstance(link, str) else None


def check_reach(journal: Journal, table_id: str) -> None:
    """Refuse (InputError, one line) a journal behind a mark of its table's key."""
    if journal.path == ":memory:":
        return
    key_path = journal.key_path(table_id)
    if not key_path.exists():
        return
    key = journal.key(table_id)
    own = mark_path(key_path, journal.path)
    if journal.seq == 0:
        reach = read_mark(own, key)
        if reach is not None:
            what = "is empty" if not journal.created else "is missing"
            raise InputError(
                f"the journal {what}, but table {table_id}'s key has a mark of it: it had committed "
                f"{reach.seq} records (mark {own}); nothing was written: restore the journal file with its -wal "
                "file, or, only to begin a new history on purpose, remove the mark", where=journal.path)
        return
    first = first_link(journal)
    for path in marks_of(key_path):
        try:
            reach = read_mark(path, key)
        except InputError:
            if path == own:
                raise
            continue  # (another journal's mark: not this one's to judge)
        if reach is None or (path != own and reach.first != first):
            continue
        if reach.first != first:
            raise InputError(
                f"this is not the journal table {table_id} wrote here: its first record is not the one the mark "
                f"names (mark {path}); another journal was put in its place; nothing was written",
                where=journal.path)
        _reaches(journal, reach, path)


def _reaches(journal: Journal, reach: Reach, path: Path) -> None:
    if journal.seq >= reach.seq and journal.store.link(reach.seq) == reach.link:
        return
    if (journal.seq, journal.last_hash) == (reach.prev_seq, reach.prev_link):
        return  # the transaction being committed when the table died: never answered
    raise InputError(
        f"the journal lost records it had committed: it ends at record {journal.seq}, but its mark says record "
        f"{reach.seq} was committed (mark {path}): {LOST}; nothing was written: restore the whole journal "
        "(with its -wal file)", where=journal.path)


def open_mark(journal: Journal, table_id: str) -> None:
    """Begin advancing the journal's mark (after the start's checks and the
    chain record: the journal has its first record)."""
    if journal.path == ":memory:" or journal.seq == 0:
        return
    first = first_link(journal)
    if first is None:
        return
    own = mark_path(journal.key_path(table_id), journal.path)
    journal.mark = Mark(own, journal.key(table_id), Reach(first, journal.seq, journal.last_hash),
                        durable=journal.durable)
