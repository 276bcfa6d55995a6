"""One table alone, fed remote bets on the bus (``tablesim bench --only table_bus``).

A ``nats-server -js`` and a wheel table on mock devices with its journal on
disk and its outbox to the broker (``tablesim serve --studio``), each its own
process; this process is the load generator: it sends bet requests of
``batch`` bets each on ``tablesim.<table>.bets`` at ``rate`` bets a second
(open loop: a request is sent on time whether or not the ones before it
were answered) for ``seconds``, and times each from its send to its reply
(the reply comes once its bets are committed to the journal).

- ``accepted_per_second``: bets answered ``ok`` over the wall time from the
  first request sent to the last reply;
- ``p50_ms``, ``p99_ms``: a request's time from its send to its reply
  (``unanswered_requests``: those with no reply in 30 s, left out);
- ``cpu_us_per_bet``: each process's CPU (user + system) over the betting,
  per bet accepted: the table, the broker, the generator, and their sum;
  ``table_cpu_us_per_bet_by_thread``: the table's, by thread (``loop``: its
  web server's event loop; ``table``: the table's own thread, where bets are
  placed and committed; ``studio``: its studio link, which reads the
  requests and writes the replies; ``journal``: its journal's mark);
- ``table_cpu_ms_round_without_bets``: the table's CPU for a whole round
  (open, close, spin, result) with no bet, measured before the betting round;
- ``journal``: the betting round's records and their data bytes, per bet.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from typing import Any

from tablesim.harness.bench.platform_bench import SPEC, SPOTS, TABLE, Rig, _cpu, _spun, _wait, thread_cpu
from tablesim.harness.bench.served import ServedTable, call, percentile
from tablesim.journal.journal import Journal
from tablesim.journal.placed import placed


class TableRig(Rig):
    """The broker and the table, in a folder of their own."""

    def __init__(self) -> None:  # (no wallet, no platform: the table alone)
        self._start_broker("tablesim-bench-table-bus-")
        self.table = ServedTable("--game", SPEC.name, "--mock", "--studio", self.nats, data_dir=str(self.dir),
                                 journal_path=self.dir / f"{TABLE}.journal.sqlite")
        # (its bets' subscription is on the studio link's connection: up before the first request)
        _wait(lambda: (call(self.table, "GET", "/api/table").get("studio") or {}).get("state") == "up", 30,
              "the table's studio link")

    def cpu(self) -> dict[str, float]:
        return {"table": _cpu(self.table.proc.pid), "broker": _cpu(self.procs[0].pid)}


def _bodies(count: int, batch: int, players: int, tag: str) -> list[bytes]:
    """The requests' bodies, made before the clock starts (the generator's own cost is not the table's)."""
    out = []
    for r in range(count):
        bets = [{"ref": f"{tag}{r}-{i}", "position": f"p{(r * batch + i) % players:05d}",
                 "bet": SPOTS[(r * batch + i) // players % len(SPOTS)], "amount": "1"} for i in range(batch)]
        # (as the platform asks: each record's signed root once in the reply, not in each receipt)
        out.append(json.dumps({"v": 1, "bets": bets, "shared": True}).encode())
    return out


async def _load(url: str, bodies: list[bytes], interval: float) -> tuple[list[float], list[int], float]:
    """Send ``bodies`` one every ``interval`` seconds; (latencies ms, [bets accepted, refused,
    requests unanswered in 30 s, the replies' bytes], wall s)."""
    import nats
    import nats.errors

    nc = await nats.connect(url, max_reconnect_attempts=0)
    latencies: list[float] = []
    counts = [0, 0, 0, 0]  # bets accepted, bets refused, requests unanswered, the replies' bytes

    async def one(body: bytes) -> None:
        began = time.perf_counter()
        try:
            msg = await nc.request(f"tablesim.{TABLE}.bets", body, timeout=30)
        except nats.errors.TimeoutError:  # (a table that cannot keep up: counted, not waited for)
            counts[2] += 1
            return
        latencies.append((time.perf_counter() - began) * 1000)
        counts[3] += len(msg.data)
        reply = json.loads(msg.data)
        for result in reply.get("results") or []:
            counts[0 if result.get("ok") else 1] += 1

    try:
        start = time.perf_counter()
        tasks = []
        for i, body in enumerate(bodies):
            delay = start + i * interval - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            tasks.append(asyncio.ensure_future(one(body)))
        await asyncio.gather(*tasks)
        wall = time.perf_counter() - start
    finally:
        await nc.close()
    return latencies, counts, wall


def _journal_figures(path, round_id: str) -> dict[str, Any]:
    journal = Journal(path, readonly=True)
    try:
        records = list(journal.rows(round_id=round_id))
        bets = sum(1 for _ in placed(journal.find(round_id=round_id)))
    finally:
        journal.close()
    data = sum(len(r["data"]) for r in records)
    return {"records": len(records), "bets": bets, "records_per_bet": round(len(records) / max(1, bets), 4),
            "data_bytes_per_bet": round(data / max(1, bets), 1)}


def _round(rig: TableRig) -> str:
    call(rig.table, "POST", "/api/actions/open_round")
    return call(rig.table, "GET", "/api/table")["round_id"]


def _finish(rig: TableRig, round_id: str) -> None:
    call(rig.table, "POST", "/api/actions/close_betting")
    _spun(rig, round_id)
    _wait(lambda: call(rig.table, "GET", "/api/table")["state"] in ("complete", "void"), 30, "the round's end")


def table_bus(rate: int = 20000, seconds: float = 5.0, batch: int = 200, players: int = 5000,
              warmup: int = 20, quiet_round: bool = True) -> dict[str, Any]:
    """A table fed ``rate`` bets a second over the bus, in requests of ``batch``
    (``quiet_round``: a round without bets first, its CPU measured)."""
    rig = TableRig()
    try:
        round_cpu_ms = None
        if quiet_round:
            before = rig.cpu()["table"]
            _finish(rig, _round(rig))
            round_cpu_ms = round((rig.cpu()["table"] - before) * 1000, 1)
        round_id = _round(rig)
        requests = max(1, int(rate * seconds / batch))
        asyncio.run(_load(rig.nats, _bodies(warmup, batch, players, "w"), batch / rate))
        bodies = _bodies(requests, batch, players, "b")
        before = {**rig.cpu(), "load": _cpu(os.getpid())}
        threads_before = thread_cpu(rig.table.proc.pid)
        latencies, (accepted, refused, unanswered, replied), wall = asyncio.run(_load(rig.nats, bodies, batch / rate))
        threads = thread_cpu(rig.table.proc.pid)
        after = {**rig.cpu(), "load": _cpu(os.getpid())}
        ordered = sorted(latencies)
        cpu = {k: round((after[k] - before[k]) * 1e6 / max(1, accepted), 1) for k in after}
        return {"offered_per_second": rate, "seconds": seconds, "bets_per_request": batch, "requests": requests,
                "accepted": accepted, "refused": refused, "unanswered_requests": unanswered,
                "accepted_per_second": round(accepted / wall, 1),
                "reply_bytes_per_bet": round(replied / max(1, accepted + refused), 1),
                "p50_ms": round(percentile(ordered, 0.5), 1) if ordered else None,
                "p99_ms": round(percentile(ordered, 0.99), 1) if ordered else None,
                "cpu_us_per_bet": {**cpu, "all": round(sum(cpu.values()), 1)},
                # (the table's by thread: its web server's loop, its own thread, its studio link, its
                # journal's mark; a thread that started during the betting counts from nothing)
                "table_cpu_us_per_bet_by_thread": {
                    kind: round((spent - threads_before.get(kind, 0.0)) * 1e6 / max(1, accepted), 1)
                    for kind, spent in sorted(threads.items())},
                "table_cpu_ms_round_without_bets": round_cpu_ms,
                "journal": _journal_figures(rig.table.journal, round_id),
                "load_average": round(os.getloadavg()[0], 1),
                "goals": "20,000 bets/s accepted with p99 < 100 ms; table <= 50 us a bet"}
    finally:
        rig.close()
