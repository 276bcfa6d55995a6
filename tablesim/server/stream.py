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
import time
from collections import deque
from typing import Any, Callable, Iterable

from tablecore.plain import jsonable
from tablesim.journal.store import now_stamp

#: how many events the ring buffer keeps for reconnecting clients
RING_SIZE = 4000
#: the most events one reconnect is sent from the journal before a "gap"
BACKFILL_LIMIT = 5000
#: a client this many messages behind is dropped (it reconnects with ``since``).
#: (Above the largest group of bets committed at once, ``intake.MAX_GROUP``: one
#: group's events arrive together.)
QUEUE_LIMIT = 10_000
#: what table snapshots may cost the clients together (bytes a second): a table of
#: thousands of bets is shown less often to hundreds of clients, its events at once
SNAPSHOT_BYTES_PER_SECOND = 64 << 20
#: the clients' writers are woken at most this often (seconds) while messages stream in
WAKE_EVERY = 0.02


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
    """One WebSocket client: where it is in the stream's shared log of
    messages (serialised once for every client) and what is meant for it
    alone (a pong). Its queue is the part of the log it has not sent yet,
    bounded by the stream's ``queue_limit``: a client that falls further
    behind (it does not read, or not fast enough) is dropped (``dropped``
    is set) and never waited for."""

    def __init__(self, stream: "EventStream", loop: asyncio.AbstractEventLoop, cursor: int) -> None:
        self.stream = stream
        self.loop = loop
        self.cursor = cursor  # the log's index of the next message to send
        self.private: deque[str] = deque()
        self.dropped = asyncio.Event()
        self.closed = False

    @property
    def overflowed(self) -> bool:
        return self.dropped.is_set()

    def take(self) -> list[tuple[str, int, str]] | None:
        """(The event loop) what is due to this client now, or None when nothing is."""
        stream = self.stream
        if self.private:
            out = [("", 0, text) for text in self.private]
            self.private.clear()
            return out
        if self.cursor < stream.log_start:
            self.dropped.set()
            return None
        if self.cursor >= stream.log_end:
            return None
        out = stream.log[self.cursor - stream.log_start:]
        self.cursor = stream.log_end
        return out

    def push(self, msg: dict) -> None:
        """A message for this client alone (e.g. a pong), from any thread."""
        text = wire_text(msg)

        def put() -> None:
            self.private.append(text)
            self.stream.poke()

        try:
            self.loop.call_soon_threadsafe(put)
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
        #: how far (messages) a client may fall behind before it is dropped
        self.queue_limit = QUEUE_LIMIT
        #: the messages of the last ``queue_limit`` or more, as sent: ``(type, seq, text)``
        #: (the event loop's: filled by the fan-out, read by every client's writer)
        self.log: list[tuple[str, int, str]] = []
        self.log_start = 0
        self.changed: asyncio.Event | None = None
        self._snapshot_next = 0.0
        self._woken, self._wake_due = 0.0, False
        self._snapshot_held: tuple[str, int, str] | None = None
        #: clients dropped for falling behind (since the start)
        self.dropped = 0

    @property
    def log_end(self) -> int:
        return self.log_start + len(self.log)

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
        """(The event loop) each message serialised once, into the shared log;
        every client's writer is woken once. The log keeps what the slowest
        client still may send; a client behind that is dropped."""
        if not self.subs:
            return
        for m in msgs:
            item = (m.get("type", ""), m.get("seq", 0), wire_text(m))
            if item[0] != "snapshot" or self._snapshot_due(item):
                self.log.append(item)
        self._trim()
        self.poke()

    def _snapshot_due(self, item: tuple[str, int, str]) -> bool:
        """Whether a table snapshot goes out now. A snapshot is the whole table
        (every bet on it) for every client: sent at most within
        ``SNAPSHOT_BYTES_PER_SECOND`` for all of them together; one held back
        follows as soon as that allows, replaced by any newer one meanwhile."""
        now = time.monotonic()
        if now >= self._snapshot_next and self._snapshot_held is None:
            self._snapshot_next = now + len(item[2]) * len(self.subs) / SNAPSHOT_BYTES_PER_SECOND
            return True
        if self._snapshot_held is None and self.loop is not None:
            self.loop.call_later(max(self._snapshot_next - now, 0.0), self._release_snapshot)
        self._snapshot_held = item
        return False

    def _release_snapshot(self) -> None:
        item, self._snapshot_held = self._snapshot_held, None
        if item is None or not self.subs:
            return
        self._snapshot_next = time.monotonic() + len(item[2]) * len(self.subs) / SNAPSHOT_BYTES_PER_SECOND
        self.log.append(item)
        self._trim()
        self.poke()

    def _trim(self) -> None:
        if len(self.log) > 2 * self.queue_limit:
            cut = len(self.log) - self.queue_limit
            del self.log[:cut]
            self.log_start += cut
            for sub in list(self.subs):
                if sub.cursor < self.log_start:
                    sub.dropped.set()

    def poke(self) -> None:
        """(The event loop) wake every client's writer: at once when the stream
        was quiet (a card reaches the consoles without delay), else at most
        every ``WAKE_EVERY`` (while bets stream in, each writer sends what
        came meanwhile in one go instead of waking for every group of bets)."""
        if self._wake_due:
            return
        wait = self._woken + WAKE_EVERY - time.monotonic()
        if wait <= 0 or self.loop is None:
            self._wake()
            return
        self._wake_due = True
        self.loop.call_later(wait, self._wake)

    def _wake(self) -> None:
        self._wake_due = False
        self._woken = time.monotonic()
        changed, self.changed = self.changed, asyncio.Event()
        if changed is not None:
            changed.set()

    def subscribe(self, loop: asyncio.AbstractEventLoop) -> tuple[Subscription, int]:
        """Register a client (on the event loop); returns it and the last
        sequence number already sent to others (what it may ask to be replayed)."""
        with self.lock:
            self.loop = loop
            if self.changed is None:
                self.changed = asyncio.Event()
            sub = Subscription(self, loop, self.log_end)
            self.subs.add(sub)
            return sub, self.last_seq

    def unsubscribe(self, sub: Subscription) -> None:
        sub.closed = True
        with self.lock:
            self.subs.discard(sub)
            if sub.dropped.is_set():
                self.dropped += 1
            if not self.subs:  # nobody left to send the log to
                self.log, self.log_start = [], self.log_end

    def from_ring(self, since: int, upto: int) -> tuple[list[dict], bool]:
        """Events with since < seq <= upto from the ring: (events, complete).
        Not complete when the ring no longer reaches back to ``since``."""
        with self.lock:
            events = [m for m in self.ring if since < m["seq"] <= upto]
            return events, since >= self.floor
