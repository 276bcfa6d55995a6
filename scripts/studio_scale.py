#!/usr/bin/env python3
"""Scale of the studio on the replicated stream (three nodes, R3).

On three clustered ``nats-server``s from ``config/nats/`` (loopback, the
stream made by ``tablesim studio init --replicas 3``):

1. **stored**: the journals of a few played tables, copied under ``--tables``
   table ids, published at once by their outboxes (in this process): the
   records/s the R3 stream stores (acknowledged by a quorum);
2. **one studio consumer**: a ``tablesim studio serve`` (its own process)
   reading that stream from its first record: records/s;
3. **live tables**: the same outboxes fed at a steady pace (rows appended to
   their journals, ``--rates`` records/s in all, a step each) while that
   ``studio serve`` follows; per step, how far behind its consumer got. A
   step is carried when the floor (journal to ``/api/floor``, the outbox's
   own latency included) stays within a second and a half of the tables at
   the median, and catches up within three seconds once the step ends. Live tables = the highest rate carried / one live table's records/s
   (its records per round, a round every 30 s).

    python scripts/studio_scale.py [--tables 48] [--rates 250,500,1000,2000] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "studio"))

from natscluster import NatsCluster  # noqa: E402

from tablesim.harness.ports import free_port  # noqa: E402
from tablesim.journal.chain import COLUMNS  # noqa: E402
from tablesim.journal.journal import Journal  # noqa: E402
from studio_cluster import init_stream  # noqa: E402
from studio_load import forged_copy, register_keys, tablesim  # noqa: E402

GAMES = ("fortune3", "football", "wheel")
#: seconds between two rounds at a live table (a dealt game with bets)
ROUND_SECONDS = 30.0
#: a step is carried while the consumer stays this close to the stream (seconds of records)
BEHIND_S = 1.5


def played(work: Path, rounds: int) -> list[Path]:
    """One journal per game, played at full speed without a studio."""
    out = []
    for game in GAMES:
        journal = work / f"source-{game}.journal.sqlite"
        subprocess.run(tablesim("run", "--game", game, "--mock", "--quiet", "--rounds", str(rounds), "--delay", "0",
                                "--journal", str(journal)), check=True, capture_output=True)
        out.append(journal)
    return out


def rows_of(journal: Path) -> tuple[list[str], list[tuple]]:
    opened = Journal(journal, readonly=True)
    try:
        return list(COLUMNS), [tuple(row.values()) for row in opened.rows()]
    finally:
        opened.close()


def copies(sources: list[Path], work: Path, tables: int, prefix: str, full: bool) -> list[tuple[str, Path, list]]:
    """``tables`` journals (the sources in turn, under new table ids): whole
    (``full``) or empty, with the rows still to append."""
    out = []
    for i in range(tables):
        src = sources[i % len(sources)]
        tid = f"{prefix}{i:03d}"
        path = work / f"{tid}.journal.sqlite"
        b = forged_copy(src, path)  # (and below, rows appended to it raw, at a pace)
        b.execute("UPDATE records SET table_id = ?, round_id = ? || substr(round_id, instr(round_id, '-0'))",
                  (tid, tid))
        b.commit()
        names, rows = rows_of(path)
        if not full:
            b.execute("DELETE FROM records")
            b.commit()
        b.close()
        out.append((tid, path, rows))
    return out


def publish_all(url: str, journals) -> tuple[int, float]:
    from tablesim.studio.outbox import StudioLink

    total = sum(len(rows) for _, _, rows in journals)
    start = time.monotonic()
    links = [StudioLink(url, str(path), tid).start() for tid, path, _ in journals]
    try:
        while sum(link.published for link in links) < total and time.monotonic() - start < 900:
            time.sleep(0.05)
        return total, time.monotonic() - start
    finally:
        for link in links:
            link.stop()


class Studio:
    """``tablesim studio serve`` in its own process; its consumer's state from /api/floor."""

    def __init__(self, url: str, work: Path) -> None:
        self.port = free_port()
        log = open(work / "studio-serve.log", "ab")
        self.proc = subprocess.Popen(tablesim("studio", "serve", "--nats", url, "--port", str(self.port)),
                                     stdout=log, stderr=subprocess.STDOUT)
        log.close()

    def state(self) -> dict:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/api/floor", timeout=10) as r:
            return json.load(r)["consumer"]

    def wait(self, records: int, budget: float = 900.0) -> float:
        """Seconds from the first record read (not the process's start) to ``records``."""
        start, first = time.monotonic(), None
        while time.monotonic() - start < budget:
            try:
                got = self.state()["records"]
            except OSError:
                got = 0
            if got and first is None:
                first = (time.monotonic(), got)
            if got >= records:
                return time.monotonic() - first[0]
            time.sleep(0.05)
        raise RuntimeError(f"studio serve never read {records} records")

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(20)


def paced(url: str, journals, rate: float, seconds: float, studio: Studio, base: int) -> dict:
    """Rows appended to the journals at ``rate`` records/s in all, their outboxes live."""
    from tablesim.studio.outbox import StudioLink

    names = None
    dbs = []
    for tid, path, rows in journals:
        db = sqlite3.connect(path, check_same_thread=False)
        names = names or list(COLUMNS)
        dbs.append((db, rows, [db.execute("SELECT COUNT(*) FROM records").fetchone()[0]]))
    links = [StudioLink(url, str(path), tid).start() for tid, path, _ in journals]
    sql = f"INSERT INTO records ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})"
    peak, appended, start, turn, lag = 0, 0, time.monotonic(), 0, []
    try:
        while time.monotonic() - start < seconds:
            due = int(rate * (time.monotonic() - start)) - appended
            share: dict[int, int] = {}
            for n in range(max(due, 0)):  # (round-robin over the tables, one transaction each per tick)
                share[(turn + n) % len(dbs)] = share.get((turn + n) % len(dbs), 0) + 1
            turn += max(due, 0)
            for i, count in share.items():
                db, rows, at = dbs[i]
                take = rows[at[0]:at[0] + count]
                with db:
                    db.executemany(sql, take)
                at[0] += len(take)
                appended += len(take)
                links[i].wake()
            if due > 0 and not share:
                break
            try:
                lag.append(base + appended - studio.state()["records"])
                peak = max(peak, lag[-1])
            except OSError:
                pass
            time.sleep(0.1)
        ran = time.monotonic() - start
        caught = studio.wait(base + appended, 300)
        actual = appended / ran
        median = sorted(lag)[len(lag) // 2] if lag else 0
        return {"records_per_s_offered": round(actual), "records": appended, "seconds": round(ran, 1),
                "floor_behind_median_s": round(median / actual, 2), "floor_behind_peak_s": round(peak / actual, 2),
                "caught_up_after_s": round(caught, 2),
                "carried": median / actual <= BEHIND_S and caught <= 2 * BEHIND_S}
    finally:
        for link in links:
            link.stop()
        for db, _, _ in dbs:
            db.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=48, help="table ids published under")
    ap.add_argument("--rounds", type=int, default=40, help="rounds played per source journal")
    ap.add_argument("--rates", default="250,500,1000,2000", help="records/s in all, one step each")
    ap.add_argument("--step-seconds", type=float, default=15.0)
    ap.add_argument("--workdir", type=Path, default=None)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    work = args.workdir or Path(tempfile.mkdtemp(prefix="studio-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    os.environ["XDG_DATA_HOME"] = str(work / "data")
    sources = played(work, args.rounds)
    per_round = sum(len(rows_of(s)[1]) for s in sources) / (len(sources) * args.rounds)
    cluster = NatsCluster(work / "cluster").start()
    url = cluster.url()
    out: dict = {"nodes": 3, "replicas": 3, "records_per_round": round(per_round, 1),
                 "live_table_records_per_s": round(per_round / ROUND_SECONDS, 2)}
    studio = None
    try:
        init_stream(url, 3)
        full = copies(sources, work, args.tables, "S", True)
        live = copies(sources, work, args.tables, "L", False)
        register_keys([tid for tid, _, _ in full + live])  # (all before the studio starts: no rebuild later)
        total, took = publish_all(url, full)
        out["stored"] = {"tables": args.tables, "records": total, "seconds": round(took, 2),
                         "records_per_s": round(total / took)}
        studio = Studio(url, work)
        read = studio.wait(total)
        out["one_consumer"] = {"records": total, "seconds": round(read, 2), "records_per_s": round(total / read),
                               "note": "studio serve from the stream's first record, every signature checked"}
        steps = []
        for rate in [float(r) for r in args.rates.split(",")]:
            steps.append(paced(url, live, rate, args.step_seconds, studio, studio.state()["records"]))
            print(json.dumps(steps[-1]), file=sys.stderr)
            if not steps[-1]["carried"] or steps[-1]["records_per_s_offered"] < rate * 0.8:
                break  # (behind, or this process cannot offer more)
        out["live_steps"] = steps
        carried = max((s["records_per_s_offered"] for s in steps if s["carried"]), default=0)
        out["live_tables_carried"] = int(carried / (per_round / ROUND_SECONDS))
    finally:
        if studio is not None:
            studio.stop()
        cluster.stop()
    print(json.dumps(out, indent=1) if args.json else "\n".join(f"{k}: {v}" for k, v in out.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
