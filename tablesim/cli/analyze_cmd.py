"""``tablesim analyze GAME [--json]``: exact math of a game's bets."""

from __future__ import annotations

import json

import click

from tablesim.cli.gameopts import game_given, game_options
from tablesim.games.registry import check_options, spec


@click.command("analyze")
@game_given()
@click.option("--profile", default=None, help="Rule profile name or TOML path.")
@game_options(analysis=True)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def command(game: str, profile: str | None, as_json: bool, **options) -> None:
    """Exact probabilities and expected returns of GAME's bets, from its rule profile."""
    game_spec = spec(game)
    data = game_spec.part("analyze")(profile=profile, **check_options(game, options))
    if as_json:
        click.echo(json.dumps(data, indent=2))
    else:
        click.echo(game_spec.part("render_analysis")(data), nl=False)
