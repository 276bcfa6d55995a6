"""``tablesim diagram GAME``: the round state machine as mermaid."""

from __future__ import annotations

import click

from tablesim.cli.gameopts import game_given
from tablesim.games.registry import spec


@click.command("diagram")
@game_given()
def command(game: str) -> None:
    """Print GAME's round state machine as a mermaid diagram."""
    click.echo(spec(game).part("diagram")(), nl=False)
