#!/usr/bin/env python3
"""Kill a mock table with SIGKILL at random moments, restart it, and check
that no bet was lost or paid twice and that the audit chain holds.

    python scripts/crash_test.py --game fortune3 --kills 25 [--seed 1] [--journal PATH]

Exit 0 when every promise held, 1 otherwise.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tablesim.journal.invariants import check, states_at_crash
from tablesim.journal.journal import Journal
from tablesim.journal.placed import placed


def start_table(args: list[str]) -> tuple[int, "object"]:
    """``tablesim ARGS`` as a child process: (pid, its standard output).

    Forked from this process where the system can (the code is imported
    once, so each of the many restarts costs milliseconds instead of an
    interpreter's start); the child is a process of its own all the same,
    killed with SIGKILL like any other.
    """
    if not hasattr(os, "fork"):
        proc = subprocess.Popen([sys.executable, "-m", "tablesim.cli.main", *args],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        return proc.pid, proc.stdout
    from tablesim.cli.main import main as tablesim_main

    read, write = os.pipe()
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:  # the table
        code = 1
        try:
            os.close(read)
            os.dup2(write, 1)
            os.dup2(os.open(os.devnull, os.O_WRONLY), 2)
            sys.stdout = open(1, "w", buffering=1, closefd=False)
            sys.stderr = open(2, "w", closefd=False)
            sys.argv = ["tablesim", *args]
            tablesim_main()
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        finally:
            try:
                sys.stdout.flush()
            finally:
                os._exit(code)
    os.close(write)
    return pid, os.fdopen(read, "r")


def wait_exit(pid: int) -> int:
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def run_once(game: str, journal: Path, seed: int, kill_after: float | None, extra: list[str]) -> int:
    args = [
        "run", "--game", game, "--mock",
        "--rounds", "100000" if kill_after is not None else "3", "--seed", str(seed),
        "--journal", str(journal), "--quiet", *extra,
    ]
    if hasattr(os, "fork"):
        from tablesim.games.registry import spec

        for part in ("mock", "session"):  # imported once here, not in every forked table
            spec(game).part(part)
    pid, out = start_table(args)
    try:
        if kill_after is None:
            out.read()
            return wait_exit(pid)
        # Wait until the table has opened its journal (and recovered), then let it
        # play for a random while.
        for line in out:
            if line.startswith("journal:"):
                break
        time.sleep(kill_after)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        wait_exit(pid)
        return -9
    finally:
        out.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", required=True, choices=["fortune3", "football", "wheel"])
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--journal", type=Path, default=None)
    parser.add_argument("--max-delay", type=float, default=0.6, help="longest run before a kill, in seconds")
    parser.add_argument("extra", nargs="*", help="more options for tablesim run (after --)")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    tmp = None
    journal = args.journal
    if journal is None:
        tmp = tempfile.TemporaryDirectory()
        journal = Path(tmp.name) / f"{args.game}.journal.sqlite"
    for i in range(args.kills):
        run_once(args.game, journal, args.seed * 1000 + i, rng.uniform(0.0, args.max_delay), args.extra)
    code = run_once(args.game, journal, args.seed * 1000 + args.kills, None, args.extra)
    j = Journal(journal, readonly=True)
    problems = check(j, allow_open_last=False)
    states = states_at_crash(j)
    rounds = len(j.round_ids())
    bets = sum(1 for _ in placed(j.records()))
    print(f"{args.game}: {args.kills} kills, {rounds} rounds, {bets} bets checked, final run exit {code}")
    print("  state at crash (recovered rounds): " + ", ".join(f"{s} {n}" for s, n in sorted(states.items())))
    for p in problems:
        print(f"  PROBLEM: {p}")
    print("  all promises held" if not problems and code == 0 else "  FAILED")
    return 0 if not problems and code == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
