"""Terminal output: the rounds of `tablesim run` and their summary, the simulation report."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from rich.console import Console
from rich.table import Table

from tablesim.engine.stats import SessionStats
from tablecore.money import fmt
from tablecore.money import signed as plain_signed


#: the width of a console that is not a terminal (a pipe, a file): wide enough
#: that no table is ever cut (``…``) or wrapped; rich pads nothing to it
PIPE_WIDTH = 10_000


def make_console(**kwargs: Any) -> Console:
    """The console every command prints with: on a terminal, the terminal's
    width; elsewhere (a pipe, a file) no width limit, so what a script or a
    log reads is the whole table, never an 80-column cut of it."""
    console = Console(**kwargs)
    if not console.is_terminal:
        console.width = PIPE_WIDTH
    return console


def signed(value: Decimal, *, colour: bool = True) -> str:
    """An amount with its sign; a player's win green and loss red (rich
    markup: the colour shows on a terminal only, piped output stays plain)."""
    text = plain_signed(value)
    if not colour or value == 0:
        return text
    return f"[green]{text}[/]" if value > 0 else f"[red]{text}[/]"


def percent(value: Decimal | None) -> str:
    return "-" if value is None else f"{value * 100:.2f}%"


def summary_table(title: str, stats: SessionStats) -> Table:
    table = Table(title=title, show_lines=False)
    table.add_column("bet")
    table.add_column("bets", justify="right")
    table.add_column("wagered", justify="right")
    table.add_column("house result", justify="right")
    table.add_column("hold", justify="right")
    for bet, totals in stats.rows():
        table.add_row(bet, str(totals.count), fmt(totals.wagered), signed(-totals.player_net, colour=False), percent(totals.hold))
    hold = stats.house_result / stats.wagered if stats.wagered else None
    table.add_row("all", "", fmt(stats.wagered), signed(stats.house_result, colour=False), percent(hold), style="bold")
    return table


#: how the journal's start-up notices look (their style names -> rich styles)
NOTICE_STYLES = {None: None, "warning": "bold yellow", "error": "red"}


def attach_journal(console: Console, table: Any, spec: str | None, key_file: Any = None,
                   banner: str | None = None) -> Any:
    """Attach the table's journal and recover it, telling the operator what
    was found. ``banner``: printed first, once the journal is taken (a table
    refused its journal prints the refusal alone)."""
    from rich.text import Text

    from tablesim.journal.attach import attach_and_recover

    notices: list = []
    report = attach_and_recover(table, spec, notices, key_file=key_file)
    if banner is not None:
        console.print(banner)
    for text, style in notices:
        console.print(Text(text, style=NOTICE_STYLES[style] or ""))
    return report


def print_summary(console: Console, title: str, stats: SessionStats) -> None:
    console.print()
    console.print(
        f"{stats.rounds} round(s) played ({stats.void} void); total wagered {fmt(stats.wagered)}; "
        f"house result {signed(stats.house_result, colour=False)}"
    )
    console.print(summary_table(title, stats))


def report_table(report: dict[str, Any]) -> Table:
    table = Table(title=f"{report['game']}: {report['rounds']:,} rounds, seed {report['seed']}, {report['workers']} worker(s)")
    for col in ("bet", "rounds", "wagered", "returned", "measured", "99% interval", "exact", "inside"):
        table.add_column(col, justify="left" if col == "bet" else "right")
    for bet, b in report["bets"].items():
        lo, hi = b["ci99"]
        exact = "-" if b["exact"] is None else f"{b['exact']:.6f}"
        inside = (("-" if b["exact"] is None else "too few") if b["inside99"] is None
                  else ("yes" if b["inside99"] else ("NO (99.9% yes)" if b["inside999"] else "NO")))
        table.add_row(bet, f"{b['rounds']:,}", b["wagered"], b["returned"], f"{b['measured']:.6f}",
                      f"[{lo:.6f}, {hi:.6f}]", exact, inside)
    return table
