"""Bet intake and a round's time with many console/board WebSocket clients
connected (``tablesim bench --only ws_fanout``): the same table (the game
that sets ``bet_intake`` up, mock devices, journal on disk) is measured
without clients, then with ``ws_clients`` of them connected from another
process, ``reading`` of them reading as a console does (the bets coalesced,
``batch=1``) and the rest never reading.
The table's promise: the clients change neither figure much; the ones that
do not read are dropped once their queue is full."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from typing import Any

from tablesim.harness.bench.intake_bench import _batches
from tablesim.harness.bench.served import ServedTable, call


def _round_seconds(served: ServedTable, rounds: int) -> float:
    """The mean time of a whole round through the API (open, one bet, close, spin to the result)."""
    total = 0.0
    for _ in range(rounds):
        start = time.perf_counter()
        call(served, "POST", "/api/actions/open_round")
        _wait(served, lambda t: t["state"] == "betting_open")
        call(served, "POST", "/api/bets", {"position": "alice", "bet": "1", "amount": "10"})
        call(served, "POST", "/api/actions/close_betting")
        for _ in range(20):  # a short spin is a no-spin: the dealer spins again
            call(served, "POST", "/api/actions/spin")
            snap = _wait(served, lambda t: t["state"] in ("complete", "void")
                         or (t["state"] == "bets_closed" and not t["view"].get("spin_requested")))
            if snap["state"] != "bets_closed":
                break
        total += time.perf_counter() - start
    return total / rounds


def _wait(served: ServedTable, pred, timeout: float = 30.0) -> dict:
    end = time.monotonic() + timeout
    while not pred(snap := call(served, "GET", "/api/table")):
        if time.monotonic() > end:
            raise RuntimeError(f"the table stayed {snap['state']}")
        time.sleep(0.002)
    return snap


def _clients(served: ServedTable, n: int, reading: int, batch: bool) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-m", "tablesim.harness.bench.ws_clients", served.host,
                             str(served.port), str(n), str(reading), *(["batch"] if batch else [])],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline() if proc.stdout else ""
    if line.strip() != "ready":
        proc.kill()
        raise RuntimeError(f"the WebSocket clients did not connect: {line!r}")
    return proc


def _figures(window: dict[str, Any], round_s: float) -> dict[str, Any]:
    return {"bets_per_second": window["bets_per_second"], "p50_ms": window["p50_ms"], "p99_ms": window["p99_ms"],
            "max_ms": window["max_ms"], "round_seconds": round(round_s, 3),
            # (what the table spent a bet, all its threads: on a loaded machine steadier than the rate)
            "server_cpu_us_per_bet": window["server_cpu_us_per_bet"]}


def ws_fanout(bets: int = 20_000, rate: float = 5000, batch: int = 25, clients: int = 32, ws_clients: int = 500,
              reading: int = 250, rounds: int = 5, pace: float = 0.01, ws_batch: bool = True) -> dict[str, Any]:
    """Bets offered at ``rate`` a second in batches of ``batch`` and ``rounds``
    whole rounds, first with no WebSocket client, then with ``ws_clients``."""
    from tablesim.harness.bench.service import setup

    game, intake = setup("bet_intake")
    with ServedTable("--game", game.name, "--mock", "--seed", "1", "--pace", str(pace)) as served:
        alone = _figures(_batches(served, intake, bets, batch, rate / batch, clients, first=0),
                         _round_seconds(served, rounds))
        proc = _clients(served, ws_clients, reading, ws_batch)
        try:
            window = _batches(served, intake, bets, batch, rate / batch, clients, first=bets)
            loaded = _figures(window, _round_seconds(served, rounds))
            out, _ = proc.communicate("", timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    seen = json.loads(out.strip().splitlines()[-1])
    return {**loaded, "offered_bets_per_second": rate, "ws_clients": ws_clients, "reading": reading,
            "readers_batch": ws_batch,
            "silent_dropped": seen["silent_dropped"], "readers_closed": seen["readers_closed"],
            # (what the readers got: the frames a reader was written, over both phases with clients)
            "frames_per_reader": round(seen.get("frames_read", 0) / max(1, reading)),
            "bytes_per_reader": round(seen.get("bytes_read", 0) / max(1, reading)),
            "without_clients": alone, "table": intake.table}
