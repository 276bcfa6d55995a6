"""The registry of games: each game's module provides the same entry points.

A game module (``tablesim.<game>.game``) exposes:

- ``script_session(table: Reader, where: str) -> ScriptSession``: a table of
  that game fed by mock devices from a script (see ``tablesim.harness.scripting``);
- ``run_mock(options) -> int``: the mock table of ``tablesim run``;
- ``analyze(options) -> dict`` and ``render_analysis(dict) -> str``;
- ``diagram() -> str``: the round machine as mermaid.
"""

from __future__ import annotations

from importlib import import_module
from types import ModuleType

from tablesim.core.errors import InputError
from tablesim.profiles import GAMES

_MODULES = {game: f"tablesim.games.{game}.game" for game in GAMES}


def game_module(game: str) -> ModuleType:
    if game not in _MODULES:
        raise InputError(f"unknown game {game!r} (games: {', '.join(GAMES)})")
    try:
        return import_module(_MODULES[game])
    except ModuleNotFoundError as exc:
        if exc.name in (_MODULES[game], f"tablesim.games.{game}"):
            raise InputError(f"game {game!r} is not available in this build") from None
        raise
