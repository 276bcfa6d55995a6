"""Timing helpers: best of several repeats, so a busy machine shows less."""

from __future__ import annotations

import time
from typing import Callable


def rate(fn: Callable[[], object], *, batch: int, repeats: int = 3, min_seconds: float = 0.3) -> float:
    """Calls per second of ``fn``: the best of ``repeats`` runs of at least ``min_seconds``."""
    best = 0.0
    for _ in range(repeats):
        n = 0
        start = time.perf_counter()
        while True:
            for _ in range(batch):
                fn()
            n += batch
            elapsed = time.perf_counter() - start
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
