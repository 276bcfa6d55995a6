"""The registry's games as click arguments and options.

``--game`` and the ``GAME`` argument take the registered games; each option
a game declares (e.g. ``--dealing``, ``--decks``) becomes
one option of the commands that take game options, its help naming the
games that take it. Nothing here names a game.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

import click

from tablecore.errors import InputError

from tablesim.games import registry


def game_choice() -> click.Choice:
    return click.Choice(registry.names())


def game_options(*, analysis: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorate a command with every game option (``analysis``: only those
    the exact analysis takes). The command receives them as keyword arguments."""

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        declared = [(o, games) for o, games in registry.all_options().values() if o.in_analysis or not analysis]
        for option, games in reversed(declared):
            kind = click.Choice(list(option.choices)) if option.choices is not None else click.IntRange(option.lo, option.hi)
            fn = click.option(f"--{option.name}", option.name, type=kind, default=None,
                              help=f"{', '.join(games)}: {option.help}.")(fn)
        return fn

    return decorate


def option_names(*, analysis: bool = False) -> tuple[str, ...]:
    return tuple(o.name for o, _ in registry.all_options().values() if o.in_analysis or not analysis)


def game_given() -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The game of a command, given as every command takes it, ``--game GAME``,
    or as its first argument (``tablesim analyze wheel``, kept working). The
    command receives ``game``; neither, or two different games, is one error line."""

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def command(*args: Any, game_arg: str | None = None, game_opt: str | None = None, **kwargs: Any) -> Any:
            if game_arg and game_opt and game_arg != game_opt:
                raise InputError(f"two games given: {game_arg} and --game {game_opt}")
            game = game_opt or game_arg
            if game is None:
                raise InputError(f"no game given: --game {', '.join(registry.names())}")
            return fn(*args, game=game, **kwargs)

        command = click.option("--game", "game_opt", type=game_choice(), default=None, help="The game.")(command)
        return click.argument("game_arg", metavar="[GAME]", type=game_choice(), required=False)(command)

    return decorate
