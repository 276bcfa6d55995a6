"""``tablesim bench [--json]``: measure this machine."""

from __future__ import annotations

import json
from typing import Any

import click
from tablesim.cli.display import make_console
from rich.table import Table

from tablesim.harness.bench.suite import SECTIONS, run_suite


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:,.0f}" if value >= 100 else f"{value:.4f}"
    return str(value)


@click.command("bench")
@click.option("--json", "as_json", is_flag=True)
@click.option("--only", multiple=True, type=click.Choice(SECTIONS), help="Measure only this part (repeatable).")
def command(as_json: bool, only: tuple[str, ...]) -> None:
    """Engine rounds per second per game (one core), hands per second,
    exact-analysis times, link codec and latency; through a served table:
    bet intake (batched and single bets, journaled before each answer) and
    a card's way from the shoe's pty to a console's WebSocket; with
    ``--only ws_fanout`` (only when named): bet intake and a round's time
    with 500 WebSocket clients connected, half of them not reading."""
    console = make_console(stderr=True, highlight=False)
    with console.status("benchmarking...") as status:
        results = run_suite(lambda what: status.update(f"benchmarking {what}"), only)
    if as_json:
        click.echo(json.dumps(results, indent=2))
        return
    out = make_console(highlight=False)
    m = results["machine"]
    out.print(f"machine: {m['processor']}, {m['cores']} cores, {m['system']}, Python {m['python']}")
    table = Table(title="tablesim bench")
    table.add_column("what")
    table.add_column("measure")
    table.add_column("value", justify="right")
    for key in ("bet_intake", "card_to_console", "ws_fanout"):
        if key in results:
            results.setdefault("service", {})[key] = results[key]
    for section in ("engine", "analysis", "link", "service", "wallet", "platform"):
        items = results.get(section, {})
        if "skipped" in items:
            table.add_row(section, "skipped", items["skipped"])
            continue
        for key, values in items.items():
            for measure, value in values.items():
                table.add_row(f"{section}: {key}", measure, _fmt(value))
    out.print(table)
