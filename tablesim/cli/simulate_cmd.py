"""``tablesim simulate GAME --rounds N``: play rounds through the real engine
and compare each bet's measured return with the exact math."""

from __future__ import annotations

import json
import os
import sys
import time

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

from tablesim.cli.options import SIMULATE_ROUNDS_MAX
from tablesim.core.errors import InputError
from tablesim.games.registry import game_module
from tablesim.profiles import GAMES
from tablesim.harness.simulate.report import build_report, report_table
from tablesim.harness.simulate.runner import simulate


@click.command("simulate")
@click.argument("game", type=click.Choice(GAMES))
@click.option("--rounds", type=click.IntRange(1, SIMULATE_ROUNDS_MAX), required=True)
@click.option("--seed", type=click.IntRange(min=0), default=1, show_default=True)
@click.option("--workers", type=click.IntRange(min=1), default=None, help="Processes (default: all cores).")
@click.option("--profile", default=None)
@click.option("--dealing", type=click.Choice(["shoe", "shuffler"]), default=None, help="fortune3")
@click.option("--decks", type=click.IntRange(1, 8), default=None, help="football")
@click.option("--json", "as_json", is_flag=True)
@click.option("--plot", type=click.Path(), default=None, help="Write a PNG of the convergence.")
def command(game, rounds, seed, workers, profile, dealing, decks, as_json, plot) -> None:
    """Simulate ROUNDS rounds of GAME with simulated players on every bet type."""
    if dealing and game != "fortune3":
        raise InputError(f"--dealing applies to fortune3, not {game}")
    if decks and game != "football":
        raise InputError(f"--decks applies to football, not {game}")
    if plot:
        from tablesim.harness.simulate.plot import check_plot_path

        check_plot_path(plot)  # now, not after a long run
    options = {k: v for k, v in {"profile": profile, "dealing": dealing, "decks": decks}.items() if v is not None}
    module = game_module(game)
    workers = workers or os.cpu_count() or 1
    console = Console(stderr=as_json, highlight=False)
    if not console.is_terminal:
        console = Console(stderr=as_json, highlight=False, width=160)
    start = time.perf_counter()
    if console.is_terminal:
        with Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                      TimeRemainingColumn(), console=console, transient=True) as progress:
            task = progress.add_task(f"simulating {game}", total=rounds)
            tally, trace = simulate(game, rounds, seed, workers, options, lambda n: progress.advance(task, n))
    else:
        tally, trace = simulate(game, rounds, seed, workers, options)
    elapsed = time.perf_counter() - start
    exact = module.simulation_exact(**options)
    meta = {"seed": seed, "workers": workers, "seconds": round(elapsed, 3), "options": options,
            "shoe_state": module.SIMULATION_SHOE_STATE}
    report = build_report(game, tally, exact, meta)
    if plot:
        from tablesim.harness.simulate.plot import write_plot

        write_plot(plot, report, trace)
    if as_json:
        click.echo(json.dumps(report, indent=2))
    else:
        console.print(report_table(report))
        console.print(f"shoe state: {module.SIMULATION_SHOE_STATE}")
        bases = {b.get("exact_basis") for b in report["bets"].values()}
        if len(bases) == 1 and None not in bases:
            console.print(f"exact figures for {bases.pop()}")
        else:
            for bet, b in report["bets"].items():
                if b.get("exact_basis"):
                    console.print(f"  {bet}: exact figure for {b['exact_basis']}")
        console.print(f"{report['inside99']} exact figures inside their 99% intervals; "
                      f"{rounds / elapsed:,.0f} rounds/s over {workers} worker(s)")
        if report["outside999"]:
            console.print(f"[red]outside the 99.9% interval: {', '.join(report['outside999'])}: a bug to find[/]")
    sys.exit(0)
