"""Consoles and boards get the bets coalesced: not one WebSocket message per
bet (thousands a second would cost every client thousands of frames and the
table the time to send them) but, at most every few tenths of a second, how
many came and the totals the table's book now holds on the spots they
changed, carried by the next snapshot or a ``bets`` message of their own.
A client that needs every bet asks for it (``bets=each``). A big bet book
goes apart from the snapshot, paced on its own."""

from __future__ import annotations

import asyncio
import json
import threading
import time

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from tablesim.server.fanout import COALESCE_EVERY, FanOut
from tablesim.server.snapshot import BOOK_INLINE, snapshot_messages
from tablesim.server.stream import EventStream, event_message, wire_text

from server_helpers import ok

WAIT = 20.0


class Follower:
    """A WebSocket client reading every message, on a thread of its own."""

    def __init__(self, url: str, query: str) -> None:
        self.ws = connect(url.replace("http", "ws") + "/ws?" + query, open_timeout=5, max_size=None)
        self.messages: list[dict] = []
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            for text in self.ws:
                self.messages.append(json.loads(text))
        except ConnectionClosed:
            pass

    def tallies(self) -> list[dict]:
        """The coalesced bets: ``bets`` messages and the ones snapshots carry."""
        out = []
        for m in list(self.messages):
            if m["type"] == "bets":
                out.append(m)
            elif m["type"] == "snapshot" and "bets" in m:
                out.append(m["bets"])
        return out


def test_a_console_gets_the_bets_coalesced_with_the_books_totals_and_a_client_may_ask_for_each(serve):
    s = serve("football", bet_seconds=None)
    console = Follower(s.url, "since=")
    each = Follower(s.url, "since=&bets=each")
    end = time.monotonic() + WAIT
    while len(s.runner.stream.subs) < 2:
        assert time.monotonic() < end
        time.sleep(0.01)
    ok(s.post("/api/actions/open_round"))
    s.wait_state("betting_open")
    placed = 0
    for batch in range(6):
        bets = [{"position": str(1 + i % 10), "bet": "upper" if i % 2 else "odd", "amount": str(1 + batch)}
                for i in range(20)]
        assert ok(s.post("/api/bets/batch", {"bets": bets}))["accepted"] == 20
        placed += 20
    ok(s.client.delete("/api/bets/3/odd", headers=s.auth()))
    book, total = s.state()["bets"], s.state()["total_bet"]
    while sum(t["count"] for t in console.tallies()) < placed or sum(t["withdrawn"] for t in console.tallies()) < 1:
        assert time.monotonic() < end, console.tallies()
        time.sleep(0.01)
    tallies = console.tallies()
    # no single bet reached the console; every bet is counted once; the book's own figures
    assert not [m for m in console.messages if m["type"] == "event" and m["kind"] in ("bet", "bet_withdrawn")]
    assert sum(t["count"] for t in tallies) == placed and sum(t["withdrawn"] for t in tallies) == 1
    assert len(tallies) < placed / 10
    shown: dict = {}
    for t in tallies:
        assert t["type"] == "bets" and t["round_id"] == s.state()["round_id"]
        shown.update(t["spots"])
    assert {pos: box for pos, box in shown.items() if box} == book and "odd" not in shown["3"]
    assert tallies[-1]["total_bet"] == total
    seqs = [t["seq"] for t in tallies]
    assert seqs == sorted(seqs) and seqs[-1] == max(e["seq"] for e in ok(s.get("/api/events?since=0"))["events"]
                                                     if e["kind"] in ("bet", "bet_withdrawn"))
    # the client that asked for every bet got each one
    while len([m for m in each.messages if m["type"] == "event" and m["kind"] == "bet"]) < placed:
        assert time.monotonic() < end
        time.sleep(0.01)
    assert not each.tallies()
    for f in (console, each):
        f.ws.close()


def _take(stream: EventStream, msgs: list[dict], book: dict | None = None, wait: float = 0.0) -> list[dict]:
    """What a console following ``stream`` is sent after ``msgs`` are published (and ``wait`` seconds)."""

    async def run() -> list[dict]:
        sub, _ = stream.subscribe(asyncio.get_running_loop())
        stream.publish_all(msgs, book)
        await asyncio.sleep(wait + 0.05)
        return [json.loads(text) for _, _, text in sub.take() or []]

    return asyncio.run(run())


def test_the_bets_come_before_what_follows_them_and_a_snapshot_carries_them():
    bet = lambda seq, pos: event_message(seq, "bet", "R-1", {"position": pos, "bet": "ante", "amount": "5"})
    book = {"total_bet": "10", "spots": {"1": {"ante": "5"}, "2": {"ante": "5"}}}
    closed = event_message(3, "state", "R-1", {"state": "bets_closed"})
    got = _take(EventStream("memory:x"), [bet(1, "1"), bet(2, "2"), closed], book)
    assert [m["type"] for m in got] == ["bets", "event"] and got[1]["kind"] == "state"
    assert got[0] == {"type": "bets", "seq": 2, "round_id": "R-1", "count": 2, "withdrawn": 0, "total_bet": "10",
                      "spots": book["spots"]}
    snap = {"type": "snapshot", "seq": 2, "table": {"state": "betting_open", "total_bet": "10"}}
    got = _take(EventStream("memory:y"), [bet(1, "1"), bet(2, "2"), snap], book)
    assert [m["type"] for m in got] == ["snapshot"] and got[0]["bets"]["count"] == 2
    assert got[0]["table"] == snap["table"]
    # alone, the bets follow within COALESCE_EVERY
    got = _take(EventStream("memory:z"), [bet(1, "1")], {"total_bet": "5", "spots": {"1": {"ante": "5"}}},
                wait=COALESCE_EVERY)
    assert [(m["type"], m["count"]) for m in got] == [("bets", 1)]


def test_a_big_bet_book_goes_apart_from_the_snapshot_and_every_client_has_a_bounded_queue():
    small = {"state": "betting_open", "round_id": "R-1", "bets": {"1": {"ante": "5"}}, "players": {}}
    assert snapshot_messages(small, 4) == [{"type": "snapshot", "seq": 4, "table": small}]
    bets = {f"p{i:04d}": {"5": "1"} for i in range(BOOK_INLINE + 1)}
    light, book = snapshot_messages({**small, "bets": bets}, 9)
    assert light == {"type": "snapshot", "seq": 9, "table": {"state": "betting_open", "round_id": "R-1"}}
    assert book == {"type": "book", "seq": 9, "round_id": "R-1", "bets": bets, "players": {}}
    # a log over its bounds is cut, and the clients behind the cut are dropped
    fan = FanOut(wire_text, limit=10, byte_limit=1 << 20, live_limit=10, live_byte_limit=1000)

    async def run() -> tuple[bool, bool]:
        loop = asyncio.get_running_loop()
        slow, quick = fan.subscribe(loop, False), fan.subscribe(loop, False)
        for seq in range(1, 40):
            fan.add([{"type": "notice", "seq": seq, "text": "x" * 100}], None, lambda item: True)
            quick.take()
        return slow.dropped.is_set(), quick.dropped.is_set()

    assert asyncio.run(run()) == (True, False)
    assert fan.logs["live"].bytes <= 2000


def test_a_rounds_big_last_event_reaches_the_consoles_abridged_and_the_clients_of_every_bet_whole():
    returned = {f"p{i:05d}": {"5": "1"} for i in range(5000)}
    void = event_message(9, "void", "R-1", {"reason": "supervisor", "returned": returned, "actor": "sam"})
    stream = EventStream("memory:big")

    async def run() -> tuple[list[dict], list[dict]]:
        loop = asyncio.get_running_loop()
        live, _ = stream.subscribe(loop)
        each, _ = stream.subscribe(loop, each=True)
        stream.publish(void)
        await asyncio.sleep(0.05)
        return ([json.loads(t) for _, _, t in live.take()], [json.loads(t) for _, _, t in each.take()])

    live, each = asyncio.run(run())
    assert live == [{**void, "data": {"reason": "supervisor", "returned_count": 5000, "actor": "sam"},
                     "abridged": True}]
    assert each == [void]
