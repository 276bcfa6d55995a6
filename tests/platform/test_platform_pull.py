"""The platform's pull reader (``tablesim.platform.pull``) on a real
nats-server: every message once, in stream order, in the groups they came
in; caught up said when the stream has no more; a consumer deleted under
it, or a broker gone, is ``Lost`` (the caller makes its consumer again)."""

from __future__ import annotations

import asyncio
import json

import nats
import pytest
from nats.js import api

from natsserver import NATS_SERVER
from tablesim.platform.pull import Lost, Pull, make_consumer, pending_of, stream_seq_of

pytestmark = pytest.mark.skipif(NATS_SERVER is None, reason="nats-server is not installed")


async def _stream(url: str, messages: int):
    nc = await nats.connect(url)
    js = nc.jetstream()
    await js.add_stream(name="S", subjects=["s.*"])
    for i in range(messages):
        await js.publish("s.a" if i % 2 else "s.b", str(i).encode())
    return nc, js


def test_every_message_once_in_order_then_caught_up(broker):
    async def go():
        nc, js = await _stream(broker.url, 250)
        seen, groups, idle = [], [], asyncio.Event()

        async def handle(msgs):
            groups.append(len(msgs))
            seen.extend((stream_seq_of(m), m.data.decode(), pending_of(m)) for m in msgs)

        name = await make_consumer(js, "S", api.ConsumerConfig(ack_policy=api.AckPolicy.NONE,
                                                                inactive_threshold=30.0))
        reader = asyncio.ensure_future(Pull(nc, "S", name, handle, batch=100, heartbeat=0.5,
                                            idle=idle.set).run())
        try:
            await asyncio.wait_for(idle.wait(), 10)
            while len(seen) < 250:
                await asyncio.sleep(0.05)
            for i in range(250, 260):  # published while it reads: delivered on the open request
                await js.publish("s.a", str(i).encode())
            while len(seen) < 260:
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.3)
        finally:
            reader.cancel()
            await nc.close()
        assert [s for s, _, _ in seen] == list(range(1, 261))  # once each, in stream order
        assert [d for _, d, _ in seen] == [str(i) for i in range(260)]
        assert seen[249][2] == 0 and seen[0][2] == 249  # pending counts down to caught up
        assert max(groups) <= 100 and len(groups) < 260  # in groups, never past a request's batch

    asyncio.run(go())


def test_a_durable_consumer_gives_the_next_reader_what_was_not_acked(broker):
    async def go():
        nc, js = await _stream(broker.url, 30)
        config = lambda: api.ConsumerConfig(durable_name="D", ack_policy=api.AckPolicy.EXPLICIT,  # noqa: E731
                                            ack_wait=1.0, max_ack_pending=-1)
        got, again = [], []

        async def take(msgs):
            for m in msgs:
                got.append(int(m.data))
                if int(m.data) < 20:  # the rest taken but never acked (a process killed): redelivered
                    await m.ack()

        async def take_again(msgs):
            again.extend(int(m.data) for m in msgs)

        name = await make_consumer(js, "S", config())
        first = asyncio.ensure_future(Pull(nc, "S", name, take, batch=7, heartbeat=0.5).run())
        while len(got) < 30:
            await asyncio.sleep(0.05)
        first.cancel()
        await nc.close()
        nc = await nats.connect(broker.url)
        js = nc.jetstream()
        assert await make_consumer(js, "S", config()) == "D"  # found, not made again
        second = asyncio.ensure_future(Pull(nc, "S", "D", take_again, batch=7, heartbeat=0.5).run())
        try:
            for _ in range(100):
                if len(again) >= 10:
                    break
                await asyncio.sleep(0.1)
            await asyncio.sleep(0.3)
        finally:
            second.cancel()
            await nc.close()
        assert got == list(range(30))
        assert sorted(again) == list(range(20, 30))  # the unacked ones only, each once

    asyncio.run(go())


async def _lost_after(broker, cut, match: str, expires: float = 5.0) -> None:
    """A reader of an ephemeral consumer raises ``Lost`` (``match``) once ``cut(js, name)`` ran."""
    nc, js = await _stream(broker.url, 5)
    name = await make_consumer(js, "S", api.ConsumerConfig(ack_policy=api.AckPolicy.NONE, inactive_threshold=30.0))

    async def handle(msgs):
        pass

    reader = asyncio.ensure_future(Pull(nc, "S", name, handle, batch=10, expires=expires, heartbeat=0.2).run())
    await asyncio.sleep(0.5)
    await cut(js, name)
    try:
        with pytest.raises(Lost, match=match):
            await asyncio.wait_for(reader, 10)
    finally:
        await nc.close()


def test_a_consumer_deleted_under_the_reader_is_lost(broker):
    asyncio.run(_lost_after(broker, lambda js, name: js.delete_consumer("S", name), "consumer", expires=0.5))


def test_a_broker_gone_is_lost_not_a_reader_waiting_for_ever(broker):
    async def kill(js, name):
        broker.kill()

    asyncio.run(_lost_after(broker, kill, "nothing heard"))


@pytest.mark.parametrize("stolen", [2, 5], ids=["a-later-delivery-jumps", "a-heartbeat-says-more-was-handed"])
def test_deliveries_that_never_arrived_are_lost_not_skipped(broker, stolen):
    """Deliveries handed to a connection that died never come again on a
    consumer without acks: the reader must not go on past them (the
    platform's picture would miss a round's result, and its players their
    settlement). Another requester takes them here, as a dead connection
    would; the reader sees the consumer's sequence jump, or a heartbeat
    naming a later delivery than its last, and is lost (made again from
    where its owner stands)."""
    async def go():
        nc, js = await _stream(broker.url, 5)
        name = await make_consumer(js, "S", api.ConsumerConfig(ack_policy=api.AckPolicy.NONE,
                                                                inactive_threshold=30.0))
        taken = []
        inbox = nc.new_inbox()

        async def steal(msg):
            if not msg.headers:  # (a status: no message)
                taken.append(msg)
        await nc.subscribe(inbox, cb=steal)
        await nc.publish(f"$JS.API.CONSUMER.MSG.NEXT.S.{name}", json.dumps({"batch": stolen}).encode(), reply=inbox)
        for _ in range(100):
            if len(taken) == stolen:
                break
            await asyncio.sleep(0.05)
        assert [m.metadata.sequence.consumer for m in taken] == list(range(1, stolen + 1))
        got = []

        async def handle(msgs):
            got.extend(stream_seq_of(m) for m in msgs)

        reader = asyncio.ensure_future(Pull(nc, "S", name, handle, batch=10, heartbeat=0.2, own=True).run())
        try:
            with pytest.raises(Lost, match=f"deliveries 1 to {stolen} never arrived"):
                await asyncio.wait_for(reader, 10)
        finally:
            await nc.close()
        assert got == []  # nothing past the lost ones handed on

    asyncio.run(go())


def test_a_consumer_made_before_starts_where_it_stands(broker):
    """A durable consumer read before (its sequence well past 1) is no loss for the next reader."""
    async def go():
        nc, js = await _stream(broker.url, 6)
        config = api.ConsumerConfig(durable_name="D", ack_policy=api.AckPolicy.EXPLICIT, max_ack_pending=-1)
        name = await make_consumer(js, "S", config)
        before = await js.pull_subscribe_bind(name, "S")
        for m in await before.fetch(3, timeout=5):
            await m.ack()
        got = []

        async def handle(msgs):
            got.extend(stream_seq_of(m) for m in msgs)

        reader = asyncio.ensure_future(Pull(nc, "S", name, handle, batch=10, heartbeat=0.2).run())
        try:
            for _ in range(50):
                if len(got) >= 3:
                    break
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.6)  # (heartbeats come: they name the last delivery, the one received)
            assert not reader.done(), reader
        finally:
            reader.cancel()
            await nc.close()
        assert got == [4, 5, 6]

    asyncio.run(go())


def test_readers_sharing_a_durable_consumer_take_turns_and_are_never_lost(broker):
    """Settlement's durable consumer is read by every platform process: each
    reader sees the consumer's numbers jump over what the others took, and
    heartbeats naming their deliveries. That is no loss (what is not
    acknowledged comes again): no reader gives up, none leaves a message it
    was handed unhandled, and every message is acknowledged once, by one of
    them. (A reader that counted the others' deliveries as lost dropped
    what it was handed and started again, for ever: the messages went round
    unacknowledged and a round was never settled.)"""
    async def go():
        nc, js = await _stream(broker.url, 0)
        config = api.ConsumerConfig(durable_name="D", ack_policy=api.AckPolicy.EXPLICIT, max_ack_pending=-1,
                                    ack_wait=2.0)
        name = await make_consumer(js, "S", config)
        others = [await nats.connect(broker.url) for _ in range(2)]
        acked: list[list[int]] = [[], []]

        def taker(i):
            async def take(msgs):
                for m in msgs:
                    acked[i].append(int(m.data))
                    await m.ack()
            return take
        readers = [asyncio.ensure_future(Pull(c, "S", name, taker(i), batch=3, heartbeat=0.2).run())
                   for i, c in enumerate(others)]
        try:
            for i in range(120):
                await js.publish("s.a", str(i).encode())
                if i % 10 == 0:
                    await asyncio.sleep(0.05)
            for _ in range(100):
                if len(acked[0]) + len(acked[1]) >= 120:
                    break
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.6)  # (heartbeats name deliveries the other reader took)
            assert not any(r.done() for r in readers), [r for r in readers if r.done()]
        finally:
            for r in readers:
                r.cancel()
            for c in others:
                await c.close()
            await nc.close()
        assert sorted(acked[0] + acked[1]) == list(range(120))
        assert acked[0] and acked[1]  # (both took turns: the case under test)

    asyncio.run(go())
