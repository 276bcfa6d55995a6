"""Helpers of the server tests: a served table, and a round played through the API."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import httpx

from tablesim.server.process import ServerThread
from tablesim.server.auth import TokenStore
from tablesim.server.runner import TableRunner

#: mock devices deal this fast in tests (seconds per card)
PACE = 0.002


@dataclass
class Served:
    server: ServerThread
    runner: TableRunner
    tokens: TokenStore
    journal_path: Path | None
    client: httpx.Client

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def table(self):
        return self.runner.table

    @property
    def dealer(self) -> str:
        return self.tokens.first("dealer")[0]

    @property
    def supervisor(self) -> str:
        return self.tokens.first("supervisor")[0]

    def auth(self, role: str = "dealer") -> dict[str, str]:
        return {"Authorization": f"Bearer {self.dealer if role == 'dealer' else self.supervisor}"}

    def on_table(self, fn: Callable[[], Any]) -> Any:
        """Run ``fn`` on the table's thread (the table is not thread-safe)."""
        future = asyncio.run_coroutine_threadsafe(self.runner.call(fn, publish=False), self.runner.loop)
        return future.result(10)

    def records(self) -> list[tuple]:
        """Every journal record (seq, kind, name, actor), read with a connection of our own."""
        assert self.journal_path is not None
        db = sqlite3.connect(self.journal_path)
        try:
            return db.execute("SELECT seq, kind, name, actor FROM records ORDER BY seq").fetchall()
        finally:
            db.close()

    def get(self, path: str, **kw) -> httpx.Response:
        return self.client.get(path, **kw)

    def post(self, path: str, body: Any = None, role: str | None = "dealer", **kw) -> httpx.Response:
        headers = self.auth(role) if role else {}
        return self.client.post(path, json=body, headers=headers, **kw)

    def state(self) -> dict:
        return self.get("/api/table").json()

    def book(self) -> dict:
        """Each player's bets and the round's result whole: the dealer's (``GET /api/book``, a token's)."""
        return self.get("/api/book", headers=self.auth()).json()

    def wait_state(self, *states: str, timeout: float = 10.0) -> dict:
        end = time.monotonic() + timeout
        while True:
            snap = self.state()
            if snap["state"] in states:
                return snap
            if time.monotonic() > end:
                raise AssertionError(f"the table stayed {snap['state']}, expected {states}")
            time.sleep(0.01)



def stop(served: Served) -> None:
    """Stop one server early (e.g. to restart it on the same journal)."""
    served.client.close()
    served.server.stop()
    if served.table.journal is not None:
        served.table.journal.close()
        served.table.journal = None


#: bets of a test round per game: (position, bet, amount)
BETS = {
    "fortune3": [("3", "ante", "10"), ("3", "pair_plus", "5"), ("6", "ante", "25")],
    "football": [("1", "upper", "10"), ("4", "odd", "5"), ("common", "middle", "2")],
    "wheel": [("alice", "1", "10"), ("bob", "joker", "2"), ("alice", "5", "3")],
}


def ok(res: httpx.Response) -> dict:
    assert res.status_code == 200, res.text
    return res.json()


def play_round(s: Served, bets=None) -> dict:
    """One whole round through the API, as a dealer would play it; returns its result."""
    game = s.table.game
    ok(s.post("/api/actions/open_round"))
    s.wait_state("betting_open")
    for position, bet, amount in bets or BETS[game]:
        ok(s.post("/api/bets", {"position": position, "bet": bet, "amount": amount}))
    ok(s.post("/api/actions/close_betting"))
    if game in ("fortune3", "football"):
        ok(s.post("/api/actions/deal"))
    if game == "fortune3":
        snap = s.wait_state("decisions", "complete", "void")
        for box in snap["view"]["pending_decisions"]:
            ok(s.post("/api/actions/decide", {"box": box, "decision": "play"}))
    if game == "wheel":
        for _ in range(20):  # a short spin is a no-spin: the dealer spins again
            ok(s.post("/api/actions/spin"))
            snap = s.wait_state("complete", "void", "bets_closed")
            while snap["state"] == "bets_closed" and snap["view"]["spin_requested"]:
                time.sleep(0.01)
                snap = s.state()
            if snap["state"] != "bets_closed":
                break
    s.wait_state("complete", "void")
    # (the round's result whole, as the dealer's console reads it: the open view has its totals only)
    return s.book()["result"]
