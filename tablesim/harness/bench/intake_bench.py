"""Bet intake through the real server: concurrent clients post bets to a
``tablesim serve`` process (the table of the game that sets this benchmark
up, on mock devices, journal on disk with ``synchronous=FULL``); each answer
comes only once its bet is on disk.

Clients post batches (``POST /api/bets/batch``); a bet's latency is its
request's. Single bets: clients post one bet per request (``POST
/api/bets``), which the server groups the same way.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from tablesim.games.gamespec import IntakeSetup
from tablesim.journal.journal import Journal
from tablesim.journal.placed import BET_NAMES, placed
from tablesim.harness.bench.served import Connection, ServedTable, call, percentile


def _open_round(served: ServedTable) -> str:
    call(served, "POST", "/api/actions/open_round")
    end = time.monotonic() + 10
    while (snap := call(served, "GET", "/api/table"))["state"] != "betting_open":
        if time.monotonic() > end:
            raise RuntimeError(f"betting did not open: {snap['state']}")
        time.sleep(0.01)
    return snap["round_id"]


async def _load(served: ServedTable, path: str, bodies: list[bytes], clients: int, check,
                rate: float | None = None) -> tuple[list[float], float]:
    """Post every body over ``clients`` connections; (latencies ms, wall s).

    ``rate``: requests per second offered on a fixed schedule (open loop):
    a request's latency counts from when it was due, so a server that falls
    behind shows it. None: each connection posts as soon as its answer came.
    """
    latencies: list[float] = []
    queue = iter(range(len(bodies)))
    start = time.perf_counter()

    async def client() -> None:
        conn = await Connection(served.host, served.port, served.token).open()
        try:
            for i in queue:
                due = start + i / rate if rate else time.perf_counter()
                if rate and due > time.perf_counter():
                    await asyncio.sleep(due - time.perf_counter())
                status, raw = await conn.request("POST", path, bodies[i])
                latencies.append((time.perf_counter() - due) * 1000)
                if status != 200:
                    raise RuntimeError(f"POST {path}: {status} {raw[:300]!r}")
                check(raw)
        finally:
            await conn.close()

    await asyncio.gather(*(client() for _ in range(clients)))
    return latencies, time.perf_counter() - start


def _journal_bets(served: ServedTable, round_id: str) -> int:
    journal = Journal(served.journal, readonly=True)
    try:
        return sum(1 for _ in placed(journal.find(round_id=round_id, names=BET_NAMES)))
    finally:
        journal.close()


def _summary(latencies: list[float], wall: float, bets: int, per_request: int, server_cpu: float,
             client_cpu: float) -> dict[str, Any]:
    """A window's figures; the CPU per bet of the server (all its threads)
    and of this process's clients, which share the machine's cores with it."""
    ordered = sorted(latencies)
    return {
        "bets_per_second": round(bets / wall),
        "p50_ms": round(percentile(ordered, 0.50), 2),
        "p99_ms": round(percentile(ordered, 0.99), 2),
        "max_ms": round(ordered[-1], 2),
        "bets": bets,
        "bets_per_request": per_request,
        "seconds": round(wall, 3),
        "server_cpu_seconds": round(server_cpu, 2),
        "server_cpu_us_per_bet": round(server_cpu / bets * 1e6, 1),
        "client_cpu_us_per_bet": round(client_cpu / bets * 1e6, 1),
    }


def bet_intake(bets: int = 30_000, rate: float = 5000, batch: int = 25, clients: int = 32,
               saturate_clients: int = 16, saturate_batch: int = 50,
               single_bets: int = 3000, single_clients: int = 32) -> dict[str, Any]:
    """Bets offered at ``rate`` a second in batches of ``batch`` (open loop,
    over up to ``clients`` connections): the rate achieved and each bet's
    acknowledgement time (p50/p99). Then, each in a fresh round of the same
    table: the most it takes (``saturate_clients`` connections posting
    batches of ``saturate_batch`` back to back), and single bets
    (``single_clients`` connections, one bet per request). One bet per
    player, each with its ref."""
    from tablesim.harness.bench.service import setup

    game, intake = setup("bet_intake")
    with ServedTable("--game", game.name, "--mock", "--seed", "1") as served:
        offered = _batches(served, intake, bets, batch, rate / batch, clients, first=0)
        saturated = _batches(served, intake, bets, saturate_batch, None, saturate_clients, first=bets)
        single = _singles(served, intake, single_bets, single_clients)
    return {**offered, "offered_bets_per_second": rate,
            "max_bets_per_second": saturated["bets_per_second"],
            "max_load": {k: saturated[k] for k in ("bets_per_second", "p50_ms", "p99_ms", "bets_per_request",
                                                   "clients", "server_cpu_seconds", "server_cpu_us_per_bet",
                                                   "client_cpu_us_per_bet")},
            "single_bets": single,
            "journal": "synchronous=FULL", "table": intake.table}


def _batches(served: ServedTable, intake: IntakeSetup, bets: int, batch: int, rate: float | None, clients: int, first: int) -> dict[str, Any]:
    """One betting window: ``bets`` bets in batches through ``POST /api/bets/batch``."""
    round_id = _open_round(served)
    bodies = []
    for start in range(first, first + bets, batch):
        items = [{"position": f"{intake.position_prefix}{i:06d}", "bet": intake.bets[i % len(intake.bets)],
                  "amount": "1", "ref": f"b{i}"}
                 for i in range(start, min(start + batch, first + bets))]
        bodies.append(json.dumps({"bets": items}).encode())

    def check(raw: bytes) -> None:
        answer = json.loads(raw)
        if not answer["ok"]:
            raise RuntimeError(f"a bet was refused: {answer['results'][:3]}")

    cpu, mine = served.cpu_seconds(), time.process_time()
    latencies, wall = asyncio.run(_load(served, "/api/bets/batch", bodies, clients, check, rate))
    cpu, mine = served.cpu_seconds() - cpu, time.process_time() - mine
    on_disk = _journal_bets(served, round_id)
    if on_disk != bets:
        raise RuntimeError(f"{bets} bets acknowledged, {on_disk} in the journal")
    _close_round(served)
    return {**_summary(latencies, wall, bets, batch, cpu, mine), "clients": clients}


def _close_round(served: ServedTable) -> None:
    """Void the round (a supervisor's action): the next window opens a new one."""
    call(served, "POST", "/api/void", {"why": "benchmark window over"}, token=served.supervisor)


def _singles(served: ServedTable, intake: IntakeSetup, bets: int, clients: int) -> dict[str, Any]:
    """One bet per request (``POST /api/bets``): 20 players, so that the bet
    book each answer carries stays small."""
    round_id = _open_round(served)
    bodies = [json.dumps({"position": f"{intake.position_prefix}{i % 20:02d}", "bet": intake.bets[i % len(intake.bets)],
                          "amount": "1"}).encode()
              for i in range(bets)]
    cpu, mine = served.cpu_seconds(), time.process_time()
    latencies, wall = asyncio.run(_load(served, "/api/bets", bodies, clients, lambda raw: None))
    cpu, mine = served.cpu_seconds() - cpu, time.process_time() - mine
    on_disk = _journal_bets(served, round_id)
    if on_disk != bets:
        raise RuntimeError(f"{bets} bets acknowledged, {on_disk} in the journal")
    _close_round(served)
    return {**_summary(latencies, wall, bets, 1, cpu, mine), "clients": clients}
