"""Opening a table's journal, checking it, and recovering the table from it.

Nothing is replayed from a journal that does not verify: before recovery
the table checks the database (``integrity_check``) and the chain from its last
checkpoint, and refuses to start (one line, exit 2) naming the first bad
record. Each round's first record names the rule profile; a round begun
under another profile is never resumed under this one.

What a start has to tell (the journal, a recovered round, faults still
active) comes back as plain lines for whoever shows them (the CLI). The
table is any game table: the journal drives its actions and imports nothing
of the engine.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tablecore.errors import InputError
from tablesim.journal.audit import foreign_key, journal_table_id, verify_recent
from tablesim.journal.location import data_dir, default_journal_path
from tablesim.journal.reach import check_reach, open_mark
from tablesim.journal.recovery import RecoveryReport, active_faults, recover
from tablesim.journal.journal import Journal, open_journal
from tablesim.profiles import profile_rules, profile_stamp


def journal_for(table: Any, spec: str | None, key_file: str | Path | None = None) -> Journal | None:
    """``spec``: a path, ``none`` (simulations only), ``memory``, or None for
    the table's default location."""
    path = spec if spec is not None else str(default_journal_path(table.table_id))
    if spec is not None and spec not in ("none", "memory", ":memory:"):
        # A journal named on purpose goes where it was named: a mistyped
        # folder is not made (the default's data directory is).
        folder = Path(spec).parent
        if not folder.is_dir() and folder.absolute() != data_dir().absolute():
            raise InputError(f"no such folder: {folder}" if not folder.exists() else f"{folder} is not a folder",
                             where=spec)
    return open_journal(path, key_file=key_file)


def check_before_recovery(journal: Journal, table_id: str) -> None:
    """Refuse (InputError) a journal whose recent records do not verify."""
    if journal.path == ":memory:":
        return
    if journal.seq == 0:
        if not journal.fresh:  # its tables are there, its records are not
            raise InputError("the journal holds no record, but it is not new: every record was deleted (a new "
                             "journal is made with its first record); nothing was written: run `tablesim audit "
                             f"verify --journal {journal.path}`, and remove the file only to begin a new journal",
                             where=journal.path)
        check_reach(journal, table_id)  # (a missing or emptied file where the key's mark says a journal was)
        return
    owner = journal_table_id(journal)
    if journal.keyed and owner is not None and owner != table_id:
        # (its chain is under table owner's key: it would only ever look "tampered" to this table)
        raise InputError(f"the journal is table {owner}'s, not table {table_id}'s: each table writes a journal "
                         "of its own (name another file with --journal)", where=journal.path)
    key_path = journal.key_path(table_id)
    if journal._key is None and not key_path.exists():
        # A journal is never re-keyed: a new key would seal whatever the file holds now.
        raise InputError(f"the journal holds {journal.seq} records, but table {table_id}'s key ({key_path}) is "
                         "missing: a journal is only ever written under its own key; put the key back; nothing "
                         "was replayed", where=journal.path)
    if not journal.keyed:
        # A legacy journal (unkeyed) is sealed only on purpose, once, by
        # `tablesim journal seal-legacy`: a keyed journal re-chained without
        # its key looks exactly like one, and a table that sealed it on its
        # own would seal the forgery.
        raise InputError("the journal holds no keyed record: a journal from before keyed chains, or a keyed one "
                         "re-chained without its key; nothing was replayed: check it (`tablesim audit verify "
                         f"--journal {journal.path}`), then, if it is a genuine legacy journal, seal it once with "
                         f"`tablesim journal seal-legacy --journal {journal.path}`", where=journal.path)
    other = foreign_key(journal, journal.key(table_id))
    if other is not None:
        raise InputError(f"{other}: {key_path} is another key (another table's?); put this journal's key back; "
                         "nothing was replayed", where=journal.path)
    result = verify_recent(journal, journal.key(table_id))
    if not result.ok:
        where = f"record {result.first_bad}: " if result.first_bad is not None else ""
        raise InputError(f"{result.verdict}: {where}{result.reason}; nothing was replayed: "
                         f"run `tablesim audit verify --journal {journal.path}`", where=journal.path)
    check_reach(journal, table_id)


def attach_and_recover(table: Any, spec: str | None, notices: list | None = None,
                       key_file: str | Path | None = None) -> RecoveryReport | None:
    """Attach the table's journal (``spec``: see :func:`journal_for`), checked,
    and recover the table from it. ``notices``, if given, gets what to tell
    the operator: ``(text, style)`` pairs, style None, ``"warning"`` or ``"error"``."""
    journal = journal_for(table, spec, key_file)
    if journal is None:
        return None
    try:
        check_before_recovery(journal, table.table_id)
        profile = getattr(table, "profile", None)
        journal.profile = profile_stamp(profile) if profile is not None else None
        journal.profile_rules = profile_rules(profile) if profile is not None else None
        journal.seal(table.table_id)
        open_mark(journal, table.table_id)
        table.attach_journal(journal)
        report = recover(table, journal)
    except BaseException:
        journal.abandon()  # a refused start changes no byte
        raise
    if notices is not None:
        notices.append((f"journal: {journal.path}", None))
        if report is not None:
            notices.append((report.describe(), "warning"))
        # Faults never cleared are reported on every start, also when the
        # round they happened in has ended (e.g. it was voided by them).
        faults = report.active_faults if report is not None else active_faults(journal)
        for key, fault in faults.items():
            notices.append((f"active fault {key} since {fault.get('raised_at', '?')}: {fault.get('text', '')}", "error"))
    return report
