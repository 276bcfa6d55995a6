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

from tablecore import betbatch
from tablecore.plainjson import jsonable
from tablesim.journal.clock import now_stamp
from tablesim.server.fanout import EACH, FanOut, Subscription

#: how many events the ring buffer keeps for reconnecting clients
RING_SIZE = 4000
#: the most events one reconnect is sent from the journal before a "gap"
BACKFILL_LIMIT = 5000
#: a client of every bet this many messages behind is dropped (it reconnects with ``since``).
#: (Above the largest group of bets committed at once, ``intake.MAX_GROUP``: one
#: group's events arrive together.)
QUEUE_LIMIT = 10_000
#: a console or board this many messages behind is dropped (its bets come coalesced:
#: a busy betting window is some fifteen messages a second)
LIVE_QUEUE_LIMIT = 500
#: any client this many bytes behind is dropped (a few of the largest table snapshots)
QUEUE_BYTES = 8 << 20
#: what table snapshots may cost the clients together (bytes a second); a snapshot
#: holds the bet book only while it is small
SNAPSHOT_BYTES_PER_SECOND = 32 << 20
#: what a big bet book (thousands of bets, sent apart from the snapshot) may cost the
#: clients together: shown less often to hundreds of clients, its bets' totals at once
BOOK_BYTES_PER_SECOND = 2 << 20


def now_ts() -> str:
    return now_stamp()  # (the journal's record time text, made cheaply)


def event_message(seq: int, kind: str, round_id: str, data: dict[str, Any], ts: str | None = None) -> dict[str, Any]:
    return {"type": "event", "seq": seq, "kind": kind, "round_id": round_id, "ts": ts or now_ts(), "data": jsonable(data)}


def journal_events_since(journal, since: int, upto: int | None = None, limit: int = BACKFILL_LIMIT) -> tuple[list[dict], bool]:
    """Table events recorded in the journal after ``since`` (and up to ``upto``):
    (messages, complete). ``complete`` is False when more than ``limit`` exist."""
    from tablesim.journal.codec import decode

    records = list(journal.find(kind="event", after=since, upto=upto, limit=limit + 1))
    complete = len(records) <= limit
    records = records[:limit]
    # A group of bets is one input record: its bets go out as the bet events the table emitted
    # live for them (under the record's seq), up to where the events read reach.
    end = upto if complete else records[-1].seq
    groups = list(journal.find(kind=betbatch.KIND, names=(betbatch.NAME,), after=since, upto=end))
    out = [event_message(r.seq, r.name, r.round_id, decode(r.data), r.ts) for r in records]
    if groups:
        for rec in groups:
            out += [event_message(rec.seq, "bet", rec.round_id, betbatch.bet_event(e), rec.ts)
                    for e in rec.data.get("bets") or () if isinstance(e, list) and len(e) >= 5]
        out.sort(key=lambda m: m["seq"])
    return out, complete


def wire_text(msg: dict) -> str:
    """A message as it goes out on the WebSocket (as Starlette's ``send_json`` writes it)."""
    return json.dumps(msg, separators=(",", ":"), ensure_ascii=False)


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
        self.lock = threading.Lock()
        self.last_seq = start_seq
        #: every event with a larger seq than this is in the ring
        self.floor = start_seq
        self.redact = redact or (lambda m: m)
        self.loop: asyncio.AbstractEventLoop | None = None
        #: the clients' logs (the event loop's: filled by ``_fan_out``, read by every client's writer);
        #: the table's whole state for every client at a pace (snapshots, big bet books)
        self.fanout = FanOut(wire_text, limit=QUEUE_LIMIT, byte_limit=QUEUE_BYTES, live_limit=LIVE_QUEUE_LIMIT,
                             live_byte_limit=QUEUE_BYTES,
                             paced={"snapshot": SNAPSHOT_BYTES_PER_SECOND, "book": BOOK_BYTES_PER_SECOND})
        self._clients = 0  # (under the lock: what the table's thread may read)
        #: clients dropped for falling behind (since the start)
        self.dropped = 0

    @property
    def subs(self) -> set[Subscription]:
        """(The event loop) the clients connected."""
        return self.fanout.subs

    @property
    def queue_limit(self) -> int:
        """How far (messages) a client of every bet may fall behind before it is dropped."""
        return self.fanout.logs[EACH].limit

    @queue_limit.setter
    def queue_limit(self, value: int) -> None:
        self.fanout.logs[EACH].limit = value

    def publish(self, msg: dict) -> None:
        """Send a message to every client; events are kept for reconnects."""
        self.publish_all((msg,))

    def publish_all(self, msgs: Iterable[dict], book: dict | None = None) -> None:
        """Keep the events for reconnects and hand the messages to the clients:
        one call onto the event loop for all of them, whatever the number of
        clients (the caller, often the table's thread, never waits for one).
        ``book``: with bet events, the totals they leave on their spots
        (``BetTally.add_book``)."""
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
            loop = self.loop if self._clients else None
        if loop is None or not out:
            return
        try:
            loop.call_soon_threadsafe(self._fan_out, out, book)
        except RuntimeError:  # the loop is closed: nobody is listening any more
            pass

    def _fan_out(self, msgs: list[dict], book: dict | None = None) -> None:
        """(The event loop) each message serialised once, into the logs of the
        clients that get it; every client's writer is woken once."""
        if self.fanout.clients:
            self.fanout.add(msgs, book)

    def subscribe(self, loop: asyncio.AbstractEventLoop, each: bool = False) -> tuple[Subscription, int]:
        """Register a client (on the event loop); returns it and the last
        sequence number already sent to others (what it may ask to be replayed).
        ``each``: it gets every bet event, not the coalesced ``bets`` messages."""
        with self.lock:
            self.loop = loop
            sub = self.fanout.subscribe(loop, each)
            self._clients += 1
            return sub, self.last_seq

    def unsubscribe(self, sub: Subscription) -> None:
        sub.closed = True
        with self.lock:
            if sub not in sub.log.subs:
                return  # (already gone)
            self.fanout.unsubscribe(sub)
            self._clients -= 1
            if sub.dropped.is_set():
                self.dropped += 1

    def from_ring(self, since: int, upto: int) -> tuple[list[dict], bool]:
        """Events with since < seq <= upto from the ring: (events, complete).
        Not complete when the ring no longer reaches back to ``since``."""
        with self.lock:
            events = [m for m in self.ring if since < m["seq"] <= upto]
            return events, since >= self.floor
