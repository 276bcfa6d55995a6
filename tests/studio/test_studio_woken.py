"""The studio link publishes a table's records as soon as they are
committed: it is woken by the journal's commit, not by the table's events
(which come before their commit: woken by them, the outbox looked, found
nothing committed yet and slept its idle wait, and a round's records
reached the bus 100-250 ms late). Here the idle wait is made a minute long:
only the commit's wake can bring the records in time."""

from __future__ import annotations

import pytest

import clirun
from natsserver import NATS_SERVER, NatsServer
from tablesim.journal.attach import attach_and_recover
from tablesim.games.rig import mock_rig
from tablesim.studio import attach, outbox

from test_studio_resume import wait


def test_each_committed_action_goes_out_without_waiting_for_the_idle_wait(tmp_path, monkeypatch):
    if NATS_SERVER is None:
        pytest.skip("nats-server is not installed (Debian package nats-server): the studio needs a broker")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    server = NatsServer(tmp_path / "store").start()
    try:
        assert clirun.tablesim("studio", "init", "--nats", server.url).returncode == 0
        rig = mock_rig("wheel", seed=1)
        table = rig.table
        attach_and_recover(table, str(tmp_path / "WHEEL-MOCK.journal.sqlite"))
        rig.after_recovery()
        monkeypatch.setattr(outbox, "IDLE_WAIT", 60.0)
        link = attach.start_link(table, server.url)
        try:
            assert wait(lambda: link.state == "up", 60), link.status()
            assert wait(lambda: link.pending() == 0 and link.published == table.journal.seq, 10), link.status()
            for action in (table.open_round, table.close_betting):
                action()
                # (generous: a loaded machine; the idle wait alone would be a minute)
                assert wait(lambda: link.published == table.journal.seq, 20), (action.__name__, link.status())
        finally:
            attach.stop_link(link)
            table.journal.close()
    finally:
        server.stop()
