"""Thousands of simulated players on the platform's WebSocket, watching one
table that plays rounds by itself, some of them betting; every part its
own process on this machine.

``python scripts/player_load.py [--players 5000] [--bettors 400]
[--bet-rate 2000] [--platforms 1] [--loaders N] [--game wheel] [--rounds 2]
[--runs 1] [--json]``

It reports a table event's delay to every player (p50, p99, max), the bets
placed a second and their p99 from the socket's send to its answer, the
platform's memory and per connected player, the table's CPU a round
alone, with the players watching, and with them betting, and whether the
offered rate was kept up with (if not, the process or the machine that
limited it: ``saturation``). With ``--runs N``, the whole run N times one
after the other: each run's figures (``runs``), each figure's lowest,
median and highest (``spread``) and in how many runs the goals held
(``goal_met``). Exit 1 when a
player was dropped, a round's result did not reach every player, or a
figure could not be taken. See docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import sys

from tablesim.games import registry
from tablesim.harness.bench.player_load import Plan, failures, goal_met, run
from tablesim.harness.bench.runs import repeated


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="player_load.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, default=5000)
    ap.add_argument("--bettors", type=int, default=400)
    ap.add_argument("--bet-rate", type=float, default=2000.0, help="bets a second offered over all bettors")
    ap.add_argument("--platforms", type=int, default=1)
    ap.add_argument("--loaders", type=int, default=0, help="load processes (default: one per 1,500 players)")
    ap.add_argument("--game", choices=registry.names(), default=Plan.game,
                    help="a registered game (default: the one whose players bet as themselves)")
    ap.add_argument("--bet-seconds", type=float, default=10.0)
    ap.add_argument("--pace", type=float, default=0.5)
    ap.add_argument("--rounds", type=int, default=2, help="rounds with bets")
    ap.add_argument("--quiet-rounds", type=int, default=1, help="rounds of the table alone, and of players watching")
    ap.add_argument("--group", type=int, default=Plan.group,
                    help="bets a bettor sends at once, a message each (the page's Place bets; 1 to 8)")
    ap.add_argument("--runs", type=int, default=1,
                    help="the whole run this many times, one after the other: each run's figures, their "
                         "spread and in how many runs the goals held")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    if min(a.players, a.platforms, a.rounds, a.quiet_rounds, a.runs) < 1 or a.bettors < 0 or a.bet_rate <= 0:
        ap.exit(2, "tablesim: error: --players, --platforms, --rounds, --quiet-rounds, --runs: at least 1; "
                   "--bettors: at least 0; --bet-rate: above 0\n")
    plan = Plan(players=a.players, bettors=a.bettors, bet_rate=a.bet_rate, platforms=a.platforms,
                loaders=a.loaders, game=a.game, bet_seconds=a.bet_seconds, pace=a.pace, rounds=a.rounds,
                quiet_rounds=a.quiet_rounds, group=max(1, min(8, a.group)))
    say = lambda s: print(s, file=sys.stderr, flush=True)  # noqa: E731
    try:
        if a.runs == 1:
            fig = run(plan, progress=say)
            why = failures(fig)
        else:
            fig = repeated(lambda: run(plan, progress=say), a.runs, goal_met, progress=say)
            why = [f"run {n}: {line}" for n, one in enumerate(fig["runs"], 1) for line in failures(one)]
    except RuntimeError as exc:
        print(f"player_load: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(fig) if a.json else "\n".join(f"{k}: {v}" for k, v in fig.items()))
    for line in why:
        print(f"player_load: {line}", file=sys.stderr)
    return 1 if why else 0


if __name__ == "__main__":
    sys.exit(main())
