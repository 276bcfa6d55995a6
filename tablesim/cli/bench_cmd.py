"""``tablesim bench [--json]``: measure this machine."""

from __future__ import annotations

import json
from typing import Any

import click
from tablesim.cli.display import make_console
from rich.table import Table

from tablesim.harness.bench.runs import repeated
from tablesim.harness.bench.suite import SECTIONS, machine, run_suite


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:,.0f}" if value >= 100 else f"{value:.4f}"
    return str(value)


@click.command("bench")
@click.option("--json", "as_json", is_flag=True)
@click.option("--only", multiple=True, type=click.Choice(SECTIONS), help="Measure only this part (repeatable).")
@click.option("--runs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Measure it all this many times, one after the other: each run, and each figure's lowest, "
                   "median and highest.")
def command(as_json: bool, only: tuple[str, ...], runs: int) -> None:
    """Engine rounds per second per game (one core), hands per second,
    exact-analysis times, link codec and latency; through a served table:
    bet intake (batched and single bets, journaled before each answer) and
    a card's way from the shoe's pty to a console's WebSocket; with
    ``--only ws_fanout`` (only when named): bet intake and a round's time
    with 500 WebSocket clients connected, half of them not reading."""
    console = make_console(stderr=True, highlight=False)
    if runs > 1:
        with console.status("benchmarking...") as status:
            done = [0]

            def one() -> dict[str, Any]:
                done[0] += 1
                got = run_suite(lambda what: status.update(f"benchmarking {what}, run {done[0]} of {runs}"), only)
                got.pop("machine", None)  # (said once)
                return got

            results = {"machine": machine(), **repeated(one, runs)}
        if as_json:
            click.echo(json.dumps(results, indent=2))
            return
        out = make_console(highlight=False)
        table = Table(title=f"tablesim bench, {runs} runs")
        table.add_column("figure")
        for column in ("lowest", "median", "highest"):
            table.add_column(column, justify="right")
        for name, figure in _flat_spread(results["spread"]).items():
            table.add_row(name, _fmt(figure["min"]), _fmt(figure["median"]), _fmt(figure["max"]))
        out.print(table)
        return
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


def _flat_spread(spread: dict[str, Any], prefix: str = "") -> dict[str, dict[str, float]]:
    """The spread's figures by their dotted path (``table_bus.cpu_us_per_bet.table``)."""
    out: dict[str, dict[str, float]] = {}
    for key, value in spread.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and set(value) == {"min", "median", "max"}:
            out[name] = value
        elif isinstance(value, dict):
            out.update(_flat_spread(value, name + "."))
    return out
