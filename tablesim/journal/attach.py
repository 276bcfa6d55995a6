"""Opening a table's journal and recovering the table from it."""

from __future__ import annotations

from rich.console import Console

from tablesim.engine.table import GameTable
from tablesim.journal.location import default_journal_path
from tablesim.journal.recovery import RecoveryReport, active_faults, recover
from tablesim.journal.store import Journal, open_journal


def journal_for(table: GameTable, spec: str | None) -> Journal | None:
    """``spec``: a path, ``none`` (simulations only), ``memory``, or None for
    the table's default location."""
    path = spec if spec is not None else str(default_journal_path(table.table_id))
    return open_journal(path)


def attach_and_recover(table: GameTable, spec: str | None, console: Console | None = None) -> RecoveryReport | None:
    journal = journal_for(table, spec)
    if journal is None:
        return None
    table.attach_journal(journal)
    report = recover(table, journal)
    if console is not None:
        console.print(f"journal: {journal.path}")
        if report is not None:
            console.print(f"[bold yellow]{report.describe()}[/]")
        # Faults never cleared are reported on every start, also when the
        # round they happened in has ended (e.g. it was voided by them).
        faults = report.active_faults if report is not None else active_faults(journal)
        for key, fault in faults.items():
            console.print(f"[red]active fault {key} since {fault.get('raised_at', '?')}: {fault.get('text', '')}[/]")
    return report
