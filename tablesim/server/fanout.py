"""The stream's fan-out to its WebSocket clients: shared logs of messages
serialised once, a cursor per client into one of them, and the bets of a
betting window coalesced for the consoles and boards.

Two logs, one per kind of client:

- ``live`` (consoles, boards: the default): every message except the single
  bet events; the bets placed meanwhile come as one ``bets`` message at most
  every ``COALESCE_EVERY`` (how many, and the totals of the spots they
  changed). Thousands of bets a second cost each client ten small frames.
- ``each`` (``bets=each``: a client that needs every bet): every message.

A client's queue is the part of its log it has not sent yet. A log keeps at
most its ``limit`` messages and ``byte_limit`` bytes (twice that before it
is cut): a client further behind (it does not read, or not fast enough) is
dropped, never waited for. Everything here runs on the event loop, except
``Subscription.push``.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from typing import Any, Callable

from tablesim.web.wsframes import Wire, text_frame

#: the clients' writers are woken at most this often (seconds) while messages stream in: every
#: bet for the ``each`` clients; for the live ones, whose bets are coalesced, far less often than
#: a shoe deals (a card every 20 ms and more): a wake-up put off by the message that followed a
#: card (its snapshot) held the next card back by up to the whole wait (card to console p50 went
#: from 2.7 to 13.7 ms with 20 ms here)
WAKE_EVERY = {"each": 0.02, "live": 0.004}
#: the bets placed meanwhile go to the live clients at most this often (seconds), with
#: the next snapshot if it comes first (the runner's, at most every 0.25 s while bets stream in)
COALESCE_EVERY = 0.3
#: a ``bets`` message names the spots of at most this many positions (more: the snapshot shows them)
SPOTS_MAX = 64
#: an event longer than this (bytes) goes to the live clients abridged (``abridged``)
BIG_EVENT = 64 << 10
#: a client whose connection holds this many bytes it could not send yet is written to no
#: more until it drains (its place in the log waits; the log drops it when too far behind)
PAUSE_AT = 256 << 10
#: the event kinds the live clients get coalesced
BET_KINDS = frozenset({"bet", "bet_withdrawn"})
#: the two kinds of client
LIVE, EACH = "live", "each"

Item = tuple[str, int, str]  # (message type, seq, text as sent)


class SharedLog:
    """Messages as sent, shared by every client of one kind; ``start`` is the
    index of ``items[0]`` since the log began (cursors count from there)."""

    def __init__(self, limit: int, byte_limit: int, wake_every: float = WAKE_EVERY["each"]) -> None:
        self.limit, self.byte_limit, self.wake_every = limit, byte_limit, wake_every
        self.items: list[Item] = []
        self.sizes: deque[int] = deque()
        self.start = 0
        self.bytes = 0
        self.subs: set[Subscription] = set()
        self.changed: asyncio.Event | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self._woken, self._wake_due = 0.0, False
        self._woken_end = 0  # the log's end at the last wake-up (nothing new since: no wake-up)

    @property
    def end(self) -> int:
        return self.start + len(self.items)

    def append(self, item: Item) -> None:
        self.items.append(item)
        self.sizes.append(len(item[2]))
        self.bytes += len(item[2])

    def trim(self) -> None:
        """Cut the log to its bounds once it is twice over them; the clients
        behind the cut are dropped (their writers see it at once)."""
        if len(self.items) <= 2 * self.limit and self.bytes <= 2 * self.byte_limit:
            return
        cut = 0
        while len(self.items) - cut > self.limit or self.bytes > self.byte_limit:
            self.bytes -= self.sizes.popleft()
            cut += 1
        del self.items[:cut]
        self.start += cut
        for sub in list(self.subs):
            if sub.cursor < self.start:
                sub.dropped.set()

    def clear(self) -> None:
        """Nobody left to send the log to."""
        self.start, self.items, self.sizes, self.bytes = self.end, [], deque(), 0

    def poke(self, private: bool = False) -> None:
        """Wake every writer: at once when the log was quiet (a card reaches
        the consoles without delay), else at most every ``wake_every`` (each
        writer then sends what came meanwhile in one go). Not when nothing
        came since the last wake-up (bets streaming in, coalesced, add
        nothing to the live log until their ``bets`` message), unless a
        client has a ``private`` message."""
        if self._wake_due or (not private and self.end == self._woken_end):
            return
        wait = self._woken + self.wake_every - time.monotonic()
        if wait <= 0 or self.loop is None:
            self._wake()
            return
        self._wake_due = True
        self.loop.call_later(wait, self._wake)

    def _wake(self) -> None:
        self._wake_due = False
        self._woken, self._woken_end = time.monotonic(), self.end
        changed, self.changed = self.changed, asyncio.Event()
        if changed is not None:
            changed.set()
        self.pump()

    def pump(self) -> None:
        """Write what is due to every client with a wire, from here: one
        callback for all of them (no task of each woken), and a run of the
        log framed once for every client at the same place in it."""
        cache: dict[tuple[int, int, bool], bytes] = {}
        for sub in list(self.subs):
            if sub.wire is not None:
                sub.send_due(cache)


def abridged(msg: dict) -> dict:
    """A big event (a round's end with thousands of bets: each one returned or
    paid) as the consoles and boards get it: each mapping or list of more
    than ``SPOTS_MAX`` entries is left out, its size under ``<field>_count``
    (``GET /api/events`` and ``bets=each`` have it whole). Sent whole to
    hundreds of clients, one such event held the table's event loop for
    seconds at the end of every big round."""
    data = msg.get("data")
    if not isinstance(data, dict):
        return msg
    out: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, (dict, list)) and len(value) > SPOTS_MAX:
            out[f"{key}_count"] = len(value)
        else:
            out[key] = value
    return {**msg, "data": out, "abridged": True}


class Subscription:
    """One WebSocket client: where it is in its log and what is meant for it
    alone (a pong)."""

    def __init__(self, log: SharedLog, loop: asyncio.AbstractEventLoop, each: bool) -> None:
        self.log = log
        self.loop = loop
        self.each = each  # it gets every bet event (else the coalesced ``bets`` messages)
        self.cursor = log.end  # the log's index of the next message to send
        self.private: deque[str] = deque()
        self.dropped = asyncio.Event()
        self.closed = False
        # written to from the log's wake-up (``SharedLog.pump``) once it has a wire:
        self.wire: Wire | None = None
        self.batch = False  # what is due in one frame, a JSON array (``batch=1``)
        self.last = 0  # the seq of the last event or ``bets`` message it was sent
        self.current = 0  # a snapshot older than this is not sent (it has a newer one)

    def attach(self, wire: Wire, batch: bool, last: int, current: int) -> None:
        """From now on the log's wake-ups write to ``wire`` (see ``send_due``)."""
        self.wire, self.batch, self.last, self.current = wire, batch, last, current
        wire.protocol.on_writable = lambda: self.loop.call_soon(self.send_due, {})
        self.send_due({})

    def send_due(self, cache: dict[tuple[int, int, bool], bytes]) -> None:
        """What is due, written to the wire, unless its connection is full:
        then it stays where it is in the log until it drains."""
        while not self.closed and self.wire.open and self.wire.buffered < PAUSE_AT:
            start, private = self.cursor, bool(self.private)
            items = self.take()
            if items is None:
                return
            texts, self.last = select(items, self.last, self.current)
            key = (start, self.cursor, self.batch)
            if private or len(texts) < len(items):
                frames = framed(texts, self.batch)
            elif (frames := cache.get(key)) is None:
                frames = cache[key] = framed(texts, self.batch)
            if frames:
                self.wire.write(frames)

    @property
    def overflowed(self) -> bool:
        return self.dropped.is_set()

    def wants(self, msg: dict) -> bool:
        """Whether a replayed message is for this client (the live get no single bets)."""
        return self.each or msg.get("kind") not in BET_KINDS

    def take(self) -> list[Item] | None:
        """What is due to this client now, or None when nothing is."""
        log = self.log
        if self.private:
            out = [("", 0, text) for text in self.private]
            self.private.clear()
            return out
        if self.cursor < log.start:
            self.dropped.set()
            return None
        if self.cursor >= log.end:
            return None
        out = log.items[self.cursor - log.start:]
        self.cursor = log.end
        return out

    def push(self, text: str) -> None:
        """A message (its text) for this client alone, from any thread."""

        def put() -> None:
            self.private.append(text)
            self.log.poke(private=True)

        try:
            self.loop.call_soon_threadsafe(put)
        except RuntimeError:  # the loop is closed: the client is gone
            self.closed = True


def select(items: list[Item], last: int, current: int) -> tuple[list[str], int]:
    """The texts of ``items`` a client sends that was last sent the event (or
    ``bets``) ``last`` and a snapshot as of ``current``; and its new ``last``."""
    texts = []
    fresh = False  # an event of this call was sent: those after it with its seq are its group's
    for kind, seq, text in items:
        if kind == "event" or kind == "bets":
            # (a group of bets is one journal record, so its bets share its seq; a group is
            # published in one go, so it is either all in the backlog or all after it)
            if seq < last or (seq == last and not fresh):
                continue  # (already sent from the backlog)
            last, fresh = seq, True
        elif kind == "snapshot" and seq < current:
            continue
        texts.append(text)
    return texts, last


def framed(texts: list[str], batch: bool) -> bytes:
    """Texts as frames: one each, or (``batch``) one frame holding them as a JSON array."""
    if batch:
        return text_frame(("[" + ",".join(texts) + "]").encode()) if texts else b""
    return b"".join(text_frame(t.encode()) for t in texts)


class BetTally:
    """The bets since the live clients' last ``bets`` message.

    The table's thread tells, with each group of bets it publishes, the
    totals now on the spots the group changed (``position -> bet -> amount``,
    the position's whole box, so a withdrawn bet disappears) and the
    table's total: the message carries the book's own figures, never sums
    made on the way."""

    def __init__(self) -> None:
        self.count = 0
        self.withdrawn = 0
        self.seq = 0
        self.round_id = ""
        self.total_bet: str | None = None
        self.spots: dict[str, dict[str, str]] | None = {}

    @property
    def pending(self) -> bool:
        return self.count > 0 or self.withdrawn > 0

    def add_event(self, msg: dict) -> None:
        if msg.get("kind") == "bet":
            self.count += 1
        else:
            self.withdrawn += 1
        self.seq = max(self.seq, msg.get("seq", 0))
        self.round_id = msg.get("round_id", self.round_id)

    def add_book(self, book: dict[str, Any] | None) -> None:
        """The group's figures (see the class): spots, total."""
        if not book:
            return
        self.total_bet = book.get("total_bet", self.total_bet)
        spots = book.get("spots")
        if spots is None or self.spots is None:
            self.spots = None
            return
        self.spots.update(spots)
        if len(self.spots) > SPOTS_MAX:
            self.spots = None

    def message(self) -> dict[str, Any]:
        """The ``bets`` message, and the tally started again."""
        msg = {"type": "bets", "seq": self.seq, "round_id": self.round_id, "count": self.count,
               "withdrawn": self.withdrawn, "total_bet": self.total_bet, "spots": self.spots}
        self.count = self.withdrawn = 0
        self.spots = {}
        return msg


class Pacer:
    """Messages of one type that stand for the table's whole state (a
    snapshot, the bet book): what they cost the clients together is kept
    within ``bytes_per_second``; one held back goes out as soon as that
    allows, replaced by any newer one meanwhile (only the latest matters)."""

    def __init__(self, bytes_per_second: float) -> None:
        self.rate = bytes_per_second
        self.next = 0.0
        self.held: dict | None = None  # the message itself: serialised only if it goes out

    def ready(self) -> bool:
        """Whether a message may go out now (else it is held)."""
        return self.held is None and time.monotonic() >= self.next

    def sent(self, size: int, clients: int) -> None:
        """One of ``size`` bytes went to ``clients``: the next waits its share."""
        self.next = time.monotonic() + size * clients / self.rate

    def hold(self, msg: dict, loop: asyncio.AbstractEventLoop | None, release: Callable[["Pacer"], None]) -> None:
        if self.held is None and loop is not None:
            loop.call_later(max(self.next - time.monotonic(), 0.0), release, self)
        self.held = msg

    def take(self) -> dict | None:
        msg, self.held = self.held, None
        return msg


class FanOut:
    """The two logs and the tally: ``add`` the messages of one publish (on
    the event loop); the live log gets the tally's ``bets`` message before
    anything that follows the bets, or ``COALESCE_EVERY`` after them."""

    def __init__(self, wire: Callable[[dict], str], *, limit: int, byte_limit: int, live_limit: int,
                 live_byte_limit: int, paced: dict[str, float] | None = None) -> None:
        self.wire = wire
        #: message types that stand for the table's whole state, paced within bytes a second (``Pacer``)
        self.pacers = {kind: Pacer(rate) for kind, rate in (paced or {}).items()}
        self.logs = {EACH: SharedLog(limit, byte_limit, WAKE_EVERY[EACH]),
                     LIVE: SharedLog(live_limit, live_byte_limit, WAKE_EVERY[LIVE])}
        self.tally = BetTally()
        self._flush_due = False
        self._told_at = 0.0  # when the live clients were last told of the bets (a snapshot or a ``bets``)
        self.loop: asyncio.AbstractEventLoop | None = None

    @property
    def subs(self) -> set[Subscription]:
        return self.logs[EACH].subs | self.logs[LIVE].subs

    @property
    def clients(self) -> int:
        return len(self.logs[EACH].subs) + len(self.logs[LIVE].subs)

    def add(self, msgs: list[dict], book: dict | None = None,
            snapshot_due: Callable[[Item], bool] | None = None) -> None:
        """The messages of one publish; ``book``: the totals their bets leave
        (``BetTally.add_book``); ``snapshot_due``: whether another message
        goes out (all do when not given)."""
        each, live = self.logs[EACH], self.logs[LIVE]
        last_bet = max((i for i, m in enumerate(msgs) if m.get("kind") in BET_KINDS), default=-1)
        for i, m in enumerate(msgs):
            if m.get("type") == "event" and m.get("kind") in BET_KINDS:
                if each.subs:
                    each.append(("event", m.get("seq", 0), self.wire(m)))
                if live.subs:
                    self.tally.add_event(m)
                if i == last_bet and live.subs:
                    self.tally.add_book(book)
                continue
            pacer = self.pacers.get(m.get("type", ""))
            if pacer is not None and not pacer.ready():
                pacer.hold(m, self.loop, self._release)  # (a big book held back costs no serialising)
                continue
            item = (m.get("type", ""), m.get("seq", 0), self.wire(m))
            if pacer is not None:
                pacer.sent(len(item[2]), self.clients)
            elif snapshot_due is not None and not snapshot_due(item):
                continue
            short = None
            if item[0] == "event" and len(item[2]) > BIG_EVENT and live.subs:
                short = (item[0], item[1], self.wire(abridged(m)))
            self._append(item, short)
        if self.tally.pending and not self._flush_due and self.loop is not None:
            self._flush_due = True
            self.loop.call_later(COALESCE_EVERY, self._flush_later)
        self.trim_and_poke()

    def _release(self, pacer: Pacer) -> None:
        """A message held back by its pacer, now due: to every client."""
        msg = pacer.take()
        if msg is None or not self.clients:
            return
        item = (msg.get("type", ""), msg.get("seq", 0), self.wire(msg))
        pacer.sent(len(item[2]), self.clients)
        self.add_item(item)

    def add_item(self, item: Item) -> None:
        """A message already serialised for every client."""
        self._append(item)
        self.trim_and_poke()

    def _append(self, item: Item, short: Item | None = None) -> None:
        """A message for every client, after the bets placed before it. A
        snapshot carries them (its ``bets``: the ``bets`` message's fields)
        instead of a frame of their own: while bets stream in, a console gets
        some four frames a second. ``short``: what the live clients get instead."""
        each, live = self.logs[EACH], self.logs[LIVE]
        if each.subs:
            each.append(item)
        item = short or item
        if not live.subs:
            self.tally.message()  # (nobody to tell: started again)
            return
        if item[0] == "snapshot" and self.tally.pending and item[2].endswith("}"):
            live.append((item[0], item[1], item[2][:-1] + ',"bets":' + self.wire(self.tally.message()) + "}"))
            self._told_at = time.monotonic()
            return
        self.flush()
        live.append(item)

    def _flush_later(self) -> None:
        """The ``bets`` message, COALESCE_EVERY after the clients were last
        told of the bets: while snapshots carry them (the runner's, every
        0.25 s while bets stream in) no frame of its own goes to each client."""
        self._flush_due = False
        wait = self._told_at + COALESCE_EVERY - time.monotonic()
        if wait > 0 and self.tally.pending and self.loop is not None:
            self._flush_due = True
            self.loop.call_later(wait, self._flush_later)
            return
        if self.flush():
            self.trim_and_poke()

    def flush(self) -> bool:
        """The tally as a ``bets`` message into the live log (if bets came)."""
        if not self.tally.pending:
            return False
        msg = self.tally.message()
        self._told_at = time.monotonic()
        live = self.logs[LIVE]
        if live.subs:
            live.append(("bets", msg["seq"], self.wire(msg)))
        return True

    def trim_and_poke(self) -> None:
        for log in self.logs.values():
            if log.subs:
                log.trim()
                log.poke()

    def subscribe(self, loop: asyncio.AbstractEventLoop, each: bool) -> Subscription:
        self.loop = loop
        log = self.logs[EACH if each else LIVE]
        log.loop = loop
        if log.changed is None:
            log.changed = asyncio.Event()
        if not log.subs:
            log.clear()
        sub = Subscription(log, loop, each)
        log.subs.add(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        log = sub.log
        log.subs.discard(sub)
        if not log.subs:
            log.clear()
