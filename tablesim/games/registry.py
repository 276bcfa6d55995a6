"""The registry of games: a name -> the game's :class:`GameSpec`.

Like python-can's interfaces (and :mod:`drivers.registry` for device
backends), a game is found by name and imported only when it is used. A
package adds a game through the entry point group ``tablesim.games``
(name = the game, value = ``"module:attribute"`` of its ``GameSpec``); the
three games of this project are registered the same way in
``pyproject.toml``, and listed in :data:`BUILTIN` too, so a source checkout
whose installed metadata predates a game still finds it.

Nothing outside ``tablesim/games`` names a game: the CLI, the server, the
harness and the table configuration ask :func:`spec` and :func:`names`.
"""

from __future__ import annotations

import importlib
from importlib import metadata

from tablecore.errors import ConfigError, InputError
from tablesim.games.gamespec import GameOption, GameSpec

ENTRY_POINT_GROUP = "tablesim.games"

#: the games shipped with tablesim, in the order they are listed
BUILTIN: dict[str, str] = {
    "fortune3": "tablesim.games.fortune3.spec:SPEC",
    "football": "tablesim.games.football.spec:SPEC",
    "wheel": "tablesim.games.wheel.spec:SPEC",
}

_targets: dict[str, str] | None = None
_loaded: dict[str, GameSpec] = {}


def _all_targets() -> dict[str, str]:
    global _targets
    if _targets is None:
        found = dict(BUILTIN)
        try:
            points = metadata.entry_points(group=ENTRY_POINT_GROUP)
        except Exception:  # noqa: BLE001 - broken metadata must not hide the built-in games
            points = ()
        extra = {ep.name: ep.value for ep in points if ep.name not in BUILTIN}
        found.update(sorted(extra.items()))
        _targets = found
    return _targets


def refresh() -> None:
    """Forget what was found (after a package was installed or a path added: tests)."""
    global _targets
    _targets = None
    _loaded.clear()


def names() -> tuple[str, ...]:
    """Every registered game, the built-in ones first."""
    return tuple(_all_targets())


def spec(game: object, *, error: type[InputError] = InputError, where: str | None = None) -> GameSpec:
    """The spec of ``game``; an unknown or broken game is one located line."""
    targets = _all_targets()
    if game not in targets:
        raise error(f"unknown game {game!r} (games: {', '.join(targets)})", where=where)
    if game in _loaded:
        return _loaded[game]  # type: ignore[index]
    module_name, _, attribute = targets[game].partition(":")  # type: ignore[index]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and module_name.startswith(exc.name):
            raise error(f"game {game!r} is not available in this build", where=where) from None
        raise
    found = getattr(module, attribute, None)
    if not isinstance(found, GameSpec) or found.name != game:
        raise error(f"game {game!r}: {targets[game]} is not its GameSpec", where=where)  # type: ignore[index]
    _loaded[game] = found  # type: ignore[index]
    return found


def config_spec(game: object, where: str) -> GameSpec:
    """:func:`spec` for a configuration file's ``game`` key."""
    return spec(game, error=ConfigError, where=where)


def all_options() -> dict[str, tuple[GameOption, tuple[str, ...]]]:
    """Each option name any game declares: its declaration and the games that take it."""
    out: dict[str, tuple[GameOption, tuple[str, ...]]] = {}
    for name in names():
        for option in spec(name).options:
            first, games = out.get(option.name, (option, ()))
            out[option.name] = (first, (*games, name))
    return out


def check_options(game: str | None, given: dict[str, object]) -> dict[str, object]:
    """The options given on a command line for ``game`` (None: not given):
    refused with one line when the game takes no such option; returns those given.
    ``game`` None (not known yet) takes none."""
    taken = {o.name for o in spec(game).options} if game is not None else set()
    out = {}
    for key, value in given.items():
        if value is None or value is False:
            continue
        if key not in taken:
            games = all_options().get(key, (None, ()))[1]
            raise InputError(f"--{key} applies to {', '.join(games) or 'no game'}, not {game}")
        out[key] = value
    return out


__all__ = ["BUILTIN", "ENTRY_POINT_GROUP", "GameOption", "GameSpec", "all_options", "check_options",
           "config_spec", "names", "refresh", "spec"]
