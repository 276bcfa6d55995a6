"""A measurement taken several times over: each run kept, and every figure
the runs share summarised (lowest, median, highest).

One run of a load on a shared machine says little: the same code measured
minutes apart moves by a third. A goal such as "2,000 bets a second with a
p99 under 150 ms" is met when it holds run after run, so the benches and
the load script take ``--runs N`` and say, besides each run, the spread of
each figure and in how many runs the goal held.
"""

from __future__ import annotations

import statistics
import time
from typing import Any, Callable, Iterable


def leaves(doc: Any, path: tuple[str, ...] = ()) -> Iterable[tuple[tuple[str, ...], float]]:
    """Every number of ``doc`` (nested dicts), by its path of keys; a
    bool, a list or a text is no figure."""
    if isinstance(doc, dict):
        for key, value in doc.items():
            yield from leaves(value, path + (str(key),))
    elif isinstance(doc, (int, float)) and not isinstance(doc, bool):
        yield path, float(doc)


def spread(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Each figure found in every run, as nested dicts of ``{"min", "median",
    "max"}``, in the first run's order (a figure some run lacks, a section
    that failed there, is left out: a spread of fewer runs would mislead)."""
    found = [dict(leaves(run)) for run in runs]
    out: dict[str, Any] = {}
    for path, _ in leaves(runs[0]) if runs else ():
        values = [f[path] for f in found if path in f]
        if len(values) != len(runs):
            continue
        at = out
        for key in path[:-1]:
            at = at.setdefault(key, {})
        at[path[-1]] = {"min": min(values), "median": statistics.median(values), "max": max(values)}
    return out


def repeated(measure: Callable[[], dict[str, Any]], runs: int, met: Callable[[dict[str, Any]], bool] | None = None,
             progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """``measure()`` ``runs`` times in a row: every run, the figures' spread,
    and (given ``met``, a run's goal) in how many runs the goal held."""
    done: list[dict[str, Any]] = []
    for n in range(runs):
        if progress is not None:
            progress(f"run {n + 1} of {runs}")
        started = time.time()
        fig = measure()
        fig = {**fig, "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started))}
        done.append(fig)
    out: dict[str, Any] = {"runs": done, "spread": spread(done)}
    if met is not None:
        out["goal_met"] = f"{sum(1 for fig in done if met(fig))} of {runs}"
    return out
