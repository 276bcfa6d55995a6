"""Fixtures of the platform tests: a real nats-server, the reference wallet
as its own process, a real wheel table (``tablesim serve --mock --studio``)
publishing to the stream, and platform processes (``tablesim platform
serve``), each started by the test and stopped (or killed) by it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
for folder in ("studio", "wallet"):
    if str(HERE.parent / folder) not in sys.path:
        sys.path.insert(0, str(HERE.parent / folder))

from natsserver import NATS_SERVER, NatsServer  # noqa: E402

import rig as rigs  # noqa: E402


@pytest.fixture(autouse=True)
def _private_dirs(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))


@pytest.fixture(scope="module")
def _rig(tmp_path_factory):
    """One broker, wallet and table for a module's tests (starting a table is what takes time)."""
    if NATS_SERVER is None:
        pytest.skip("nats-server is not installed (Debian package nats-server)")
    folder = tmp_path_factory.mktemp("platform")
    with rigs.on_own_broker(folder, rigs.Rig) as r:
        yield r


@pytest.fixture
def rig(_rig):
    """The module's rig; the platforms a test starts are stopped after it."""
    yield _rig
    _rig.stop_platforms()


@pytest.fixture
def broker(tmp_path):
    """A nats-server of the test's own (no table, no wallet)."""
    server = NatsServer(tmp_path / "nats").start()
    yield server
    server.stop()
