"""The live event stream: every table event as JSON, a ring buffer for
clients that reconnect, and the journal behind it.

Sequence numbers: with a journal, an event's ``seq`` is the journal record
that holds it, so numbers stay valid across server restarts and a client
that missed more than the ring buffer holds is filled from the journal.
Without a journal the table's own event counter is used and the stream id
changes with every start (a client that comes back to a restarted server is
told to reset).

Events are published only after the action that caused them returned (its
journal transaction committed): a refused or failed action never shows up
on the stream.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections import deque
from typing import Any, Callable, Iterable

from tablecore.plain import jsonable
from tablesim.journal.store import now_stamp

#: how many events the ring buffer keeps for reconnecting clients
RING_SIZE = 4000
#: the most events one reconnect is sent from the journal before a "gap"
BACKFILL_LIMIT = 5000
#: a client this far behind is dropped (it reconnects with ``since``)
QUEUE_LIMIT = 2000


def now_ts() -> str:
    return now_stamp()  # (the journal's record time text, made cheaply)


def event_message(seq: int, kind: str, round_id: str, data: dict[str, Any], ts: str | None = None) -> dict[str, Any]:
    return {"type": "event", "seq": seq, "kind": kind, "round_id": round_id, "ts": ts or now_ts(), "data": jsonable(data)}


def journal_events_since(journal, since: int, upto: int | None = None, limit: int = BACKFILL_LIMIT) -> tuple[list[dict], bool]:
    """Table events recorded in the journal after ``since`` (and up to ``upto``):
    (messages, complete). ``complete`` is False when more than ``limit`` exist."""
    from tablesim.journal.codec import decode

    sql = "SELECT seq, ts, round_id, name, data FROM records WHERE kind = 'event' AND seq > ?"
    params: list[Any] = [since]
    if upto is not None:
        sql += " AND seq <= ?"
        params.append(upto)
    sql += " ORDER BY seq LIMIT ?"
    params.append(limit + 1)
    rows = journal.db.execute(sql, params).fetchall()
    complete = len(rows) <= limit
    out = [event_message(seq, name, rid, decode(json.loads(data)), ts) for seq, ts, rid, name, data in rows[:limit]]
    return out, complete


class Subscription:
    """One WebSocket client's queue, fed from the table's thread."""

    def __init__(self, loop: asyncio.AbstractEventLoop, limit: int = QUEUE_LIMIT) -> None:
        self.loop = loop
        self.queue: asyncio.Queue[dict] = asyncio.Queue()
        self.limit = limit
        self.overflowed = False
        self.closed = False

    def push(self, msg: dict) -> None:
        """Called from any thread."""
        if self.closed:
            return
        try:
            self.loop.call_soon_threadsafe(self._put, msg)
        except RuntimeError:  # the loop is closed: the client is gone
            self.closed = True

    def _put(self, msg: dict) -> None:
        if self.queue.qsize() >= self.limit:
            self.overflowed = True
            return
        self.queue.put_nowait(msg)


class EventStream:
    def __init__(
        self,
        stream_id: str,
        *,
        start_seq: int = 0,
        ring_size: int = RING_SIZE,
        redact: Callable[[dict], dict] | None = None,
    ) -> None:
        self.stream_id = stream_id
        self.ring: deque[dict] = deque(maxlen=ring_size)
        self.subs: set[Subscription] = set()
        self.lock = threading.Lock()
        self.last_seq = start_seq
        #: every event with a larger seq than this is in the ring
        self.floor = start_seq
        self.redact = redact or (lambda m: m)

    def publish(self, msg: dict) -> None:
        """Send a message to every client; events are kept for reconnects."""
        if msg.get("type") == "event":
            msg = self.redact(msg)
        with self.lock:
            if msg.get("type") == "event":
                if len(self.ring) == self.ring.maxlen:
                    self.floor = self.ring[0]["seq"]
                self.ring.append(msg)
                self.last_seq = max(self.last_seq, msg["seq"])
            subs = list(self.subs)
        for sub in subs:
            sub.push(msg)

    def publish_all(self, msgs: Iterable[dict]) -> None:
        for m in msgs:
            self.publish(m)

    def subscribe(self, loop: asyncio.AbstractEventLoop) -> tuple[Subscription, int]:
        """Register a client; returns it and the last sequence number already sent
        to others (what it may ask to be replayed)."""
        sub = Subscription(loop)
        with self.lock:
            self.subs.add(sub)
            return sub, self.last_seq

    def unsubscribe(self, sub: Subscription) -> None:
        sub.closed = True
        with self.lock:
            self.subs.discard(sub)

    def from_ring(self, since: int, upto: int) -> tuple[list[dict], bool]:
        """Events with since < seq <= upto from the ring: (events, complete).
        Not complete when the ring no longer reaches back to ``since``."""
        with self.lock:
            events = [m for m in self.ring if since < m["seq"] <= upto]
            return events, since >= self.floor
