"""``tablesim run``: run a table."""

from __future__ import annotations

import sys

import click
from rich.console import Console

from tablesim.engine.runopts import RunOptions
from tablesim.errors import InputError
from tablesim.games import game_module
from tablesim.profiles import GAMES


@click.command("run")
@click.option("--game", type=click.Choice(GAMES), required=True, help="The game the table runs.")
@click.option("--mock", is_flag=True, help="Mock devices and simulated players (no hardware needed).")
@click.option("--rounds", type=click.IntRange(min=1), default=10, show_default=True)
@click.option("--seed", type=click.IntRange(min=0), default=None, help="Seed for a reproducible mock session.")
@click.option("--profile", default=None, help="Rule profile name or TOML path (default: the game's default).")
@click.option("--dealing", type=click.Choice(["shoe", "shuffler"]), default=None, help="fortune3: how cards are dealt.")
@click.option("--decks", type=click.IntRange(1, 8), default=None, help="football: decks in the shoe.")
@click.option("--quiet", is_flag=True, help="Only the closing summary.")
@click.option("--delay", type=click.FloatRange(min=0), default=0.0, help="Seconds to pause between rounds.")
@click.option(
    "--journal",
    default=None,
    help="Journal file (SQLite). Default: one per table in the user's data directory; 'none' for no journal.",
)
def command(game, mock, rounds, seed, profile, dealing, decks, quiet, delay, journal) -> None:
    """Run a table of GAME and show each round as it happens."""
    if not mock:
        raise InputError("choose a device mode: --mock (more modes come with the device drivers)")
    if dealing and game != "fortune3":
        raise InputError(f"--dealing applies to fortune3, not {game}")
    if decks and game != "football":
        raise InputError(f"--decks applies to football, not {game}")
    options = RunOptions(game, rounds, seed, profile, dealing, decks, quiet, delay, journal)
    console = Console(highlight=False, soft_wrap=True)
    sys.exit(game_module(game).run_mock(options, console))
