"""Fixtures of the studio tests: a real nats-server per test (skipped, with
the reason, only where the Debian package is not installed), and private
data directories."""

from __future__ import annotations

import pytest

from natsserver import NATS_SERVER, NatsServer


@pytest.fixture(autouse=True)
def _private_dirs(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))


@pytest.fixture
def nats_server(tmp_path):
    if NATS_SERVER is None:
        pytest.skip("nats-server is not installed (Debian package nats-server): the studio needs a broker")
    server = NatsServer(tmp_path / "nats-store").start()
    yield server
    server.stop()
