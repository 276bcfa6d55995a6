#!/usr/bin/env python3
"""Time the README's test command the way its goal is stated, with the machine's speed beside it.

    python scripts/suite_time.py [--runs 3] [--json] [--log FILE] [-- COMMAND...]

Runs ``COMMAND`` (default: ``python -m pytest``, the README's test command)
``--runs`` times, one after the other, and for each run reports:

- ``wall_s``: its wall time;
- ``machine_cpu_s``: the CPU time the whole machine spent meanwhile (every
  core, every process, from ``/proc/stat``; ``steal_s``: of it, the host's): the suite's
  browsers and servers included, which its own process tree does not reap;
- ``busy_cores``: the two divided: a run at the machine's core count was
  bound by the CPU, not by waiting;
- ``probe_before_s``, ``probe_after_s``: the seconds one core takes for a
  fixed loop just before and after it (``tablesim.harness.bench.measure.probe``).
  On a shared host that moves by half within an hour; a wall time is only
  compared with another taken at the same probe, or read beside it;
- ``summary``: the command's last line (pytest's counts), and its exit code.

The command's own output goes to ``--log`` (default: a temporary file,
named in the report). Nothing here changes the suite: it is the command as
a user types it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

#: the README's test command (the one CI runs first)
DEFAULT = [sys.executable, "-m", "pytest"]
#: the goal for that command on a quiet two-core machine
GOAL_S = 150.0


def machine_seconds() -> tuple[float, float] | None:
    """(busy, stolen) CPU seconds of every core since boot (``harness.bench.saturation``),
    or None where the system does not say (no ``/proc/stat``)."""
    from tablesim.harness.bench.saturation import machine_busy, machine_steal

    try:
        return machine_busy(), machine_steal()
    except (OSError, ValueError):
        return None


def one_run(command: list[str], log_path: Path, probe) -> dict:
    before_probe = probe()
    ticks = machine_seconds()
    load = os.getloadavg()[0]
    start = time.perf_counter()
    with open(log_path, "ab") as log:
        log.write(f"$ {' '.join(command)}\n".encode())
        log.flush()
        code = subprocess.call(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    wall = time.perf_counter() - start
    after = machine_seconds()
    after_probe = probe()
    cpu = steal = None
    if ticks is not None and after is not None:
        cpu, steal = round(after[0] - ticks[0], 1), round(after[1] - ticks[1], 1)
    return {"wall_s": round(wall, 1), "machine_cpu_s": cpu, "steal_s": steal,
            "busy_cores": None if cpu is None else round(cpu / wall, 2),
            "probe_before_s": before_probe, "probe_after_s": after_probe, "load_average_before": round(load, 2),
            "exit_code": code, "summary": last_line(log_path)}


def last_line(path: Path) -> str:
    """The log's last line that is not blank (pytest's counts and time)."""
    with open(path, "rb") as f:
        f.seek(max(0, os.path.getsize(path) - 4096))
        lines = [line.strip() for line in f.read().decode(errors="replace").splitlines() if line.strip()]
    return lines[-1].strip("= ") if lines else ""  # (without pytest's rule of = around it)


def report(runs: list[dict], command: list[str], log_path: Path) -> dict:
    walls = [r["wall_s"] for r in runs]
    return {"command": " ".join(command), "log": str(log_path), "cores": os.cpu_count(), "goal_s": GOAL_S,
            "runs": runs, "wall_s": {"lowest": min(walls), "median": statistics.median(walls), "highest": max(walls)},
            "under_goal": sum(w < GOAL_S for w in walls), "failed_runs": sum(r["exit_code"] != 0 for r in runs)}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    own, command = (argv[:argv.index("--")], argv[argv.index("--") + 1:]) if "--" in argv else (argv, [])
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3, help="runs one after the other (default 3)")
    ap.add_argument("--json", action="store_true", help="one JSON object on stdout")
    ap.add_argument("--log", type=Path, help="where the command's output goes (default: a temporary file)")
    ap.error = lambda message: ap.exit(2, f"suite_time.py: {message}\n")  # (one line, not the usage too)
    args = ap.parse_args(own)
    if args.runs < 1:
        ap.exit(2, f"suite_time.py: --runs: {args.runs} is not a number of runs (1 or more)\n")
    if "--" in argv and not command:
        ap.exit(2, "suite_time.py: nothing after --: give the command to time, or leave out the --\n")
    command = command or DEFAULT
    log_path = args.log or Path(tempfile.mkstemp(prefix="suite-time-", suffix=".log")[1])
    if args.log is not None and not log_path.parent.is_dir():
        ap.exit(2, f"suite_time.py: --log: the folder {str(log_path.parent)!r} does not exist\n")
    from tablesim.harness.bench.measure import probe

    runs = []
    for n in range(args.runs):
        runs.append(one_run(command, log_path, probe))
        if not args.json:
            r = runs[-1]
            cpu = "n/a" if r["machine_cpu_s"] is None else f"{r['machine_cpu_s']} CPU-s ({r['busy_cores']} cores busy)"
            print(f"run {n + 1}: {r['wall_s']} s, the machine {cpu}, probe {r['probe_before_s']} -> "
                  f"{r['probe_after_s']} s; {r['summary']}", flush=True)
    out = report(runs, command, log_path)
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        w = out["wall_s"]
        print(f"wall {w['lowest']} / {w['median']} / {w['highest']} s (lowest / median / highest); "
              f"{out['under_goal']} of {len(runs)} under {GOAL_S:.0f} s; the command's output: {log_path}")
    return 1 if out["failed_runs"] else 0


if __name__ == "__main__":
    sys.exit(main())
