"""The studio link says "up" only once the broker knows the subscriptions
its hooks made (the bus bets, the remote decisions): a platform's request
sent as soon as the table says up found no responder now and then under
load ("no responders available"), the subscription still in the client's
buffer."""

from __future__ import annotations

from linkedwheel import wheel_on_a_broker
from tablesim.studio import attach

from test_studio_resume import wait


def test_the_link_is_up_only_once_the_broker_has_its_hooks_subscriptions(tmp_path, monkeypatch):
    seen: list[str] = []
    with wheel_on_a_broker(tmp_path, monkeypatch) as (server, table):

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
