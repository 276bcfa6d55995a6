#!/usr/bin/env python3
"""Load, faults and scale for the studio.

Runs N tables (the three games in turn) as separate ``tablesim run --config``
processes against one ``nats-server -js``, kills the broker (SIGKILL) in the
middle of the run and starts it again on the same store, kills some tables
(SIGKILL) and starts them again; then, for every table:

- the stream equals the journal: no record lost, none duplicated, none out
  of order (``tablesim.studio.anchor``), and ``tablesim audit verify
  --anchor`` passes;
- ``tablesim studio report --json`` totals equal the sum of the journals
  (computed here from the SQLite files, independently of the studio).

It also measures how many records per second one studio consumer reads
(the durable consumer of ``tablesim studio serve``, from the first record of
the stream), and how many tables one nats-server carries here before that
consumer falls behind.

    python scripts/studio_load.py [--tables 12] [--rounds 40] [--workdir DIR] [--json]

Exit 0 when every check holds. Needs nats-server (Debian package).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from journal_figures import add, as_numbers, journal_figures  # (beside this script)
from tablecore.errors import InputError
from tablesim.harness.ports import free_port
from tablesim.journal.journal import Journal

GAMES = ("fortune3", "football", "wheel")
DEVICES = {"fortune3": ("shoe",), "football": ("shoe", "display"), "wheel": ("wheel",)}
PREFIX = {"fortune3": "F3", "football": "FB", "wheel": "WH"}


class Broker:
    def __init__(self, store: Path) -> None:
        self.store, self.port, self.proc = store, free_port(), None
        self.binary = shutil.which("nats-server") or "/usr/sbin/nats-server"

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"

    def start(self) -> None:
        log = open(self.store.parent / "nats.log", "ab")
        self.proc = subprocess.Popen([self.binary, "-js", "-a", "127.0.0.1", "-p", str(self.port),
                                      "-sd", str(self.store)], stdout=log, stderr=subprocess.STDOUT)
        log.close()
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as s:
                    if s.recv(4).startswith(b"INFO"):
                        return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("nats-server did not start")

    def kill(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)


def table_config(work: Path, game: str, index: int, url: str) -> tuple[str, Path]:
    table_id = f"{PREFIX[game]}-{index:02d}"
    devices = "\n".join(f"[devices.{kind}]\nbackend = \"mock\"\nseed = {index * 10 + n}\n"
                        for n, kind in enumerate(DEVICES[game]))
    path = work / f"{table_id}.toml"
    urls = url.split(",")  # a cluster's nodes: the table configuration's list
    where = f"url = \"{url}\"" if len(urls) == 1 else "urls = [" + ", ".join(f'"{u}"' for u in urls) + "]"
    path.write_text(f"[table]\nid = \"{table_id}\"\ngame = \"{game}\"\n\n{devices}\n[studio]\n{where}\n")
    return table_id, path


def register_keys(table_ids) -> None:
    """What an operator does once per table: its signing key made (as the
    table would at its first start) and its public key registered with the
    studio, which counts nothing else."""
    from tablesim.studio import signing, trust

    for table_id in table_ids:
        key = signing.signing_key_for(signing.default_signing_key_path(table_id))
        trust.register(None, table_id, signing.public_hex(key))


def tablesim(*args: str) -> list[str]:
    return [sys.executable, "-m", "tablesim.cli.main", *args]


def run_table(cfg: Path, journal: Path, rounds: int, delay: float, seed: int, log: Path | None = None) -> subprocess.Popen:
    """A table process; ``log``: its stderr (the studio link's log lines) to a file instead of a pipe."""
    err = open(log, "a") if log is not None else subprocess.PIPE
    try:
        return subprocess.Popen(tablesim(*(("--log-level", "info") if log is not None else ()), "run", "--config", str(cfg), "--rounds", str(rounds), "--quiet",
                                         "--seed", str(seed), "--delay", str(delay), "--journal", str(journal)),
                                stdout=subprocess.PIPE, stderr=err, text=True)
    finally:
        if log is not None:
            err.close()


def forged_copy(source: Path, dest: Path) -> sqlite3.Connection:
    """A copy of the journal ``source`` at ``dest``, opened past the journal to
    be forged on purpose (its records put under another table id: the studio
    publishes records, it never verifies their links)."""
    journal = Journal(source, readonly=True)
    try:
        journal.store.copy_to(dest)
    finally:
        journal.close()
    return sqlite3.connect(dest)


def journal_rows(journals: list[Path]) -> int:
    total = 0
    for j in journals:
        try:
            opened = Journal(j, readonly=True)
        except InputError:
            continue  # not created yet
        try:
            total += opened.store.count()
        finally:
            opened.close()
    return total


async def stream_count(url: str) -> int:
    from tablesim.studio import natsio, wire

    nc = await natsio.connect(url, "tablesim-load")
    try:
        return (await nc.jetstream().stream_info(wire.STREAM)).state.messages
    except Exception:
        return 0
    finally:
        await nc.close()


# --- measurements ---------------------------------------------------------------------------

async def consumer_rate(url: str) -> tuple[int, float]:
    """Records a fresh durable studio consumer reads from the stream's start, and its rate."""
    from tablesim.studio.consumer import StudioConsumer

    consumer = StudioConsumer(url, durable="tablesim-load-measure")
    start = time.perf_counter()
    task = asyncio.create_task(consumer.run())
    await asyncio.wait_for(consumer.caught_up.wait(), 600)
    while consumer.pending:
        await asyncio.sleep(0.01)
    elapsed = time.perf_counter() - start
    consumer.stop()
    task.cancel()
    try:
        await task
    except (asyncio.CancelledError, Exception):
        pass
    return consumer.floor.records, consumer.floor.records / elapsed


def flush(journal: Path, url: str, table_id: str) -> int:
    """What the table's next start does: publish what is still to go."""
    from tablesim.studio.outbox import StudioLink

    link = StudioLink(url, str(journal), table_id).start()
    remaining = link.stop(drain=30)
    return remaining


class Follower:
    """A studio consumer following the stream live, on a thread of its own."""

    def __init__(self, url: str) -> None:
        import threading

        self.url, self.consumer, self.loop = url, None, None
        self.thread = threading.Thread(target=lambda: asyncio.run(self._main()), daemon=True)
        self.thread.start()
        while self.consumer is None:
            time.sleep(0.01)

    async def _main(self) -> None:
        from tablesim.studio.consumer import StudioConsumer

        self.loop = asyncio.get_running_loop()
        self.consumer = StudioConsumer(self.url, durable="tablesim-load-follow")
        await self.consumer.run()

    def stop(self) -> None:
        self.consumer.stop()
        self.thread.join(10)


def scale(counts: list[int], rounds: int, work: Path) -> list[dict]:
    """For each count of tables at full speed: records/s into the stream, and
    whether one live studio consumer keeps up (how far behind it gets)."""
    results = []
    for k in counts:
        broker = Broker(work / f"scale-{k}" / "nats-store")
        broker.store.mkdir(parents=True)
        broker.start()
        register_keys(f"{PREFIX[GAMES[i % 3]]}-{i + 1:02d}" for i in range(k))
        follower = Follower(broker.url)
        procs = []
        try:
            for i in range(k):
                game = GAMES[i % 3]
                table_id, cfg = table_config(broker.store.parent, game, i + 1, broker.url)
                procs.append(run_table(cfg, broker.store.parent / f"{table_id}.journal.sqlite", rounds, 0.0, i + 1))
            start = time.monotonic()
            peak_behind, samples = 0, []
            while any(p.poll() is None for p in procs):
                c = follower.consumer
                peak_behind = max(peak_behind, c.pending)
                samples.append(c.pending)
                time.sleep(0.5)
            ran = time.monotonic() - start
            ended = time.monotonic()
            c = follower.consumer
            while c.pending or c.floor.records == 0:
                time.sleep(0.05)
                if time.monotonic() - ended > 120:
                    break
            catch_up = time.monotonic() - ended
            records = c.floor.records
            ingest = records / ran
            results.append({"tables": k, "records": records, "run_s": round(ran, 1),
                            "records_per_s_in": round(ingest), "consumer_peak_behind": peak_behind,
                            "consumer_behind_s": round(peak_behind / ingest, 2) if ingest else None,
                            "catch_up_after_end_s": round(catch_up, 2),
                            "kept_up": catch_up < 1.0 and peak_behind < ingest})
        finally:
            for p in procs:
                if p.poll() is None:
                    p.kill()
                p.wait()
            follower.stop()
            broker.stop()
        print(json.dumps(results[-1]), file=sys.stderr)
    return results


def replay(source: Path, copies: int, work: Path) -> dict:
    """The broker and one consumer without the tables' own work: the journals
    of a load run (``source``), ``copies`` times over under other table ids,
    published at once by their outboxes (in this process) to a fresh broker
    while a live studio consumer follows. Gives the records/s the outboxes get
    stored and whether the consumer keeps up with that."""
    from tablesim.studio.outbox import StudioLink

    journals = sorted(source.glob("*.journal.sqlite"))
    broker = Broker(work / "replay" / "nats-store")
    broker.store.mkdir(parents=True)
    broker.start()
    links, total = [], 0
    try:
        made = []
        for c in range(copies):
            for j in journals:
                tid = f"R{c:02d}-{j.name.split('.')[0]}"
                copy = broker.store.parent / f"{tid}.journal.sqlite"
                dst = forged_copy(j, copy)
                dst.execute("UPDATE records SET table_id = ?", (tid,))
                dst.commit()
                total += dst.execute("SELECT COUNT(*) FROM records").fetchone()[0]
                dst.close()
                made.append((tid, copy))
        register_keys(tid for tid, _ in made)
        follower = Follower(broker.url)
        start = time.monotonic()
        links = [StudioLink(broker.url, str(path), tid).start() for tid, path in made]
        peak = 0
        while sum(link.published for link in links) < total:
            peak = max(peak, follower.consumer.pending)
            time.sleep(0.1)
            if time.monotonic() - start > 600:
                break
        published_s = time.monotonic() - start
        while follower.consumer.floor.records < total and time.monotonic() - start < 900:
            peak = max(peak, follower.consumer.pending)
            time.sleep(0.05)
        consumed_s = time.monotonic() - start
        follower.stop()
        alone_records, alone_rate = asyncio.run(consumer_rate(broker.url))
        return {"consumer_alone_records_per_s": round(alone_rate), "consumer_alone_records": alone_records,
                "tables": len(made), "records": total, "published_in_s": round(published_s, 2),
                "records_per_s_stored": round(total / published_s),
                "consumer_done_in_s": round(consumed_s, 2), "consumer_records_per_s": round(total / consumed_s),
                "consumer_peak_behind": peak}
    finally:
        for link in links:
            link.stop()
        broker.stop()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=12)
    ap.add_argument("--rounds", type=int, default=40, help="rounds per table")
    ap.add_argument("--delay", type=float, default=0.02, help="seconds between rounds at each table")
    ap.add_argument("--workdir", type=Path, default=None)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--scale", default=None, metavar="N,N,...",
                    help="instead: tables at full speed, N at a time, with a live studio consumer")
    ap.add_argument("--replay", type=Path, default=None, metavar="DIR",
                    help="instead: publish the journals of a load run's DIR at once (see replay())")
    ap.add_argument("--copies", type=int, default=4, help="--replay: how many times over")
    args = ap.parse_args()
    work = args.workdir or Path(tempfile.mkdtemp(prefix="studio-load-"))
    work.mkdir(parents=True, exist_ok=True)
    os.environ["XDG_DATA_HOME"] = str(work / "data")  # the tables' keys and cursors stay here
    if args.replay:
        print(json.dumps(replay(args.replay, args.copies, work), indent=1))
        return 0
    if args.scale:
        rows = scale([int(n) for n in args.scale.split(",")], args.rounds, work)
        print(json.dumps(rows, indent=1))
        return 0
    broker = Broker(work / "nats-store")
    broker.start()
    out: dict = {"tables": args.tables, "rounds_per_table": args.rounds, "workdir": str(work)}
    procs: dict[str, subprocess.Popen] = {}
    tables: dict[str, tuple[Path, Path]] = {}
    try:
        register_keys(f"{PREFIX[GAMES[i % 3]]}-{i + 1:02d}" for i in range(args.tables))
        for i in range(args.tables):
            game = GAMES[i % 3]
            table_id, cfg = table_config(work, game, i + 1, broker.url)
            journal = work / f"{table_id}.journal.sqlite"
            tables[table_id] = (cfg, journal)
            procs[table_id] = run_table(cfg, journal, args.rounds, args.delay, i + 1)
        started = time.monotonic()
        # the broker dies mid-run (once the tables are well under way) and comes back on the same store
        goal = args.tables * args.rounds * 50 // 4  # about a quarter of the records the run makes
        while time.monotonic() - started < 60 and journal_rows([j for _, j in tables.values()]) < goal:
            time.sleep(0.2)
        out["stream_records_at_kill"] = asyncio.run(stream_count(broker.url))
        out["journal_records_at_kill"] = journal_rows([j for _, j in tables.values()])
        broker.kill()
        out["broker_killed_after_s"] = round(time.monotonic() - started, 1)
        victims = sorted(tables)[::4]  # every fourth table is killed too, and restarted
        for tid in victims:
            procs[tid].send_signal(signal.SIGKILL)
            procs[tid].wait()
        time.sleep(2)
        broker.start()
        for tid in victims:
            cfg, journal = tables[tid]
            procs[tid] = run_table(cfg, journal, max(args.rounds // 2, 1), args.delay, 1000)
        out["tables_killed"] = victims
        for tid, proc in procs.items():
            stdout, stderr = proc.communicate(timeout=900)
            if proc.returncode != 0:
                print(f"{tid}: exit {proc.returncode}: {stderr.strip()[-500:]}", file=sys.stderr)
                return 1
        out["run_seconds"] = round(time.monotonic() - started, 1)
        # a table whose drain at exit timed out publishes the rest at its next start
        out["flushed_after_exit"] = {tid: 0 for tid in tables}
        from tablesim.studio.anchor import verify_anchor

        for tid, (_, journal) in tables.items():
            [rep] = verify_anchor(str(journal), broker.url)
            if rep.unanchored:
                out["flushed_after_exit"][tid] = rep.unanchored
                flush(journal, broker.url, tid)
        # every table: stream == journal, audit verify --anchor passes
        published = lost = duplicated = disordered = 0
        failures = []
        for tid, (_, journal) in tables.items():
            [rep] = verify_anchor(str(journal), broker.url)
            published += rep.stream_records
            lost += rep.journal_records - rep.anchored
            duplicated += sum(1 for _, t in rep.problems if "twice" in t)
            disordered += sum(1 for _, t in rep.problems if "out of order" in t)
            if not rep.ok or rep.unanchored:
                failures.append(rep.lines())
        # the operator's command over every journal at once (one verdict line each)
        every = [a for _, journal in tables.values() for a in ("--journal", str(journal))]
        check = subprocess.run(tablesim("audit", "verify", *every, "--anchor", broker.url), capture_output=True,
                               text=True)
        if check.returncode != 0:
            failures.append([f"audit verify --anchor exit {check.returncode}: {check.stderr.strip()}"])
        out["broker_kill"] = {"records_published": published, "lost": lost, "duplicated": duplicated,
                              "out_of_order": disordered}
        # studio report totals == the journals'
        report = json.loads(subprocess.run(tablesim("studio", "report", "--nats", broker.url, "--json"),
                                           capture_output=True, text=True, check=True).stdout)
        expected: dict = {}
        for _, journal in tables.values():
            expected = add(expected, journal_figures(journal))
        got = as_numbers(report["floor"])
        out["report_equals_journals"] = got == expected and report["floor"]["tables"] == len(tables)
        out["floor"] = report["floor"]
        if not out["report_equals_journals"]:
            failures.append([f"studio report {got} != journals {expected}"])
        if report["alerts"]:
            failures.append([f"studio alerts: {report['alerts'][:3]}"])
        records, rate = asyncio.run(consumer_rate(broker.url))
        out["consumer"] = {"records": records, "records_per_second": round(rate)}
        out["ok"] = not failures
        for lines in failures:
            print("\n".join(lines), file=sys.stderr)
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        broker.stop()
    print(json.dumps(out, indent=1, default=str) if args.json else "\n".join(f"{k}: {v}" for k, v in out.items()))
    return 0 if out.get("ok") else 1


if __name__ == "__main__":
    sys.exit(main())
