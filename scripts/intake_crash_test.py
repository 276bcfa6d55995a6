#!/usr/bin/env python3
"""Kill a served table with SIGKILL while bets stream in, restart it, and
check that no acknowledged bet was lost or placed twice.

    python scripts/intake_crash_test.py [--kills 5] [--rounds 1] [--seed 1] [--clients 8] [--journal PATH]

A wheel table (mock sensor) is served by ``tablesim serve`` with its journal
on disk. Clients post batches of bets, each bet with its own ref, to
``POST /api/bets/batch``; at a random moment the server is killed. A bet
whose answer came back is *acknowledged*; the others (their request was in
flight) are *unanswered*. After each restart the clients send every
unanswered bet again with the same ref: a bet that was committed before the
kill is answered ``duplicate`` (the player is told it stands), one that was
not is placed now. They also send again a sample of the bets acknowledged
before earlier kills, rounds ago too (``--rounds``: the kills are spread
over that many rounds, each settled before the next opens): every one must
be answered ``duplicate``, however old. At the end the round is settled and
the journal checked:

- every acknowledged bet is in the journal exactly once;
- every bet in the journal was acknowledged to its player (before the kill,
  or on the retry): none is settled without the player being told;
- the journal's promises hold (audit chain, every bet settled exactly once).

Exit 0 when every promise held, 1 otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from tablesim.harness.bench.served import Connection, ServedTable, call
from tablesim.journal.journal import Journal
from tablesim.journal.placed import BET_NAMES, REF_NAMES, bets as placed_bets, refs as placed_refs

BATCH = 20
SPOTS = ("1", "3", "5", "10", "20", "joker", "logo")


def Table(journal: Path, seed: int) -> ServedTable:
    """``tablesim serve`` on a journal (and its key) kept across kills."""
    return ServedTable("--game", "wheel", "--mock", "--seed", str(seed), "--pace", "0.01", journal_path=journal,
                       data_dir=os.environ["XDG_DATA_HOME"])


def bet(ref: str) -> dict:
    n = sum(map(ord, ref))
    return {"position": f"p-{ref}", "bet": SPOTS[n % len(SPOTS)], "amount": "1", "ref": ref}


async def stream(table: ServedTable, kill_no: int, clients: int, acked: set[str], unanswered: set[str],
                 stop: asyncio.Event, counts: Counter) -> None:
    """Post batches until the server dies; sort every bet into acked or unanswered."""

    async def client(c: int) -> None:
        try:
            conn = await Connection(table.host, table.port, table.token).open()
        except OSError:
            return
        n = 0
        while not stop.is_set():
            refs = [f"k{kill_no}-c{c}-{n}-{i}" for i in range(BATCH)]
            n += 1
            body = json.dumps({"bets": [bet(r) for r in refs]}).encode()
            try:
                status, raw = await conn.request("POST", "/api/bets/batch", body)
            except (OSError, ConnectionError, asyncio.IncompleteReadError):
                unanswered.update(refs)
                return
            if status != 200:
                raise RuntimeError(f"batch refused: {status} {raw[:200]!r}")
            for result in json.loads(raw)["results"]:
                if not result["ok"]:
                    raise RuntimeError(f"bet refused: {result}")
                acked.add(result["ref"])
                counts["acknowledged before a kill"] += 1

    await asyncio.gather(*(client(c) for c in range(clients)))


def kill_while_betting(table: ServedTable, kill_no: int, clients: int, delay: float,
                       acked: set[str], unanswered: set[str], counts: Counter) -> None:
    async def main() -> None:
        stop = asyncio.Event()
        task = asyncio.ensure_future(stream(table, kill_no, clients, acked, unanswered, stop, counts))
        await asyncio.sleep(delay)
        os.kill(table.proc.pid, signal.SIGKILL)
        await task

    asyncio.run(main())
    table.proc.wait()


def retry(table: ServedTable, unanswered: set[str], acked: set[str], counts: Counter) -> None:
    """Send every unanswered bet again with its ref; each is now answered."""
    pending = sorted(unanswered)
    for start in range(0, len(pending), 200):
        refs = pending[start:start + 200]
        answer = call(table, "POST", "/api/bets/batch", {"bets": [bet(r) for r in refs]})
        for result in answer["results"]:
            if not result["ok"]:
                raise RuntimeError(f"a retried bet was refused: {result}")
            counts["committed before the kill, told on retry" if result.get("duplicate")
                   else "not committed before the kill, placed on retry"] += 1
            acked.add(result["ref"])
    unanswered.clear()


def retry_old(table: ServedTable, old: list[str], rng: random.Random, counts: Counter, problems: list[str]) -> None:
    """Send again bets acknowledged before earlier kills (earlier rounds too):
    each must be told it stands, none placed again."""
    sample = rng.sample(old, min(len(old), 200))
    if not sample:
        return
    answer = call(table, "POST", "/api/bets/batch", {"bets": [bet(r) for r in sample]})
    counts["acknowledged long before, retried"] += len(sample)
    placed = [r for r in answer["results"] if not (r["ok"] and r.get("duplicate"))]
    if placed:
        problems.append(f"{len(placed)} of {len(sample)} old acknowledged bets retried were not duplicates, "
                        f"e.g. {placed[0]}")


def settle(table: ServedTable) -> dict:
    call(table, "POST", "/api/actions/close_betting")
    for _ in range(20):  # a short spin is a no-spin: spin again
        call(table, "POST", "/api/actions/spin")
        end = time.monotonic() + 30
        while True:
            snap = call(table, "GET", "/api/table")
            if snap["state"] in ("complete", "void") or (snap["state"] == "bets_closed"
                                                         and not snap["view"]["spin_requested"]):
                break
            if time.monotonic() > end:
                raise RuntimeError(f"the spin did not end: {snap['state']}")
            time.sleep(0.05)
        if snap["state"] in ("complete", "void"):
            return snap
    raise RuntimeError("no valid spin in 20 tries")


def journal_refs(path: Path) -> Counter:
    journal = Journal(path, readonly=True)
    try:
        refs: Counter = Counter()
        bets = 0
        for rec in journal.find(names=REF_NAMES + BET_NAMES):
            refs.update(r[0] for r in placed_refs(rec))
            bets += sum(1 for _ in placed_bets(rec))
    finally:
        journal.close()
    refs["<bet events>"] = bets
    return refs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=1, help="rounds the kills are spread over")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--journal", type=Path, default=None)
    parser.add_argument("--data-dir", type=Path, default=None, help="the journal's key and tokens (default: a new directory)")
    parser.add_argument("--max-delay", type=float, default=1.0, help="longest betting before a kill, in seconds")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    tmp = tempfile.TemporaryDirectory(prefix="tablesim-intake-crash-")
    journal = args.journal or Path(tmp.name) / "wheel.journal.sqlite"
    os.environ["XDG_DATA_HOME"] = str(args.data_dir or tmp.name)  # the journal's key and tokens, across restarts
    acked: set[str] = set()
    unanswered: set[str] = set()
    counts: Counter = Counter()
    problems: list[str] = []
    table = Table(journal, args.seed)
    try:
        call(table, "POST", "/api/actions/open_round")
        per_round = max(1, -(-args.kills // max(1, args.rounds)))
        for kill_no in range(args.kills):
            if kill_no and kill_no % per_round == 0:  # the next round: the old refs must still be known
                settle(table)
                call(table, "POST", "/api/actions/open_round")
            old = sorted(acked)
            kill_while_betting(table, kill_no, args.clients, rng.uniform(0.2, args.max_delay), acked, unanswered,
                               counts)
            counts["unanswered at a kill"] += len(unanswered)
            table.close()
            table = Table(journal, args.seed)
            snap = call(table, "GET", "/api/table")
            if snap["state"] != "betting_open":
                problems.append(f"after kill {kill_no + 1} the table is {snap['state']}, not betting_open")
                break
            retry(table, unanswered, acked, counts)
            retry_old(table, old, rng, counts, problems)
        result = settle(table)
    finally:
        table.close()
    refs = journal_refs(journal)
    events = refs.pop("<bet events>")
    twice = [r for r, n in refs.items() if n > 1]
    lost = acked - set(refs)
    untold = set(refs) - acked
    if twice:
        problems.append(f"{len(twice)} bets in the journal more than once, e.g. {twice[:3]}")
    if lost:
        problems.append(f"{len(lost)} acknowledged bets missing from the journal, e.g. {sorted(lost)[:3]}")
    if untold:
        problems.append(f"{len(untold)} bets in the journal never acknowledged, e.g. {sorted(untold)[:3]}")
    if events != len(refs):
        problems.append(f"{events} bet events for {len(refs)} refs")
    from tablesim.journal.invariants import check

    j = Journal(journal, readonly=True)
    try:
        problems += check(j, allow_open_last=False)
    finally:
        j.close()
    print(f"wheel: {args.kills} kills while bets streamed in, {len(refs)} bets in the journal, "
          f"round {result['round_id']} {result['state']}")
    for what in ("acknowledged before a kill", "unanswered at a kill",
                 "committed before the kill, told on retry", "not committed before the kill, placed on retry",
                 "acknowledged long before, retried"):
        print(f"  {what}: {counts[what]}")
    print(f"  acknowledged bets missing: {len(lost)}; in the journal twice: {len(twice)}; "
          f"settled without the player told: {len(untold)}")
    for p in problems:
        print(f"  PROBLEM: {p}")
    print("  all promises held" if not problems else "  FAILED")
    tmp.cleanup()
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
