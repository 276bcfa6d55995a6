"""Simulated players of the platform's WebSocket (``/ws``), in a process of
their own: ``python -m tablesim.harness.bench.player_clients PLAN.json``.

The plan names the platforms, the table and this process's players (their
launch tokens; the first ``bettors`` of them bet). Each player trades its
token for a session (``POST /api/session`` at its platform), opens ``/ws``,
says hello and watches the table. Each does what the player's page does by
its own timers (``page_timers``, read off the page's script): a latency
ping every few seconds while its player bets, less often while it only
watches, and its balance asked after its result when the platform did not
tell it. The
process prints ``ready N`` once all are watching, then follows its standard
input:

- ``measure``: from now on the event delays are counted;
- ``count``: one line, ``count N``: the text frames its players read so far;
- ``bet``: from now on the bettors bet while the table takes bets, each at
  its share of the plan's rate (at most 4 bets waiting per socket);
- ``stop ROUND``: once every player saw ROUND's outcome (or 60 s passed),
  one JSON line: the event delays, the bets' answers, the outcomes seen,
  the sockets the platform closed.

An event's delay is this process's clock when the frame was read minus the
``ts`` the table journaled it with (both the machine's wall clock). Plain
asyncio protocols and a minimal WebSocket framing: the clients must cost
little next to the platform they load.
"""

from __future__ import annotations

import asyncio
import base64
import json
import math
import os
import random
import re
import sys
import time
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import NamedTuple
from urllib.parse import urlsplit

from tablesim.harness.bench.served import Connection

#: bets one socket keeps waiting for their answers at most (the platform takes 8)
IN_FLIGHT = 4
#: the fastest a bettor bets (a second; the platform's rate limit is 10 after a burst)
MAX_RATE = 8.0
LOBBY = '{"type":"lobby"'
PONG = '{"type":"pong"'
#: the player's page, whose own timers these players keep (read as text: the harness imports no platform)
PAGE = Path(__file__).resolve().parents[2] / "platform" / "player" / "static" / "player.js"
#: how the platform begins a bet's answer, and a placed one's fields after its id (``placed_id``)
ANSWER = '{"type":"answer","id":'
PLACED = ',"kind":"bet","ok":true,"status":"placed",'


class PageTimers(NamedTuple):
    """The page's own timers, in seconds (``page_timers``)."""

    ping_every: float  # the latency ping while the player plays
    ping_idle: float  # the latency ping while the page is only watched
    active_for: float  # how long after the player's last act (a bet here) the page counts as played on
    balance_after: float  # after a result, when the balance is asked unless the platform told it


def page_timers(script: str | None = None) -> PageTimers:
    """The page's latency ping intervals (played on, only watched, and how long
    an act keeps it played on) and when, after a result, it asks its balance
    unless the platform told it (seconds), read off its script: what the
    simulated players do is what a page does (ValueError: the script no
    longer says)."""
    text = PAGE.read_text(encoding="utf-8") if script is None else script
    found = {}
    for name in ("PING_EVERY", "PING_IDLE", "ACTIVE_FOR", "BALANCE_AFTER"):
        got = re.search(rf"^const {name} = (\d+);", text, re.M)
        if got is None:
            raise ValueError(f"{PAGE}: no {name}: the players could not do what the page does")
        found[name] = int(got.group(1)) / 1000
    return PageTimers(found["PING_EVERY"], found["PING_IDLE"], found["ACTIVE_FOR"], found["BALANCE_AFTER"])


def placed_id(text: str) -> int | None:
    """The id of a placed bet's answer read off its first bytes (the answer
    carries its receipt, a kilobyte of JSON the load has no use for: parsing
    it was most of a load process's work a bet), or None for any other
    message, which is parsed whole."""
    if not text.startswith(ANSWER):
        return None
    end = text.find(",", len(ANSWER))
    digits = text[len(ANSWER):end]
    if end < 0 or not digits.isdigit() or not text.startswith(PLACED, end):
        return None
    return int(digits)


class Shared:
    """What the players of this process have in common: the figures, and
    whether the table takes bets now (from the events they read)."""

    def __init__(self, table: str) -> None:
        self.table = table
        self.delays: Counter[int] = Counter()  # ms -> deliveries
        self.watching: Counter[int] = Counter()  # the same, until the bets began
        self.bet_ms: Counter[int] = Counter()  # ms -> placed bets
        self.statuses: Counter[str] = Counter()
        self.messages: dict[str, str] = {}  # status -> the first refusal's message
        self.outcomes: Counter[str] = Counter()  # round -> players who saw its outcome
        self.windows: dict[str, list[float]] = {}  # round -> [first bet sent, last answer]
        #: ms -> ticks: how late this process's loop ran a 10 ms timer while measuring (an event's
        #: delay is read when this loop reads its frame, so it holds this lag too)
        self.lag: Counter[int] = Counter()
        self.closed = 0
        #: the page's timers (``page_timers``): a latency ping every ``ping_every`` s while the player
        #: plays (bets, here), every ``ping_idle`` s while the page is only watched; the balance asked
        #: ``balance_after`` s after the player's result unless the platform told it meanwhile
        self.timers = page_timers()
        self.frames = 0  # text frames read, every kind (the platform's deliveries)
        self.betting: str | None = None  # the round taking bets
        self.bet = False
        self.measuring = False
        self._ts: dict[str, float] = {}

    def stamp(self, ts: str) -> float:
        at = self._ts.get(ts)
        if at is None:
            at = self._ts[ts] = datetime.fromisoformat(ts).timestamp()
        return at


def _parse(buf: bytearray, at: int) -> tuple[int, bytearray, int] | None:
    """The frame at ``at`` of ``buf`` (opcode, payload, where the next
    begins), or None when it has not all come yet."""
    if len(buf) - at < 2:
        return None
    size, head = buf[at + 1] & 0x7F, 2
    if size >= 126:
        head = 4 if size == 126 else 10
        if len(buf) - at < head:
            return None
        size = int.from_bytes(buf[at + 2:at + head], "big")
    end = at + head + size
    if len(buf) < end:
        return None
    return buf[at] & 0x0F, buf[at + head:end], end


def _masked(opcode: int, payload: bytes) -> bytes:
    """A client's frame. The mask is all zeros (valid framing, and no work
    to apply): these clients load the platform, not their own CPU."""
    n = len(payload)
    size = bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + n.to_bytes(2, "big")
    return bytes([0x80 | opcode]) + size + b"\0\0\0\0" + payload


class Player(asyncio.Protocol):
    """One player's socket: a protocol fed by the event loop (no task, no
    stream reader of its own: thousands share a process that must cost
    little next to the platform it loads)."""

    def __init__(self, shared: Shared, url: str, token: str, bettor: bool, rate: float, group: int = 1) -> None:
        self.shared, self.url, self.token, self.bettor, self.rate = shared, url, token, bettor, rate
        self.group = group
        self.seen: set[str] = set()
        self.sent: dict[int, tuple[float, str]] = {}
        self.n = 0
        self.spot: dict = {}
        self.transport: asyncio.Transport | None = None
        self.buf = bytearray()
        self.session = ""
        self.upgraded = False
        self.watching: asyncio.Future | None = None  # done once the table's snapshot came
        self._bet_rest = b""  # (``_rest``)
        self.balances_told = 0  # (the platform's ``balance`` messages so far)
        self.pinged = self.acted = -math.inf  # (``time.monotonic()`` of its last ping, and of its last bet)

    async def open(self) -> None:
        parts = urlsplit(self.url)
        conn = await Connection(parts.hostname, parts.port, "").open()
        try:
            status, raw = await conn.request("POST", "/api/session", json.dumps({"token": self.token}).encode())
        finally:
            await conn.close()
        if status != 200:
            raise RuntimeError(f"POST /api/session: {status} {raw[:200]!r}")
        self.session = json.loads(raw)["session"]
        loop = asyncio.get_running_loop()
        self.watching = loop.create_future()
        await loop.create_connection(lambda: self, parts.hostname, parts.port)
        key = base64.b64encode(os.urandom(16)).decode()
        self.transport.write((f"GET /ws HTTP/1.1\r\nHost: {parts.netloc}\r\nUpgrade: websocket\r\n"
                              f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13"
                              "\r\n\r\n").encode())
        await self.watching  # (the welcome, maybe a lobby, then the table's snapshot)

    def connection_made(self, transport) -> None:
        self.transport = transport

    def connection_lost(self, exc) -> None:
        if not self.watching.done():
            self.watching.set_exception(ConnectionError("the platform closed a player's socket before the table came"))
        else:
            self.shared.closed += 1

    def send(self, doc: dict) -> None:
        self.transport.write(_masked(0x1, json.dumps(doc, separators=(",", ":")).encode()))

    def ask(self, kind: str) -> None:
        """A message the page sends by its timers (``ping``, ``balance``), unless the socket is gone."""
        if self.transport is not None and not self.transport.is_closing():
            self.n += 1
            if kind == "ping":
                self.send({"type": "ping", "t": self.n})
            else:
                self.send({"type": kind, "id": self.n})

    def data_received(self, data: bytes) -> None:
        """What came, its frames taken apart here, all at once."""
        self.buf += data
        if not self.upgraded and not self._upgrade():
            return
        now, at = time.time(), 0
        while (got := _parse(self.buf, at)) is not None:
            opcode, payload, at = got
            if opcode == 0x1:
                self._text(payload.decode(), now)
            elif opcode == 0x9:  # a ping: answered as a browser does
                self.transport.write(_masked(0xA, bytes(payload)))
            elif opcode == 0x8:
                self.transport.close()
                break
        del self.buf[:at]

    def _upgrade(self) -> bool:
        end = self.buf.find(b"\r\n\r\n")
        if end < 0:
            return False
        head = bytes(self.buf[:end])
        del self.buf[:end + 4]
        if not head.startswith(b"HTTP/1.1 101"):
            self.watching.set_exception(RuntimeError(f"the platform refused a WebSocket: {head[:80]!r}"))
            self.transport.close()
            return False
        self.upgraded = True
        self.send({"type": "hello", "session": self.session})
        self.send({"type": "watch", "table": self.shared.table})
        return True

    def _text(self, text: str, now: float) -> None:
        if self.watching.done():
            self.shared.frames += 1
            self._took(text, now)
            return
        msg = json.loads(text)
        if msg["type"] == "answer" and not msg.get("ok", True):
            self.watching.set_exception(RuntimeError(f"the platform refused a player: {msg}"))
        elif msg["type"] == "table":
            self.spot, self._bet_rest = _spot(msg), b""
            if msg.get("betting"):
                self.shared.betting = msg.get("round_id")
            self.watching.set_result(None)

    def _took(self, text: str, now: float) -> None:
        if text.startswith(LOBBY) or text.startswith(PONG):
            return  # (the lobby: big, and nothing measured in it; a pong answers the page's latency ping)
        shared = self.shared
        rid = placed_id(text)
        if rid is not None and rid in self.sent:
            began, round_id = self.sent.pop(rid)
            shared.statuses["placed"] += 1
            shared.bet_ms[int((now - began) * 1000)] += 1
            shared.windows[round_id][1] = max(shared.windows[round_id][1], now)
            return
        msg = json.loads(text)
        kind = msg["type"]
        if kind == "event":
            if shared.measuring:
                shared.delays[int((now - shared.stamp(msg["ts"])) * 1000)] += 1
            if msg["kind"] == "state":
                shared.betting = msg["round_id"] if msg["data"].get("state") == "betting_open" else None
        elif kind == "outcome" and msg["round_id"] not in self.seen:
            self.seen.add(msg["round_id"])
            shared.outcomes[msg["round_id"]] += 1
        elif kind == "result":  # (the player's own: the page asks its balance later, unless told it meanwhile)
            told = self.balances_told
            asyncio.get_running_loop().call_later(
                shared.timers.balance_after, lambda: self.balances_told == told and self.ask("balance"))
        elif kind == "balance":  # (the platform told the balance its credit left)
            self.balances_told += 1
        elif kind == "answer" and msg.get("kind") == "bet" and msg.get("id") in self.sent:
            began, round_id = self.sent.pop(msg["id"])
            status = msg.get("status") or "?"
            shared.statuses[status] += 1
            if status != "placed":
                shared.messages.setdefault(status, str(msg.get("message"))[:200])
            if status == "placed":
                shared.bet_ms[int((now - began) * 1000)] += 1
                shared.windows[round_id][1] = max(shared.windows[round_id][1], now)

    async def bet(self) -> None:
        """While betting is open: a group of ``group`` bets (a message each,
        written at once, as the page's *Place bets* sends its spots) every
        group/rate seconds (jittered), at most max(IN_FLIGHT, group) waiting."""
        shared, group = self.shared, self.group
        most = max(IN_FLIGHT, group)
        await asyncio.sleep(random.random() * group / self.rate)
        while True:
            round_id = shared.betting
            if shared.bet and round_id and len(self.sent) + group <= most and self.spot:
                now = time.time()
                shared.windows.setdefault(round_id, [now, now])
                frames = []
                rest = self._bet_rest or self._rest()
                for _ in range(group):
                    self.n += 1
                    self.sent[self.n] = (now, round_id)
                    frames.append(_masked(0x1, b'{"type":"bet","id":%d,%s' % (self.n, rest)))
                self.transport.write(b"".join(frames))
                self.acted = time.monotonic()  # (its player clicked *Place bets*)
            await asyncio.sleep(random.uniform(0.5, 1.5) * group / self.rate)

    def ping_due(self, now: float, slack: float = 0.0) -> bool:
        """Whether the page pings now (``pingWhenDue``): its last ping as old as the
        player's activity allows, less ``slack`` (the ping loop visits it once a ``ping_every``)."""
        timers = self.shared.timers
        every = timers.ping_every if now - self.acted < timers.active_for else timers.ping_idle
        return now - self.pinged >= every - slack


    def _rest(self) -> bytes:
        """A bet's message after its id, made once (the same bytes as the whole
        message encoded: only the id changes from bet to bet)."""
        doc = {"table": self.shared.table, "amount": "1", **self.spot}
        self._bet_rest = json.dumps(doc, separators=(",", ":")).encode()[1:]
        return self._bet_rest


def _spot(table: dict) -> dict:
    """Where this table's remote players bet: a bet name of its layout (and
    its remote box)."""
    names = [n for n in (table.get("layout") or {}).get("bets", []) if isinstance(n, str)]
    if not names:
        return {}
    spot = {"bet": random.choice(names)}
    if table.get("position") == "box" and table.get("box"):
        spot["position"] = table["box"]
    return spot


async def _connect(players: list[Player], tasks: list[asyncio.Task], at_once: int = 32) -> None:
    """Every player's socket open (each read from as soon as it is: frames
    left waiting in a socket would count as late)."""
    queue = iter(players)

    async def worker() -> None:
        for p in queue:
            await p.open()

    await asyncio.gather(*(worker() for _ in range(at_once)))


async def _until_seen(shared: Shared, round_id: str, players: int, timeout: float = 60.0) -> None:
    end = time.monotonic() + timeout
    while shared.outcomes[round_id] + shared.closed < players and time.monotonic() < end:
        await asyncio.sleep(0.05)


async def _pings(players: list[Player], every: float, tick: float = 0.1) -> None:
    """Each player's latency ping when its page sends it (``Player.ping_due``): the
    players spread over ``every`` seconds (pages open at all times), a slice each
    ``tick``, each pinging if due (every visit while it bets, every sixth or so while
    it only watches)."""
    slices = max(1, round(every / tick))
    at = 0
    now = time.monotonic()
    idle = players[0].shared.timers.ping_idle if players else every
    for p in players:  # (pages opened at all times: each one's last ping anywhere in an idle interval)
        p.pinged = now - random.uniform(0, idle)
    while True:
        await asyncio.sleep(tick)
        at = _ping_slice(players, slices, at, every / 2)


def _ping_slice(players: list[Player], slices: int, at: int, slack: float = 0.0, now: float | None = None) -> int:
    """The pings due in slice ``at`` of ``slices`` (every ``slices``-th player from ``at``): the next slice."""
    now = time.monotonic() if now is None else now
    for p in players[at::slices]:
        if p.ping_due(now, slack):
            p.ask("ping")
            p.pinged = now
    return (at + 1) % slices


async def _lag(shared: Shared, tick: float = 0.01) -> None:
    """How late this loop runs: a timer of ``tick`` seconds, its lateness counted."""
    loop = asyncio.get_running_loop()
    while True:
        due = loop.time() + tick
        await asyncio.sleep(tick)
        shared.lag[int((loop.time() - due) * 1000)] += 1


async def main(plan: dict) -> None:
    shared = Shared(plan["table"])
    urls, tokens = plan["platforms"], plan["tokens"]
    rate = min(MAX_RATE, plan["bet_rate"] / max(1, plan["bettors_total"]))
    group = max(1, min(8, int(plan.get("group", 1))))  # (the platform keeps 8 of a socket's bets waiting)
    players = [Player(shared, urls[(plan["first"] + i) % len(urls)], t, i < plan["bettors"], rate, group)
               for i, t in enumerate(tokens)]
    tasks: list[asyncio.Task] = []
    await _connect(players, tasks)
    tasks += [asyncio.create_task(p.bet()) for p in players if p.bettor]
    tasks.append(asyncio.create_task(_pings(players, shared.timers.ping_every)))
    print(f"ready {len(players)}", flush=True)
    loop = asyncio.get_running_loop()
    while (line := (await loop.run_in_executor(None, sys.stdin.readline)).split()):
        if line[0] == "measure":  # (every process's players connected: their connecting is not measured)
            shared.measuring = True
            tasks.append(asyncio.create_task(_lag(shared)))
        elif line[0] == "bet":
            shared.watching = Counter(shared.delays)  # (the delays while nobody bet)
            shared.bet = True
        elif line[0] == "count":
            print(f"count {shared.frames}", flush=True)
        elif line[0] == "stop":
            shared.bet = False
            await _until_seen(shared, line[1], len(players))
            break
    print(json.dumps({"players": len(players), "closed": shared.closed, "delays": shared.delays,
                      "delays_watching": shared.watching, "lag": shared.lag,
                      "bet_ms": shared.bet_ms, "statuses": shared.statuses,
                      "messages": shared.messages, "outcomes": shared.outcomes,
                      "windows": shared.windows}), flush=True)
    for t in tasks:
        t.cancel()


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        plan_ = json.load(f)
    try:
        import uvloop  # (the platform's own loop: the clients cost it half what asyncio's would)
    except ImportError:
        asyncio.run(main(plan_))
    else:
        uvloop.run(main(plan_))
