"""The stream's fan-out: every client has a bounded queue of its own; one
that does not read is dropped (closed, with a reason) once its queue is
full, and never waited for, while the clients that read get every event,
in order."""

from __future__ import annotations

import base64
import json
import os
import socket
import threading
import time

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from server_helpers import ok

WAIT = 20.0
BATCH = 100


def silent_client(url: str) -> socket.socket:
    """A WebSocket client that completes the handshake and then never reads
    (a small receive buffer, so the table's sends back up soon)."""
    host, port = url.removeprefix("http://").split(":")
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect((host, int(port)))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET /ws?since=&bets=each HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                  f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    answer = b""
    while b"\r\n\r\n" not in answer:
        answer += sock.recv(1)
    assert answer.startswith(b"HTTP/1.1 101"), answer
    return sock


class Reader:
    """A client that reads everything, on a thread of its own."""

    def __init__(self, url: str) -> None:
        self.ws = connect(url.replace("http", "ws") + "/ws?since=&bets=each", open_timeout=5, max_size=None)
        self.messages: list[dict] = []
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            for text in self.ws:
                self.messages.append(json.loads(text))
        except ConnectionClosed:
            pass

    def seqs(self) -> list[int]:
        return [m["seq"] for m in list(self.messages) if m["type"] == "event"]


def test_a_client_that_never_reads_is_dropped_and_the_others_get_every_event_in_order(serve):
    s = serve("football", bet_seconds=None)
    s.runner.stream.queue_limit = 1000  # (a small bound, above a batch's events: the test fills it soon)
    # a small send buffer for every connection the table accepts (a slow link): a client that
    # does not read backs the table's sends up after a few kilobytes, not megabytes
    s.server.sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    readers = [Reader(s.url) for _ in range(3)]
    silent = [silent_client(s.url) for _ in range(2)]
    end = time.monotonic() + WAIT
    while len(s.runner.stream.subs) < 5:
        assert time.monotonic() < end
        time.sleep(0.01)
    ok(s.post("/api/actions/open_round"))
    s.wait_state("betting_open")
    batch, sent = 0, 0
    while s.runner.stream.dropped < 2:  # until both silent clients are dropped
        assert time.monotonic() < end + 60, f"{s.runner.stream.dropped} dropped after {sent} bets"
        bets = [{"position": str(1 + i % 10), "bet": "upper", "amount": "1", "ref": f"{batch}-{i}",
                 "player": f"p{batch:04d}{i:03d}{'y' * 32}"} for i in range(BATCH)]
        assert ok(s.post("/api/bets/batch", {"bets": bets}))["accepted"] == BATCH
        batch, sent = batch + 1, sent + BATCH
        last = s.runner.stream.last_seq
        while any(r.seqs()[-1:] != [last] for r in readers):  # the readers keep up
            assert time.monotonic() < end + 60, "a reading client fell behind"
            time.sleep(0.005)
    # each silent client's connection was closed by the table (what it had not read, then the end)
    for sock in silent:
        sock.settimeout(WAIT)
        try:
            while sock.recv(1 << 16):
                pass
        except ConnectionResetError:
            pass
        sock.close()
    assert len(s.runner.stream.subs) == 3
    # the table never waited for them: it still answers at once
    assert ok(s.post("/api/bets", {"position": "1", "bet": "lower", "amount": "1"}))
    last = s.runner.stream.last_seq
    events = ok(s.get(f"/api/events?since={readers[0].messages[0]['seq']}"))["events"]
    want = [e["seq"] for e in events]
    assert len(want) > sent
    for r in readers:
        while r.seqs()[-1:] != [last]:
            assert time.monotonic() < end + 60
            time.sleep(0.005)
        assert r.seqs() == want  # every event, in order, none twice
        assert r.thread.is_alive()  # still connected
        r.ws.close()


def test_the_fanout_bench_measures_a_table_with_websocket_clients_connected():
    from tablesim.harness.bench.fanout_bench import ws_fanout

    out = ws_fanout(bets=200, rate=2000, batch=10, clients=4, ws_clients=20, reading=10, rounds=1)
    assert out["ws_clients"] == 20 and out["reading"] == 10 and out["offered_bets_per_second"] == 2000
    for figures in (out, out["without_clients"]):
        assert figures["bets_per_second"] > 0 and figures["p99_ms"] >= figures["p50_ms"] > 0
        assert figures["round_seconds"] > 0


def test_a_bet_book_held_back_by_its_pace_is_serialised_only_when_it_goes_out():
    """A table of thousands of bets builds a bet book four times a second;
    with hundreds of clients its pace lets one out every few seconds. Each
    serialised on arrival cost the table's event loop a megabyte of JSON
    four times a second for nothing: only the one that goes out is."""
    import asyncio

    from tablesim.server.fanout import FanOut
    from tablesim.server.stream import wire_text

    serialised = []

    def wire(msg: dict) -> str:
        serialised.append((msg["type"], msg.get("seq")))
        return wire_text(msg)

    fan = FanOut(wire, limit=100, byte_limit=1 << 20, live_limit=100, live_byte_limit=1 << 20,
                 paced={"book": 10_000.0})
    book = {f"p{i:04d}": {"5": "1"} for i in range(200)}  # ~3.4 kB: one out, the next in ~0.3 s

    async def run() -> list:
        loop = asyncio.get_running_loop()
        sub = fan.subscribe(loop, False)
        for seq in range(1, 6):
            fan.add([{"type": "book", "seq": seq, "round_id": "R-1", "bets": book}])
        assert serialised == [("book", 1)]  # the first at once; the others held, each replacing the last
        await asyncio.sleep(1.0)
        return [(kind, seq) for kind, seq, _ in sub.take() or []]

    got = asyncio.run(run())
    assert serialised == [("book", 1), ("book", 5)]  # the newest held, when its turn came; none of the others
    assert got == [("book", 1), ("book", 5)]


class _Loop:
    """An event loop's ``call_later``, recorded (nothing runs)."""

    def __init__(self) -> None:
        self.later: list[float] = []

    def call_later(self, delay: float, fn) -> None:
        self.later.append(delay)


def test_a_message_after_a_card_never_holds_the_next_card_back(monkeypatch):
    """A card's event wakes the consoles' writers at once; the message that
    follows it at once (its snapshot) is put off, and while that wake-up is
    due the next card waits for it too. The console's wait is at most a
    fraction of a shoe's fastest dealing (a card every 20 ms), so the next
    card finds the log quiet and goes at once. (With a 20 ms wait here the
    card bench's p50 went from 2.7 to 13.7 ms.) The ``each`` clients, which
    get every bet, are still woken at most every 20 ms."""
    import types

    from tablesim.server import fanout
    from tablesim.server.fanout import EACH, LIVE, FanOut

    # The log's clock stands still here: on a loaded machine more than the 5 ms wait could pass
    # between the card and its snapshot (seen in CI), and the snapshot then rightly went at once.
    monkeypatch.setattr(fanout, "time", types.SimpleNamespace(monotonic=lambda: 1000.0))
    fan = FanOut(lambda m: json.dumps(m), limit=100, byte_limit=1 << 20, live_limit=100, live_byte_limit=1 << 20)
    for kind, most in ((LIVE, 0.005), (EACH, 0.02)):
        log = fan.logs[kind]
        log.loop = _Loop()
        log.append(("event", 1, "card"))
        log.poke()
        assert log.loop.later == []  # the card: at once
        log.append(("snapshot", 2, "snapshot"))
        log.poke()
        [wait] = log.loop.later  # the snapshot: put off, by at most ...
        assert 0 < wait <= most
