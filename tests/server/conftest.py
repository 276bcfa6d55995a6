"""Fixtures for the server tests: a mock table served on a free port of
127.0.0.1, with a journal in the test's directory, and an HTTP client."""

from __future__ import annotations

import os
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest

from tablesim.journal.attach import attach_and_recover
from tablesim.server.process import ServerThread
from tablesim.server.auth import TokenStore
from tablesim.harness.devicetables import emulated_table
from tablesim.games.rig import mock_rig
from tablesim.server.runner import TableRunner

from server_helpers import PACE, Served
import webclient


@pytest.fixture
def serve(tmp_path: Path):
    """``serve(game, journal=True, seed=7, **runner_options) -> Served``; stopped at the end."""
    started: list[Served] = []

    def start(game: str, *, journal: bool | str = True, seed: int = 7, pace: float = PACE,
              bet_seconds: float | None = None, tokens: TokenStore | None = None, **mock) -> Served:
        rig = mock_rig(game, seed=seed, profile=mock.pop("profile", None), options=mock)
        table = rig.table
        path = None
        if journal:
            path = Path(journal) if isinstance(journal, str) else tmp_path / f"{game}.journal.sqlite"
            report = attach_and_recover(table, str(path))
        else:
            report = None
        rig.after_recovery()
        tokens = tokens or TokenStore.generate()
        runner = TableRunner(table, rig=rig, pace=pace, bet_seconds=bet_seconds, recovery=report)
        server = ServerThread(runner, tokens).start()
        served = Served(server, runner, tokens, path, webclient.client(base_url=server.url, timeout=10))
        started.append(served)
        return served

    yield start
    for s in started:
        s.client.close()
        s.server.stop()
        if s.table.journal is not None:
            s.table.journal.close()


@pytest.fixture
def env(tmp_path):
    """The environment of a `tablesim serve` process (see server_process.Serve)."""
    return {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "PYTHONUNBUFFERED": "1", "COLUMNS": "200"}


@pytest.fixture
def emulated(tmp_path: Path):
    """``emulated(game, faults=(), seed=11, dealing=None, decks=None, journal=True) -> Served``."""
    stacks: list[ExitStack] = []

    def start(game: str, *, faults=(), seed: int = 11, dealing=None, decks=None, journal: bool = True,
              time_scale: float = 0.0) -> Served:
        stack = ExitStack()
        stacks.append(stack)
        built = emulated_table(stack, game, seed=seed, time_scale=time_scale, faults=faults, dealing=dealing,
                               decks=decks)
        table = built.table
        path = tmp_path / f"{game}.journal.sqlite" if journal else None
        report = attach_and_recover(table, str(path)) if path else None
        if table.journal is not None:
            stack.callback(table.journal.close)
        tokens = TokenStore.generate("emulated")
        runner = TableRunner(table, recovery=report)  # no rig: the devices report as they do
        server = ServerThread(runner, tokens).start()
        stack.callback(server.stop)
        client = webclient.client(base_url=server.url, timeout=10)
        stack.callback(client.close)
        return Served(server, runner, tokens, path, client)

    yield start
    for stack in reversed(stacks):
        stack.close()
