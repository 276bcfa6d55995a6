"""Reading one table's records from the stream (``natsio.table_messages``,
what ``audit verify --anchor`` holds against the journal): one reader per
record kind, merged; a merge not in the table's own order is read again
from the stream's leader, whose order is the stream's (readers served by
two nodes of a cluster were seen to disagree on the numbering after a
leader kill)."""

from __future__ import annotations

import asyncio

import nats

from tablesim.studio import natsio, wire


def _msg(seq: int, msg_id: str | None, stream_seq: int | None = None) -> natsio.StreamMsg:
    return natsio.StreamMsg(stream_seq or seq, "tablesim.T.event", msg_id, b"")


def test_in_order_means_one_record_after_another_each_once():
    ids = lambda *seqs: [_msg(i, f"T:{s}") for i, s in enumerate(seqs, 1)]  # noqa: E731
    assert natsio._in_order("T", ids(1, 2, 3))
    assert natsio._in_order("T", ids(40, 41))  # (a stream that keeps only the latest records)
    assert natsio._in_order("T", [])
    assert not natsio._in_order("T", ids(1, 3, 2))
    assert not natsio._in_order("T", ids(1, 2, 2))
    assert not natsio._in_order("T", ids(1, 3))
    assert not natsio._in_order("T", [_msg(1, "T:1"), _msg(2, "U:2")])
    assert not natsio._in_order("T", [_msg(1, "T:1"), _msg(2, None)])


def _publish(url: str, order: list[tuple[int, str]]):
    async def go():
        nc = await nats.connect(url)
        js = nc.jetstream()
        await natsio.ensure_stream(js)
        for seq, kind in order:
            await js.publish(wire.record_subject("T", kind), b"%d" % seq, stream=wire.STREAM,
                             headers={wire.MSG_ID: wire.msg_id("T", seq)})
        await js.publish(wire.record_subject("OTHER", "event"), b"x", stream=wire.STREAM,
                         headers={wire.MSG_ID: wire.msg_id("OTHER", 1)})
        got = await natsio.table_messages(js, "T", {"input", "event", "operator"})
        leader = await natsio.leader_messages(js, "T", {"input", "event", "operator"})
        short = await natsio.leader_messages(js, "T", {"input", "event", "operator"}, limit=2)
        await nc.close()
        return got, leader, short
    return asyncio.run(go())


def test_a_table_read_in_stream_order_whether_in_its_own_or_not(nats_server):
    order = [(1, "input"), (2, "event"), (4, "event"), (3, "input"), (5, "operator")]  # 4 stored before 3
    got, leader, short = _publish(nats_server.url, order)
    assert [m.data for m in got] == [b"1", b"2", b"4", b"3", b"5"]  # the stream's order (from its leader)
    assert [(m.stream_seq, m.msg_id, m.subject) for m in got] == [
        (m.stream_seq, m.msg_id, m.subject) for m in leader]
    assert [m.stream_seq for m in got] == [1, 2, 3, 4, 5]
    assert short is None  # (more than the limit: the caller reads through a reader)


def test_a_table_in_order_is_read_through_readers(nats_server):
    got, leader, _ = _publish(nats_server.url, [(1, "input"), (2, "event"), (3, "event"), (4, "input")])
    assert [m.msg_id for m in got] == ["T:1", "T:2", "T:3", "T:4"] == [m.msg_id for m in leader]
