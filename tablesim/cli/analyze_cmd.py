"""``tablesim analyze GAME [--json]``: exact math of a game's bets."""

from __future__ import annotations

import json

import click

from tablesim.core.errors import InputError
from tablesim.games.registry import game_module
from tablesim.profiles import GAMES


@click.command("analyze")
@click.argument("game", type=click.Choice(GAMES))
@click.option("--profile", default=None, help="Rule profile name or TOML path.")
@click.option("--decks", type=click.IntRange(1, 8), default=None, help="football: decks in the shoe.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def command(game: str, profile: str | None, decks: int | None, as_json: bool) -> None:
    """Exact probabilities and expected returns of GAME's bets, from its rule profile."""
    module = game_module(game)
    options = {"profile": profile}
    if decks is not None:
        if game != "football":
            raise InputError(f"--decks applies to football, not {game}")
        options["decks"] = decks
    data = module.analyze(**options)
    if as_json:
        click.echo(json.dumps(data, indent=2))
    else:
        click.echo(module.render_analysis(data), nl=False)
