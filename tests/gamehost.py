"""The test suite's own games (the coin toss in ``toygame/``, the card game in
``cardgame/``), registered as an installed package's would be: each folder
holds the game's package and a ``site/`` with its ``dist-info``, whose one
entry point (group ``tablesim.games``) names the game's spec. Put both on
the path and the registry finds the game; nothing of tablesim names it.

``served_game`` serves one of them on mock devices on 127.0.0.1 (the
console and its API, as ``tablesim serve --game NAME --mock`` does),
in this process, for a page test."""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import httpx

TESTS = Path(__file__).resolve().parent
#: each test game: the folder that holds its package and its ``site/``
FOLDERS = {"coin": TESTS / "toygame", "baccarette": TESTS / "cardgame"}


def option_refusal(option: str, game: str) -> str:
    """The one line a command gives for ``--option`` on a game that does not
    take it, naming the registered games that do (asked of the registry: a
    new game that declares the option changes it)."""
    from tablesim.games import registry

    takers = registry.all_options().get(option, (None, ()))[1]
    return f"--{option} applies to {', '.join(takers) or 'no game'}, not {game}"


def paths(game: str) -> list[Path]:
    """What goes on the path (``sys.path``, ``PYTHONPATH``) for ``game`` to be registered."""
    folder = FOLDERS[game]
    return [folder, folder / "site"]


def pythonpath(*games: str) -> str:
    """A ``PYTHONPATH`` with ``games`` registered (for a ``tablesim`` process)."""
    found = [str(p) for g in games for p in paths(g)]
    return os.pathsep.join([*found, os.environ.get("PYTHONPATH", "")])


def register(monkeypatch, *games: str) -> None:
    """Register ``games`` in this process until the test ends (``monkeypatch``
    takes the path back; call ``registry.refresh()`` after it, see ``served_game``)."""
    from tablesim.games import registry

    for game in games:
        for p in reversed(paths(game)):
            monkeypatch.syspath_prepend(str(p))
    registry.refresh()


class Served:
    def __init__(self, server, runner, tokens) -> None:
        self.server, self.runner, self.tokens = server, runner, tokens
        self.url = server.url
        self.client = httpx.Client(base_url=self.url, timeout=10)

    @property
    def dealer(self) -> str:
        return self.tokens.first("dealer")[0]

    def state(self) -> dict:
        return self.client.get("/api/table").json()


@contextmanager
def served_game(monkeypatch, game: str, *, seed: int = 7, pace: float = 0.02, serve: bool = True) -> Iterator:
    """``game`` on mock devices, served (a :class:`Served`), or only its mock rig (``serve=False``)."""
    from tablesim.games import registry
    from tablesim.games.rig import mock_rig

    register(monkeypatch, game)
    try:
        rig = mock_rig(game, seed=seed)
        if not serve:
            yield rig
            return
        from tablesim.server.auth import TokenStore
        from tablesim.server.process import ServerThread
        from tablesim.server.runner import TableRunner

        tokens = TokenStore.generate()
        runner = TableRunner(rig.table, rig=rig, pace=pace)
        server = ServerThread(runner, tokens).start()
        served = Served(server, runner, tokens)
        try:
            yield served
        finally:
            served.client.close()
            server.stop()
    finally:
        registry.refresh()
