"""``tablesim audit verify`` and ``tablesim history``: the journal's tools."""

from __future__ import annotations

import json
import sys
from decimal import Decimal
from pathlib import Path

import click
from rich.console import Console
from rich.markup import escape

from tablesim.cli.display import signed
from tablesim.core.errors import InputError
from tablesim.journal.audit import verify
from tablesim.journal.history import round_summary, select_rounds
from tablesim.journal.location import data_dir
from tablesim.journal.store import Journal


def open_existing(path: str | None) -> Journal:
    if path is None:
        found = sorted(data_dir().glob("*.journal.sqlite"))
        if len(found) != 1:
            names = ", ".join(str(p) for p in found) or f"none in {data_dir()}"
            raise InputError(f"name the journal with --journal (found: {names})")
        path = str(found[0])
    if not Path(path).is_file():
        raise InputError("no such journal file", where=path)
    return Journal(path, readonly=True)


@click.group("audit")
def audit() -> None:
    """The journal's tamper-evident audit chain."""


@audit.command("verify")
@click.option("--journal", "path", default=None, help="Journal file (default: the only one in the data directory).")
def audit_verify(path: str | None) -> None:
    """Exit 0 if the hash chain is intact; exit 1 naming the first bad record."""
    journal = open_existing(path)
    try:
        result = verify(journal)
    finally:
        journal.close()
    if result.ok:
        click.echo(f"journal {journal.path}: {result.records} records, chain intact")
        return
    click.echo(f"tablesim: error: journal {journal.path}: chain broken at record {result.first_bad}: {result.reason}", err=True)
    sys.exit(1)


@click.command("history")
@click.option("--journal", "path", default=None, help="Journal file (default: the only one in the data directory).")
@click.option("--last", type=click.IntRange(min=1), default=None, help="Only the last N rounds.")
@click.option("--round", "round_id", default=None, help="Only this round.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per round (the scripted-round result format).")
def history(path: str | None, last: int | None, round_id: str | None, as_json: bool) -> None:
    """Recall past rounds: cards, draw or spin, bets, decisions, results, device events, faults."""
    if last is not None and round_id is not None:
        raise InputError("use --last or --round, not both")
    journal = open_existing(path)
    try:
        _history(journal, last, round_id, as_json)
    finally:
        journal.close()


def position_line(summary: dict, pos: str) -> str:
    """A position's bets and results, every result included: those with no
    stake of their own too (Fortune 3's Play and Ante Bonus)."""
    bets = summary["bets"].get(pos, {})
    res = summary["results"].get(pos, {})
    parts = []
    for bet in dict.fromkeys([*bets, *res]):
        stake = f" {bets[bet]}" if bet in bets else ""
        outcome = f" -> {signed(Decimal(res[bet]))}" if bet in res else ""
        parts.append(f"{escape(bet)}{stake}{outcome}")
    net = summary["net"].get(pos)
    return ", ".join(parts) + (f"  net {signed(Decimal(net))}" if net is not None else "")


def _history(journal: Journal, last: int | None, round_id: str | None, as_json: bool) -> None:
    ids = select_rounds(journal, last if last else (None if round_id else 10), round_id)
    if round_id is not None and not ids:
        raise InputError(f"no round {round_id!r} in the journal", where=journal.path)
    console = Console(highlight=False, soft_wrap=True)
    for rid in ids:
        summary = round_summary(journal, rid)
        if as_json:
            click.echo(json.dumps(summary, separators=(", ", ": ")))
            continue
        status = summary["status"] + (f" ({summary['void_reason']})" if summary.get("void_reason") else "")
        console.print(f"[bold]{rid}[/] {summary.get('game', '')} {status}")
        for pos in dict.fromkeys([*summary["bets"], *summary["results"]]):
            console.print(f"  {escape(pos)}: {position_line(summary, pos)}")
        if summary["outcome"]:
            console.print(f"  outcome: {json.dumps(summary['outcome'])}")
        for ev in summary["events"]:
            detail = {k: v for k, v in ev.items() if k not in ("seq", "ts", "kind", "actor")}
            console.print(f"  #{ev['seq']} {ev['kind']} by {ev['actor']}: {json.dumps(detail)}")
