"""The studio link says "up" only once the broker knows the subscriptions
its hooks made (the bus bets, the remote decisions): a platform's request
sent as soon as the table says up found no responder now and then under
load ("no responders available"), the subscription still in the client's
buffer."""

from __future__ import annotations

import pytest

import clirun
from natsserver import NATS_SERVER, NatsServer
from tablesim.journal.attach import attach_and_recover
from tablesim.games.rig import mock_rig
from tablesim.studio import attach

from test_studio_resume import wait


def test_the_link_is_up_only_once_the_broker_has_its_hooks_subscriptions(tmp_path, monkeypatch):
    if NATS_SERVER is None:
        pytest.skip("nats-server is not installed (Debian package nats-server): the studio needs a broker")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    server = NatsServer(tmp_path / "store").start()
    seen: list[str] = []
    try:
        assert clirun.tablesim("studio", "init", "--nats", server.url).returncode == 0
        rig = mock_rig("wheel", seed=1)
        table = rig.table
        attach_and_recover(table, str(tmp_path / "WHEEL-MOCK.journal.sqlite"))
        rig.after_recovery()

        async def hook(nc):
            flush = nc.flush

            async def flushed(*args, **kwargs):
                seen.append(f"flush while {link.state}")
                return await flush(*args, **kwargs)

            nc.flush = flushed  # (this connection's: what the link asks of it after the hooks)
            async def took(msg):
                pass

            await nc.subscribe("tablesim.test.hooked", cb=took)
            seen.append("subscribed")

        link = attach.start_link(table, server.url, hooks=[hook])
        try:
            assert wait(lambda: link.state == "up", 60), link.status()
            # the subscription, then a round trip to the broker, then "up"
            assert seen[0] == "subscribed" and seen[1].startswith("flush while ") and seen[1] != "flush while up", seen
        finally:
            attach.stop_link(link)
            table.journal.close()
    finally:
        server.stop()
