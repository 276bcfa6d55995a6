"""``tablesim diagram GAME``: the round state machine as mermaid."""

from __future__ import annotations

import click

from tablesim.cli.gameopts import game_choice
from tablesim.games.registry import spec


@click.command("diagram")
@click.argument("game", type=game_choice())
def command(game: str) -> None:
    """Print GAME's round state machine as a mermaid diagram."""
    click.echo(spec(game).part("diagram")(), nl=False)
