"""Opening a table's journal and recovering the table from it.

What a start says about it (the journal, a recovered round, faults still
active) comes back as plain lines for whoever shows them (the CLI)."""

from __future__ import annotations

from typing import Any

from tablesim.journal.location import default_journal_path
from tablesim.journal.recovery import RecoveryReport, active_faults, recover
from tablesim.journal.store import Journal, open_journal


def journal_for(table: Any, spec: str | None) -> Journal | None:
    """``spec``: a path, ``none`` (simulations only), ``memory``, or None for
    the table's default location."""
    path = spec if spec is not None else str(default_journal_path(table.table_id))
    return open_journal(path)


def attach_and_recover(table: Any, spec: str | None, notices: list | None = None) -> RecoveryReport | None:
    """Attach the table's journal (``spec``: see :func:`journal_for`) and
    recover the table from it. ``notices``, if given, gets what to tell the
    operator: ``(text, style)`` pairs, style None, ``"warning"`` or ``"error"``."""
    journal = journal_for(table, spec)
    if journal is None:
        return None
    table.attach_journal(journal)
    report = recover(table, journal)
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
