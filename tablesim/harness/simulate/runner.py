"""Spreading a simulation over worker processes, reproducibly.

Worker k of K plays its share of the rounds with the seed "S/K/k", so a run
is the same for a given S and K. Workers report progress in chunks and a
convergence trace (cumulative wagered and net per bet) for the plot.
"""

from __future__ import annotations

import multiprocessing as mp
import os
from decimal import Decimal
from typing import Any, Callable

from tablesim.games.registry import spec
from tablesim.harness.simulate.stats import BetAccumulator, Tally

TRACE_POINTS = 60


def _shares(rounds: int, workers: int) -> list[int]:
    base, extra = divmod(rounds, workers)
    return [base + (1 if k < extra else 0) for k in range(workers)]


def play_share(game: str, seed: str, rounds: int, options: dict[str, Any], progress=None, chunk: int = 1000) -> Tally:
    sim = spec(game).part("simulator")(seed, **options)
    tally = Tally(shares=1)
    step = max(rounds // TRACE_POINTS, 1)
    done_since = 0
    for i in range(1, rounds + 1):
        outcome = sim.play_round()
        tally.rounds += 1
        if outcome is None:
            tally.void += 1
        else:
            for bet, (stake, net) in outcome.items():
                tally.by_bet.setdefault(bet, BetAccumulator()).add(stake, net)
        if i % step == 0 or i == rounds:
            tally.trace.append((i, {b: (str(a.wagered), str(a.net)) for b, a in tally.by_bet.items()}))
        done_since += 1
        if progress is not None and done_since >= chunk:
            progress.put(done_since)
            done_since = 0
    if progress is not None and done_since:
        progress.put(done_since)
    return tally


def _worker_signals() -> None:
    """A pool worker dies on the pool's SIGTERM whatever handler the parent had
    (a forked worker inherits it: a Python handler waits for the worker's
    main thread, which may be blocked on the pool's task queue, so the
    pool's terminate would wait for ever)."""
    import signal

    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _worker(args: tuple) -> Tally:
    game, seed, rounds, options, queue = args
    return play_share(game, seed, rounds, options, queue)


def merge_traces(tallies: list[Tally]) -> list[tuple[int, dict[str, float]]]:
    """Combine the workers' traces point by point (each at the same fraction of its share)."""
    points = min(len(t.trace) for t in tallies) if tallies else 0
    merged = []
    for p in range(points):
        # The last point takes each worker's last entry, so the trace ends on the whole run.
        entries = [t.trace[p] if p < points - 1 else t.trace[-1] for t in tallies]
        n = sum(e[0] for e in entries)
        values: dict[str, float] = {}
        for bet in entries[0][1]:
            w = sum(Decimal(e[1][bet][0]) for e in entries if bet in e[1])
            net = sum(Decimal(e[1][bet][1]) for e in entries if bet in e[1])
            if w:
                values[bet] = float(net / w)
        merged.append((n, values))
    return merged


def simulate(
    game: str,
    rounds: int,
    seed: int,
    workers: int | None = None,
    options: dict[str, Any] | None = None,
    on_progress: Callable[[int], None] | None = None,
    scheduler: str | None = None,
) -> tuple[Tally, list[tuple[int, dict[str, float]]]]:
    """Play ``rounds`` in ``workers`` reproducible shares: on this machine's
    processes, or on the Dask cluster whose scheduler is at ``scheduler``
    (default shares there: the cluster's worker threads)."""
    options = options or {}
    if scheduler is not None:
        from tablesim.harness.simulate import cluster

        with cluster.connect(scheduler) as client:
            workers = workers or cluster.cluster_threads(client) or 1
            shares, seeds = _plan(rounds, seed, workers)
            tallies = cluster.play_shares(client, game, seeds, shares, options, on_progress)
        return _total(tallies)
    shares, seeds = _plan(rounds, seed, workers or os.cpu_count() or 1)
    workers = len(shares)
    if workers == 1:
        class _Direct:
            def put(self, n: int) -> None:
                if on_progress:
                    on_progress(n)

        tallies = [play_share(game, seeds[0], shares[0], options, _Direct())]
    else:
        ctx = mp.get_context("spawn" if os.name == "nt" else "fork")
        with ctx.Manager() as manager:
            queue = manager.Queue()
            with ctx.Pool(workers, initializer=_worker_signals) as pool:
                pending = pool.map_async(_worker, [(game, seeds[k], shares[k], options, queue) for k in range(workers)])
                remaining = rounds
                while remaining > 0:
                    try:
                        n = queue.get(timeout=0.2)
                    except Exception:
                        if pending.ready():
                            break
                        continue
                    remaining -= n
                    if on_progress:
                        on_progress(n)
                tallies = pending.get()
    return _total(tallies)


def _plan(rounds: int, seed: int, workers: int) -> tuple[list[int], list[str]]:
    """The shares (rounds each) and their seeds "S/K/k"."""
    workers = max(1, min(workers, rounds))
    return _shares(rounds, workers), [f"{seed}/{workers}/{k}" for k in range(workers)]


def _total(tallies: list[Tally]) -> tuple[Tally, list[tuple[int, dict[str, float]]]]:
    total = Tally()
    for t in tallies:
        total.merge(t)
    return total, merge_traces(tallies)
