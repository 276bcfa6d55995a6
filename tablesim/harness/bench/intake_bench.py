"""Bet intake through the real server: concurrent clients post bets to a
``tablesim serve`` process (a wheel table, mock sensor, journal on disk with
``synchronous=FULL``); each answer comes only once its bet is on disk.

``bet_intake``: clients post batches (``POST /api/bets/batch``); a bet's
latency is its request's. ``single_bets``: clients post one bet per request
(``POST /api/bets``), which the server groups the same way.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from typing import Any

from tablesim.harness.bench.served import Connection, ServedTable, call, percentile

SPOTS = ("1", "3", "5", "10", "20", "joker", "logo")


def _open_round(served: ServedTable) -> str:
    call(served, "POST", "/api/actions/open_round")
    end = time.monotonic() + 10
    while (snap := call(served, "GET", "/api/table"))["state"] != "betting_open":
        if time.monotonic() > end:
            raise RuntimeError(f"betting did not open: {snap['state']}")
        time.sleep(0.01)
    return snap["round_id"]


async def _load(served: ServedTable, path: str, bodies: list[bytes], clients: int, check) -> tuple[list[float], float]:
    """Post every body over ``clients`` connections; (latencies ms, wall s)."""
    latencies: list[float] = []
    queue = iter(range(len(bodies)))

    async def client() -> None:
        conn = await Connection(served.host, served.port, served.token).open()
        try:
            for i in queue:
                start = time.perf_counter()
                status, raw = await conn.request("POST", path, bodies[i])
                latencies.append((time.perf_counter() - start) * 1000)
                if status != 200:
                    raise RuntimeError(f"POST {path}: {status} {raw[:300]!r}")
                check(raw)
        finally:
            await conn.close()

    start = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(clients)))
    return latencies, time.perf_counter() - start


def _journal_bets(served: ServedTable, round_id: str) -> int:
    db = sqlite3.connect(f"file:{served.journal}?mode=ro", uri=True)
    try:
        return db.execute("SELECT COUNT(*) FROM records WHERE round_id = ? AND kind = 'event' AND name = 'bet'",
                          (round_id,)).fetchone()[0]
    finally:
        db.close()


def _summary(latencies: list[float], wall: float, bets: int, per_request: int) -> dict[str, Any]:
    ordered = sorted(latencies)
    return {
        "bets_per_second": round(bets / wall),
        "p50_ms": round(percentile(ordered, 0.50), 2),
        "p99_ms": round(percentile(ordered, 0.99), 2),
        "max_ms": round(ordered[-1], 2),
        "bets": bets,
        "bets_per_request": per_request,
        "seconds": round(wall, 3),
    }


def bet_intake(bets: int = 20_000, clients: int = 16, batch: int = 50) -> dict[str, Any]:
    """Batches of ``batch`` bets from ``clients`` concurrent connections, one
    bet per player (each with its ref), all in one betting window."""
    with ServedTable("--game", "wheel", "--mock", "--seed", "1") as served:
        round_id = _open_round(served)
        bodies = []
        for start in range(0, bets, batch):
            items = [{"position": f"player{i:06d}", "bet": SPOTS[i % len(SPOTS)], "amount": "1", "ref": f"b{i}"}
                     for i in range(start, min(start + batch, bets))]
            bodies.append(json.dumps({"bets": items}).encode())

        def check(raw: bytes) -> None:
            answer = json.loads(raw)
            if not answer["ok"]:
                raise RuntimeError(f"a bet was refused: {answer['results'][:3]}")

        cpu = served.cpu_seconds()
        latencies, wall = asyncio.run(_load(served, "/api/bets/batch", bodies, clients, check))
        cpu = served.cpu_seconds() - cpu
        on_disk = _journal_bets(served, round_id)
    if on_disk != bets:
        raise RuntimeError(f"{bets} bets acknowledged, {on_disk} in the journal")
    return {**_summary(latencies, wall, bets, batch), "clients": clients, "journal": "synchronous=FULL",
            "server_cpu_seconds": round(cpu, 2), "table": "wheel, one bet per player"}


def single_bets(bets: int = 3000, clients: int = 32) -> dict[str, Any]:
    """One bet per request (``POST /api/bets``) from ``clients`` connections."""
    with ServedTable("--game", "wheel", "--mock", "--seed", "1") as served:
        round_id = _open_round(served)
        bodies = [json.dumps({"position": f"player{i % 20:02d}", "bet": SPOTS[i % len(SPOTS)], "amount": "1"}).encode()
                  for i in range(bets)]
        cpu = served.cpu_seconds()
        latencies, wall = asyncio.run(_load(served, "/api/bets", bodies, clients, lambda raw: None))
        cpu = served.cpu_seconds() - cpu
        on_disk = _journal_bets(served, round_id)
    if on_disk != bets:
        raise RuntimeError(f"{bets} bets acknowledged, {on_disk} in the journal")
    return {**_summary(latencies, wall, bets, 1), "clients": clients, "journal": "synchronous=FULL",
            "server_cpu_seconds": round(cpu, 2), "table": "wheel, 20 players"}
