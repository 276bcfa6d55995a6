#!/usr/bin/env python3
"""Turn `tablesim simulate --json` outputs into the markdown report of docs/simulation.md.

    python scripts/simulation_report.py fortune3.json football.json ... > docs/simulation.md
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def section(report: dict) -> str:
    opts = ", ".join(f"{k} {v}" for k, v in report.get("options", {}).items()) or "defaults"
    lines = [
        f"## {report['game']} ({opts})",
        "",
        f"{report['rounds']:,} rounds ({report['void_rounds']} void), seed {report['seed']}, "
        f"{report['workers']} workers, {report['seconds']:.0f} s "
        f"({report['rounds'] / report['seconds']:,.0f} rounds/s). Shoe state: {report['shoe_state']}.",
        "",
        "| bet | wagered | returned | measured | 99% interval | exact | inside 99% | inside 99.9% |",
        "|---|---:|---:|---:|---|---:|:-:|:-:|",
    ]
    for bet, b in report["bets"].items():
        lo, hi = b["ci99"]
        lines.append(
            f"| {bet} | {b['wagered']} | {b['returned']} | {b['measured']:.6f} | [{lo:.6f}, {hi:.6f}] | "
            f"{b['exact']:.6f} | {'yes' if b['inside99'] else 'no'} | {'yes' if b['inside999'] else 'no'} |"
        )
    bases = {b.get("exact_basis") for b in report["bets"].values()}
    lines.append("")
    lines.append("Exact figures for: " + "; ".join(sorted(x for x in bases if x)) + ".")
    lines.append("")
    return "\n".join(lines)


CLUSTER = """## On several machines (a Dask cluster)

`tablesim simulate GAME --rounds N --scheduler tcp://HOST:PORT` plays the
same shares as a local run, each share one task on a Dask distributed
cluster: share k of K plays its rounds with the seed `S/K/k`, so the report,
intervals and plot are those of a local run with the same `--seed` and
`--workers` K, whichever machine plays which share. Without `--workers`, K is
the number of worker threads the cluster has when the run starts (give
`--workers` to reproduce a run on another cluster). More shares than
workers (say four per worker) keep fast machines busy while slow ones
finish: the scheduler hands out the next share as a worker becomes free.

Every machine needs the same tablesim (and Python) with the cluster extra:

```sh
pip install 'tablesim[cluster]'          # dask[distributed]
```

On one machine, the scheduler (it only hands out the shares):

```sh
dask scheduler --host 0.0.0.0 --port 8786
```

On each machine that plays rounds, one single-threaded worker process per
core (a share is pure Python: threads would share one core):

```sh
dask worker tcp://SCHEDULER-HOST:8786 --nworkers auto --nthreads 1
```

Then, from any machine that reaches the scheduler:

```sh
tablesim simulate fortune3 --rounds 100000000 --seed 2026 --workers 64 \\
    --scheduler tcp://SCHEDULER-HOST:8786 --json --plot fortune3.png
```

The scheduler's port (and the workers' ports, chosen at random unless
`--worker-port` fixes them) must be reachable between the machines; Dask's
traffic is not encrypted or authenticated unless the cluster is set up with
TLS (`tls://` addresses and certificates): keep it on a private network.
A scheduler that cannot be reached, or a worker without tablesim, is one
error line and exit status 2.
"""


def main(paths: list[str]) -> None:
    reports = [json.loads(Path(p).read_text()) for p in paths]
    inside = sum(b["inside99"] for r in reports for b in r["bets"].values())
    total = sum(len(r["bets"]) for r in reports)
    outside999 = [f"{r['game']} {bet}" for r in reports for bet, b in r["bets"].items() if not b["inside999"]]
    print("# Simulation against the exact math\n")
    print("Each run plays every round through the real table, state machine and mock devices "
          "(`tablesim simulate`), with simulated players on every bet type at unit stakes, and "
          "compares each bet's measured return with the exact figure of `tablesim analyze` for the "
          "same strategy and bet combination.\n")
    print(f"**{inside} of {total}** exact figures lie inside their 99% intervals"
          + (f"; outside the 99.9% interval: {', '.join(outside999)}." if outside999 else
             "; none lies outside its 99.9% interval.") + "\n")
    for r in reports:
        print(section(r))
        plot = f"simulation-{r['game']}.png"
        if (Path("docs") / plot).exists() and not r.get("options"):
            print(f"![{r['game']} convergence]({plot})\n")
    print(CLUSTER)


if __name__ == "__main__":
    main(sys.argv[1:])
