from __future__ import annotations

import click

from tablesim.games.registry import game_module
from tablesim.profiles import GAMES


@click.command("diagram")
@click.argument("game", type=click.Choice(GAMES))
def command(game: str) -> None:
    """Print GAME's round state machine as a mermaid diagram."""
    click.echo(game_module(game).diagram(), nl=False)
