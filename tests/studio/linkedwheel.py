"""A broker made a studio (``tablesim studio init``) and a mock wheel table
with its journal, recovered: what the studio link's own tests start from."""

from __future__ import annotations

import contextlib

import pytest

import clirun
from natsserver import NATS_SERVER, NatsServer
from tablesim.games.rig import mock_rig
from tablesim.journal.attach import attach_and_recover


@contextlib.contextmanager
def wheel_on_a_broker(tmp_path, monkeypatch):
    """(the broker, the table); the broker stopped at the end."""
    if NATS_SERVER is None:
        pytest.skip("nats-server is not installed (Debian package nats-server): the studio needs a broker")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    server = NatsServer(tmp_path / "store").start()
    try:
        assert clirun.tablesim("studio", "init", "--nats", server.url).returncode == 0
        rig = mock_rig("wheel", seed=1)
        attach_and_recover(rig.table, str(tmp_path / "WHEEL-MOCK.journal.sqlite"))
        rig.after_recovery()
        yield server, rig.table
    finally:
        server.stop()
