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
#: a client this far behind is dropped (it reconnects with ``since``): messages, and bytes.
#: (Above the largest group of bets committed at once, ``intake.MAX_GROUP``: one
#: group's events arrive together.)
QUEUE_LIMIT = 10_000
QUEUE_BYTES = 32 << 20


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


def wire_text(msg: dict) -> str:
    """A message as it goes out on the WebSocket (as Starlette's ``send_json`` writes it)."""
    return json.dumps(msg, separators=(",", ":"), ensure_ascii=False)


class Subscription:
    """One WebSocket client's bounded queue of messages already serialised
    (``(type, seq, text)``), filled on the event loop by the stream's
    fan-out and emptied by the client's own writer. A client whose queue is
    full (it does not read, or not fast enough) is dropped: ``dropped`` is
    set, its queue emptied, and it is never waited for."""

    def __init__(self, loop: asyncio.AbstractEventLoop, limit: int = QUEUE_LIMIT,
                 max_bytes: int = QUEUE_BYTES) -> None:
        self.loop = loop
        self.items: deque[tuple[str, int, str]] = deque()
        self.size = 0
        self.limit, self.max_bytes = limit, max_bytes
        self.ready = asyncio.Event()  # something to send (or the client is dropped)
        self.dropped = asyncio.Event()
        self.closed = False

    @property
    def overflowed(self) -> bool:
        return self.dropped.is_set()

    def offer(self, item: tuple[str, int, str]) -> None:
        """(The event loop) queue one message; a full queue drops the client."""
        if self.closed or self.dropped.is_set():
            return
        if len(self.items) >= self.limit or self.size + len(item[2]) > self.max_bytes:
            self.items.clear()
            self.size = 0
            self.dropped.set()
            self.ready.set()
            return
        self.items.append(item)
        self.size += len(item[2])
        self.ready.set()

    def take(self) -> tuple[str, int, str] | None:
        if not self.items:
            self.ready.clear()
            return None
        item = self.items.popleft()
        self.size -= len(item[2])
        return item

    def push(self, msg: dict) -> None:
        """A message for this client alone (e.g. a pong), from any thread."""
        item = (msg.get("type", ""), msg.get("seq", 0), wire_text(msg))
        try:
            self.loop.call_soon_threadsafe(self.offer, item)
        except RuntimeError:  # the loop is closed: the client is gone
            self.closed = True


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
        self.loop: asyncio.AbstractEventLoop | None = None
        #: each client's queue bound (messages, bytes)
        self.queue_limit, self.queue_bytes = QUEUE_LIMIT, QUEUE_BYTES
        #: clients dropped for falling behind (since the start)
        self.dropped = 0

    def publish(self, msg: dict) -> None:
        """Send a message to every client; events are kept for reconnects."""
        self.publish_all((msg,))

    def publish_all(self, msgs: Iterable[dict]) -> None:
        """Keep the events for reconnects and hand the messages to the clients:
        one call onto the event loop for all of them, whatever the number of
        clients (the caller, often the table's thread, never waits for one)."""
        out = []
        with self.lock:
            for msg in msgs:
                if msg.get("type") == "event":
                    msg = self.redact(msg)
                    if len(self.ring) == self.ring.maxlen:
                        self.floor = self.ring[0]["seq"]
                    self.ring.append(msg)
                    self.last_seq = max(self.last_seq, msg["seq"])
                out.append(msg)
            loop = self.loop if self.subs else None
        if loop is None or not out:
            return
        try:
            loop.call_soon_threadsafe(self._fan_out, out)
        except RuntimeError:  # the loop is closed: nobody is listening any more
            pass

    def _fan_out(self, msgs: list[dict]) -> None:
        """(The event loop) each message serialised once, queued for every client."""
        subs = list(self.subs)
        if not subs:
            return
        for msg in msgs:
            item = (msg.get("type", ""), msg.get("seq", 0), wire_text(msg))
            for sub in subs:
                sub.offer(item)

    def subscribe(self, loop: asyncio.AbstractEventLoop) -> tuple[Subscription, int]:
        """Register a client (on the event loop); returns it and the last
        sequence number already sent to others (what it may ask to be replayed)."""
        sub = Subscription(loop, self.queue_limit, self.queue_bytes)
        with self.lock:
            self.loop = loop
            self.subs.add(sub)
            return sub, self.last_seq

    def unsubscribe(self, sub: Subscription) -> None:
        sub.closed = True
        with self.lock:
            self.subs.discard(sub)
            if sub.dropped.is_set():
                self.dropped += 1

    def from_ring(self, since: int, upto: int) -> tuple[list[dict], bool]:
        """Events with since < seq <= upto from the ring: (events, complete).
        Not complete when the ring no longer reaches back to ``since``."""
        with self.lock:
            events = [m for m in self.ring if since < m["seq"] <= upto]
            return events, since >= self.floor
