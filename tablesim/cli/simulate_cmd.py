"""``tablesim simulate GAME --rounds N``: play rounds through the real engine
and compare each bet's measured return with the exact math."""

from __future__ import annotations

import json
import os
import sys
import time

import click
from tablesim.cli.display import make_console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

from tablesim.cli.display import report_table
from tablesim.cli.gameopts import game_given, game_options
from tablesim.cli.options import SIMULATE_ROUNDS_MAX
from tablesim.games.registry import check_options, spec
from tablesim.harness.simulate.report import build_report
from tablesim.harness.simulate.stats import MIN_EACH
from tablesim.harness.simulate.runner import simulate


@click.command("simulate")
@game_given()
@click.option("--rounds", type=click.IntRange(1, SIMULATE_ROUNDS_MAX), required=True)
@click.option("--seed", type=click.IntRange(min=0), default=1, show_default=True)
@click.option("--workers", type=click.IntRange(min=1), default=None, help="Processes (default: all cores).")
@click.option("--profile", default=None)
@game_options()
@click.option("--json", "as_json", is_flag=True)
@click.option("--plot", type=click.Path(), default=None, help="Write a PNG of the convergence.")
@click.option("--scheduler", default=None, metavar="tcp://HOST:PORT",
              help="Play the shares on this Dask scheduler's workers (default shares: the cluster's threads).")
def command(game, rounds, seed, workers, profile, as_json, plot, scheduler, **game_opts) -> None:
    """Simulate ROUNDS rounds of GAME with simulated players on every bet type."""
    given = check_options(game, game_opts)
    if plot:
        from tablesim.harness.simulate.plot import check_plot_path

        check_plot_path(plot)  # now, not after a long run
    options = {k: v for k, v in {"profile": profile, **given}.items() if v is not None}
    game_spec = spec(game)
    if scheduler is None:
        workers = workers or os.cpu_count() or 1
    console = make_console(stderr=as_json, highlight=False)
    start = time.perf_counter()
    if console.is_terminal:
        with Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                      TimeRemainingColumn(), console=console, transient=True) as progress:
            task = progress.add_task(f"simulating {game}", total=rounds)
            tally, trace = simulate(game, rounds, seed, workers, options, lambda n: progress.advance(task, n),
                                    scheduler=scheduler)
    else:
        tally, trace = simulate(game, rounds, seed, workers, options, scheduler=scheduler)
    elapsed = time.perf_counter() - start
    workers = tally.shares  # the shares played (S/K/k): what reproduces the run
    exact = game_spec.part("simulation_exact")(**options)
    meta = {"seed": seed, "workers": workers, **({"scheduler": scheduler} if scheduler else {}),
            "seconds": round(elapsed, 3), "options": options, "shoe_state": game_spec.simulation_note}
    report = build_report(game, tally, exact, meta)
    if plot:
        from tablesim.harness.simulate.plot import write_plot

        write_plot(plot, report, trace)
    if as_json:
        click.echo(json.dumps(report, indent=2))
    else:
        console.print(report_table(report))
        console.print(f"shoe state: {game_spec.simulation_note}")
        bases = {b.get("exact_basis") for b in report["bets"].values()}
        if len(bases) == 1 and None not in bases:
            console.print(f"exact figures for {bases.pop()}")
        else:
            for bet, b in report["bets"].items():
                if b.get("exact_basis"):
                    console.print(f"  {bet}: exact figure for {b['exact_basis']}")
        console.print(f"{report['inside99']} exact figures inside their 99% intervals; "
                      f"{rounds / elapsed:,.0f} rounds/s over {workers} worker(s)")
        if report["not_judged"]:
            console.print(f"not judged (fewer than {MIN_EACH} wins or losses, more rounds needed): "
                          f"{', '.join(report['not_judged'])}")
        if report["outside999"]:
            console.print(f"[red]outside the 99.9% interval: {', '.join(report['outside999'])}: a bug to find[/]")
    sys.exit(0)
