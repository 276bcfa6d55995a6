"""``tablesim script run FILE... [--json]`` (spec/scripted-rounds.md)."""

from __future__ import annotations

import json
import sys

import click

from tablecore.errors import InputError
from tablecore.money import fmt
from tablesim.harness.scripting.runner import PlayedRound, run_file


@click.group("script")
def command() -> None:
    """Scripted rounds."""


def _describe(item: PlayedRound) -> str:
    label = f"{item.file} round {item.number}" + (f" ({item.name})" if item.name else "")
    result = item.result
    if result.status == "void":
        body = f"void ({result.void_reason}): every bet returned"
    else:
        body = "net " + ", ".join(f"{pos} {fmt(v) if v <= 0 else '+' + fmt(v)}" for pos, v in result.net.items())
        if result.players:
            # each named player's net
            nets = result.players_json()
            body += "; players " + ", ".join(
                f"{pl} {x['net'] if x['net'].startswith('-') or x['net'] == '0' else '+' + x['net']}"
                for pl, x in nets.items())
    verdict = ""
    if item.expect is not None:
        verdict = "  [ok]" if not item.failures else "  [EXPECTATION FAILED]"
    return f"{label}: {body}{verdict}"


@command.command("run")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="One JSON object per round (JSON Lines) on standard output.")
def run(files: tuple[str, ...], as_json: bool) -> None:
    """Play every round of every FILE, in order, and check expectations."""
    failed = 0
    rounds = 0
    for path in files:
        try:
            played = run_file(path)
        except InputError as exc:
            click.echo(f"tablesim: error: invalid script: {exc}", err=True)
            sys.exit(2)
        for item in played:
            rounds += 1
            if as_json:
                click.echo(json.dumps(item.as_json(), separators=(", ", ": ")))
            else:
                click.echo(_describe(item))
            for where, expected, actual in item.failures:
                failed += 1
                click.echo(
                    f"  mismatch: {item.file} round {item.number}: {where}: expected {expected!s}, got {actual!s}",
                    err=as_json,
                )
    if not as_json:
        click.echo(f"{rounds} round(s) played, {failed} expectation mismatch(es)")
    sys.exit(1 if failed else 0)
