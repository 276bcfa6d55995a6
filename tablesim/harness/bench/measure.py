"""Timing helpers: best of several repeats, so a busy machine shows less."""

from __future__ import annotations

import time
from typing import Callable


def rate(fn: Callable[[], object], *, batch: int, repeats: int = 3, min_seconds: float = 0.3,
         clock: Callable[[], float] = time.perf_counter) -> float:
    """Calls per second of ``fn``: the best of ``repeats`` runs of at least
    ``min_seconds``. ``clock=time.process_time`` counts the CPU time of this
    process only: what one core does, whatever else the machine runs."""
    best = 0.0
    for _ in range(repeats):
        n = 0
        start = clock()
        while True:
            for _ in range(batch):
                fn()
            n += batch
            elapsed = clock() - start
            if elapsed >= min_seconds:
                break
        best = max(best, n / elapsed)
    return best


def seconds(fn: Callable[[], object], *, repeats: int = 3) -> float:
    """Best wall time of ``fn`` over ``repeats`` runs."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


#: the additions of ``probe``'s loop
PROBE_ADDS = 5_000_000


def probe() -> float:
    """Seconds one core takes for a fixed pure-Python loop (``PROBE_ADDS``
    additions), at the moment: this machine's speed, which on a shared host
    moves by half from one day to the next. Figures taken when the probe
    differs are not of the same machine; a figure times the probe compares
    across them better than the figure alone."""
    start = time.process_time()
    total = 0
    for i in range(PROBE_ADDS):
        total += i
    return round(time.process_time() - start, 3)
