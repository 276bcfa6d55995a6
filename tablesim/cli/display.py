"""Terminal output of the mock table: rounds as they happen, then a summary."""

from __future__ import annotations

from decimal import Decimal

from rich.console import Console
from rich.table import Table

from tablesim.engine.stats import SessionStats
from tablesim.core.money import fmt


def signed(value: Decimal, *, colour: bool = True) -> str:
    """An amount with its sign; a player's win green and loss red (rich
    markup: the colour shows on a terminal only, piped output stays plain)."""
    text = ("+" if value > 0 else "") + fmt(value)
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
    for bet, totals in stats.by_bet.items():
        table.add_row(bet, str(totals.count), fmt(totals.wagered), signed(-totals.player_net, colour=False), percent(totals.hold))
    hold = stats.house_result / stats.wagered if stats.wagered else None
    table.add_row("all", "", fmt(stats.wagered), signed(stats.house_result, colour=False), percent(hold), style="bold")
    return table


def print_summary(console: Console, title: str, stats: SessionStats) -> None:
    console.print()
    console.print(
        f"{stats.rounds} round(s) played ({stats.void} void); total wagered {fmt(stats.wagered)}; "
        f"house result {signed(stats.house_result, colour=False)}"
    )
    console.print(summary_table(title, stats))
