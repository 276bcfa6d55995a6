"""The fault runs' tables (scripts/fault_procs.py) on a machine running
other programs: a port chosen free and taken by another program before the
table binds it is not taken for the table's."""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import fault_procs  # noqa: E402
import pytest  # noqa: E402

pytestmark = pytest.mark.soak  # (the harness of the soak tier's fault runs, tested with them)


def test_a_port_taken_before_the_table_binds_it_is_exchanged_and_a_stranger_never_counts(tmp_path):
    stranger = socket.socket()
    stranger.bind(("127.0.0.1", 0))
    stranger.listen()
    taken = stranger.getsockname()[1]
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "xdg")}
    table = fault_procs.Table(tmp_path, env, "wheel", "PORT-T1", "nats://127.0.0.1:1", seed=1)
    table.port, table.base = taken, f"http://127.0.0.1:{taken}"
    try:
        table.start(budget=120)
        assert table.port != taken and table.starts == 2
        assert table.ready() and table.state()["table_id"] == "PORT-T1"
    finally:
        table.stop()
        stranger.close()
