#!/usr/bin/env python3
"""The studio on a three-node NATS cluster, its nodes killed under load.

Three ``nats-server``s on loopback from the sample configs in
``config/nats/`` (ports and stores substituted), the stream made by
``tablesim studio init --replicas 3``, N tables (the three games in turn)
as separate ``tablesim run --config`` processes whose configuration lists
the three nodes. Mid-run the stream's leader is SIGKILLed; once the stream
has a new leader and the tables publish again, a second node is killed (the
stream has no quorum: the tables go on journaling); both are started again
and the tables catch up. Then, for every table:

- the stream equals the journal: no record lost, none doubled, none out of
  order, and ``tablesim audit verify --anchor --complete`` passes;
- ``tablesim studio report --json`` totals equal the journals' sums.

Measured on the way (from a monitor polling the stream every 0.1 s): how
long the stream had no leader, and how long after it had one again the
records were stored again.

    python scripts/studio_cluster.py [--tables 3] [--rounds 8] [--delay 0.3] [--workdir DIR] [--json]
    python scripts/studio_cluster.py --scale 12,24,48 [--json]   # see scale()

Exit 0 when every check holds. Needs nats-server (Debian package).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "studio"))  # the cluster the tests use

from journal_figures import add, as_numbers, journal_figures  # noqa: E402  (beside this script)
from natscluster import NatsCluster  # noqa: E402
from studio_load import GAMES, PREFIX, flush, journal_rows, register_keys, run_table, table_config, tablesim  # noqa: E402


class Monitor:
    """Polls the stream (leader, messages) every ``every`` s on a thread of its own."""

    def __init__(self, url: str, every: float = 0.1) -> None:
        self.url, self.every, self.samples, self._stop = url, every, [], False
        self.thread = threading.Thread(target=lambda: asyncio.run(self._main()), daemon=True)
        self.thread.start()

    async def _main(self) -> None:
        from tablesim.studio import natsio, wire

        nc = await natsio.connect_following(self.url, "tablesim-monitor")
        js = nc.jetstream(timeout=0.5)
        while not self._stop:
            leader, messages = None, None
            try:
                info = await js.stream_info(wire.STREAM)
                leader, messages = (info.cluster.leader if info.cluster else None), info.state.messages
            except Exception:
                pass
            self.samples.append((time.monotonic(), leader, messages))
            await asyncio.sleep(self.every)
        await nc.close()

    def last(self) -> tuple[float, str | None, int | None]:
        return self.samples[-1] if self.samples else (time.monotonic(), None, None)

    def wait(self, cond, budget: float = 120.0, tables: list | None = None) -> tuple[float, str | None, int | None]:
        """The first sample ``cond`` holds for; ``tables`` (their processes)
        are named in the error if none does."""
        deadline = time.monotonic() + budget
        while time.monotonic() < deadline:
            sample = self.last()
            if cond(sample):
                return sample
            time.sleep(self.every / 2)
        playing = "" if tables is None else f" (tables: {['playing' if p.poll() is None else f'exit {p.poll()}' for p in tables]})"
        raise RuntimeError(f"the stream never got there: last {self.last()}{playing}")

    def stop(self) -> None:
        self._stop = True
        self.thread.join(5)


class LiveFloor:
    """``studio serve``'s consumer following the stream through the kills, on a thread of its own."""

    def __init__(self, url: str) -> None:
        from tablesim.studio.consumer import StudioConsumer

        self.consumer = StudioConsumer(url)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=lambda: self.loop.run_until_complete(self.consumer.run()), daemon=True)
        self.thread.start()

    def check(self, url: str, expected: dict, tables: int, budget: float = 120.0) -> tuple[dict, list]:
        """Once it has read the whole stream: its figures equal the journals',
        it says connected with nothing pending, and it alerted nothing."""
        last = asyncio.run(stream_last_seq(url))
        deadline = time.monotonic() + budget
        while time.monotonic() < deadline and not (self.consumer.floor.stream_seq >= last and self.consumer.pending == 0):
            time.sleep(0.2)
        summary = self.consumer.floor.summary()
        status = self.consumer.status()
        got = as_numbers(summary["floor"])
        out = {"equals_journals": got == expected and summary["floor"]["tables"] == tables,
               "connected": status["connected"], "pending": status["pending"], "stream_seq": status["stream_seq"],
               "stream_last_seq": last, "resumed": status["resumed"], "renumbered": status["renumbered"],
               # (a table that finished its run is rightly "not heard from" 30 s later: not an error here)
               "alerts": [a["text"] for a in self.consumer.floor.alerts if "not heard from" not in a["text"]][:5]}
        failures = [] if out["equals_journals"] and out["connected"] and out["pending"] == 0 and not out["alerts"] \
            else [[f"the live floor after the kills: {out} (journals {expected}, floor {got})"]]
        return out, failures

    def stop(self) -> None:
        self.consumer.stop()
        self.thread.join(10)


async def stream_last_seq(url: str) -> int:
    from tablesim.studio import natsio, wire

    async def look() -> int:
        nc = await natsio.connect(url, "tablesim-monitor")
        try:
            return (await nc.jetstream(timeout=2.0).stream_info(wire.STREAM)).state.last_seq
        finally:
            await nc.close()

    return await natsio.retrying(look)


def outage(mon: Monitor, killed_at: float) -> dict:
    """From the samples after ``killed_at``: how long the stream had no
    leader, and how long after it had one again a record more was stored."""
    after = [s for s in mon.samples if s[0] >= killed_at]
    back = next((s for s in after if s[1] is not None and s[0] > killed_at), None)
    if back is None:
        return {"leader_back_s": None}
    base = next((s for s in after if s[0] >= back[0] and s[2] is not None), None)
    stored = next((s for s in after if base is not None and s[0] >= base[0] and s[2] is not None
                   and s[2] > base[2]), None)
    return {"no_leader_s": round(back[0] - killed_at, 2), "new_leader": back[1],
            "stored_again_after_leader_s": round(stored[0] - back[0], 2) if stored else None}


def wait_healthy(url: str, budget: float = 180.0) -> float:
    """Wait (generously: pure waiting) until the stream and the keys bucket
    have a leader and every replica is current; the seconds it took."""
    from tablesim.studio import natsio, setup, wire

    async def healthy() -> bool:
        nc = await natsio.connect(url, "tablesim-health")
        try:
            js = nc.jetstream(timeout=2.0)
            for name in (wire.STREAM, f"KV_{setup.KEYS_BUCKET}"):
                info = await js.stream_info(name)
                if info.cluster is None or not info.cluster.leader or not all(
                        r.current and not r.offline for r in info.cluster.replicas or []):
                    return False
            return True
        finally:
            await nc.close()

    start = time.monotonic()
    while time.monotonic() - start < budget:
        try:
            if asyncio.run(healthy()):
                return round(time.monotonic() - start, 1)
        except Exception:
            pass
        time.sleep(0.5)
    raise RuntimeError(f"the cluster was not whole again within {budget} s")


def stored_again(url: str, since: float, procs: list, budget: float = 120.0) -> dict:
    """After the restart, on a fresh connection each look (a node that was
    alone may hold a client's connection in a stale state): when the stream
    had a leader again, and when it stored a record more."""
    from tablesim.studio import natsio, wire

    async def look() -> tuple[str | None, int]:
        nc = await natsio.connect(url, "tablesim-monitor")
        try:
            info = await nc.jetstream(timeout=1.0).stream_info(wire.STREAM)
            return (info.cluster.leader if info.cluster else None), info.state.messages
        finally:
            await nc.close()

    leader_at = first = None
    while time.monotonic() - since < budget:
        try:
            leader, messages = asyncio.run(look())
        except Exception:
            leader, messages = None, None
        now = time.monotonic()
        if leader and leader_at is None:
            leader_at, first = now, messages
        elif leader and messages > first:
            return {"no_leader_s": round(leader_at - since, 2), "new_leader": leader,
                    "stored_again_after_leader_s": round(now - leader_at, 2)}
        elif leader and all(p.poll() is not None for p in procs):  # (no table left to store a record more)
            return {"no_leader_s": round(leader_at - since, 2), "new_leader": leader}
        time.sleep(0.1)
    return {"no_leader_s": None if leader_at is None else round(leader_at - since, 2)}


def init_stream(url: str, replicas: int) -> str:
    done = subprocess.run(tablesim("studio", "init", "--nats", url, "--replicas", str(replicas)),
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip())
    return done.stdout


def check_tables(tables: dict, url: str) -> tuple[dict, list]:
    """Every table: the stream equals the journal, audit verify --anchor --complete passes."""
    from tablesim.studio.anchor import verify_anchor

    flushed = {}
    for tid, (_, journal) in tables.items():  # a table whose drain at exit timed out publishes at its next start
        [rep] = verify_anchor(str(journal), url)
        if rep.unanchored:
            flushed[tid] = rep.unanchored
            flush(journal, url, tid)
    published = lost = doubled = disordered = 0
    failures = []
    complete: dict[str, int] = {}  # each table's audit verify --anchor --complete exit status
    for tid, (_, journal) in tables.items():
        [rep] = verify_anchor(str(journal), url)
        published += rep.stream_records
        lost += rep.journal_records - rep.anchored
        doubled += sum(1 for _, t in rep.problems if "twice" in t)
        disordered += sum(1 for _, t in rep.problems if "out of order" in t or "gap" in t)
        if not rep.ok or rep.unanchored:
            failures.append(rep.lines())
        check = subprocess.run(tablesim("audit", "verify", "--journal", str(journal), "--anchor", url, "--complete"),
                               capture_output=True, text=True)
        complete[tid] = check.returncode
        if check.returncode != 0:
            failures.append([f"{tid}: audit verify --anchor --complete exit {check.returncode}: {check.stderr.strip()}"])
    return {"records_published": published, "lost": lost, "doubled": doubled, "out_of_order": disordered,
            "flushed_at_next_start": flushed, "audit_complete_exit": complete}, failures


def journals_expected(tables: dict) -> dict:
    """The figures the journals' own records give (the studio is not asked)."""
    expected: dict = {}
    for _, journal in tables.values():
        expected = add(expected, journal_figures(journal))
    return expected


def report_check(tables: dict, url: str) -> tuple[dict, list]:
    report = json.loads(subprocess.run(tablesim("studio", "report", "--nats", url, "--json"),
                                       capture_output=True, text=True, check=True).stdout)
    expected = journals_expected(tables)
    got = as_numbers(report["floor"])
    equal = got == expected and report["floor"]["tables"] == len(tables)
    failures = [] if equal else [[f"studio report {got} != journals {expected}"]]
    if report["alerts"]:
        failures.append([f"studio alerts: {report['alerts'][:3]}"])
    return {"report_equals_journals": equal, "floor": report["floor"]}, failures


def faults(cluster: NatsCluster, mon: Monitor, tables: dict, procs: list, goal: int, out: dict) -> None:
    """The leader killed, then (once records are stored again) a second node; both restarted."""
    started = time.monotonic()
    while time.monotonic() - started < 120 and journal_rows([j for _, j in tables.values()]) < goal:
        time.sleep(0.1)
    leader = cluster.node_of(mon.wait(lambda s: s[1] is not None)[1])
    out["first_kill"] = {"node": f"studio-{leader + 1}", "stream_records": mon.last()[2],
                         "journal_records": journal_rows([j for _, j in tables.values()])}
    killed_at = time.monotonic()
    cluster.kill(leader)
    back = mon.wait(lambda s: s[0] > killed_at and s[1] is not None, tables=procs)
    # a record more stored under the new leader; unless every table ended its rounds first (a slow
    # machine's election can outlast them): what they journaled meanwhile is published at their next start
    mon.wait(lambda s: (s[0] > back[0] and s[2] is not None and back[2] is not None and s[2] > back[2])
             or all(p.poll() is not None for p in procs), tables=procs)
    out["first_kill"].update(outage(mon, killed_at))
    out["first_kill"]["tables_still_playing"] = sum(1 for p in procs if p.poll() is None)
    second = cluster.node_of(mon.last()[1])  # the new leader goes too: the stream has no quorum
    out["second_kill"] = {"node": f"studio-{second + 1}", "stream_records": mon.last()[2]}
    cluster.kill(second)
    before = journal_rows([j for _, j in tables.values()])
    time.sleep(2.0)  # the tables go on journaling; nothing can be stored
    out["second_kill"]["journaled_without_quorum"] = journal_rows([j for _, j in tables.values()]) - before
    out["second_kill"]["tables_playing"] = sum(1 for p in procs if p.poll() is None)
    restarted_at = time.monotonic()
    cluster.start(leader)
    cluster.start(second)
    out["restart"] = stored_again(cluster.url(), restarted_at, procs)
    out["restart"]["tables_still_playing"] = sum(1 for p in procs if p.poll() is None)


def run(args, work: Path) -> dict:
    begun = time.monotonic()
    cluster = NatsCluster(work / "cluster")
    url = cluster.url()
    out: dict = {"tables": args.tables, "rounds_per_table": args.rounds, "workdir": str(work)}
    mon = live = None
    procs: dict[str, subprocess.Popen] = {}
    tables: dict[str, tuple[Path, Path]] = {}
    failures: list = []
    try:
        cluster.start()
        out["init"] = init_stream(url, 3).strip().splitlines()
        mon = Monitor(url)
        out["setup_seconds"] = round(time.monotonic() - begun, 1)
        register_keys(f"{PREFIX[GAMES[i % 3]]}-{i + 1:02d}" for i in range(args.tables))
        live = LiveFloor(url)
        for i in range(args.tables):
            table_id, cfg = table_config(work, GAMES[i % 3], i + 1, url)
            journal = work / f"{table_id}.journal.sqlite"
            tables[table_id] = (cfg, journal)
            procs[table_id] = run_table(cfg, journal, args.rounds, args.delay, i + 1, log=work / f"{table_id}.log")
        started = time.monotonic()
        faults(cluster, mon, tables, list(procs.values()), args.tables * 50, out)  # (a round each)
        for tid, proc in procs.items():
            _, stderr = proc.communicate(timeout=900)
            if proc.returncode != 0:
                failures.append([f"{tid}: exit {proc.returncode}: {stderr.strip()[-500:]}"])
        out["run_seconds"] = round(time.monotonic() - started, 1)
        out["cluster_whole_after_tables_s"] = wait_healthy(url)
        out["leader_kill"], more = check_tables(tables, url)
        failures += more
        report, more = report_check(tables, url)
        out.update(report)
        failures += more
        out["live_floor"], more = live.check(url, journals_expected(tables), len(tables))
        failures += more
        out["check_seconds"] = round(time.monotonic() - started - out["run_seconds"], 1)
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        if live is not None:
            live.stop()
        if mon is not None:
            mon.stop()
        cluster.stop()
    out["ok"] = not failures
    for lines in failures:
        print("\n".join(lines), file=sys.stderr)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=30, help="rounds per table (enough to play through the faults)")
    ap.add_argument("--delay", type=float, default=1.0, help="seconds between rounds at each table")
    ap.add_argument("--workdir", type=Path, default=None)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    work = args.workdir or Path(tempfile.mkdtemp(prefix="studio-cluster-"))
    work.mkdir(parents=True, exist_ok=True)
    os.environ["XDG_DATA_HOME"] = str(work / "data")  # the tables' keys and cursors stay here
    out = run(args, work)
    print(json.dumps(out, indent=1, default=str) if args.json else "\n".join(f"{k}: {v}" for k, v in out.items()))
    return 0 if out.get("ok") else 1


if __name__ == "__main__":
    sys.exit(main())
