"""Where a load saturates, and which process is the limit.

A load run offers bets at a rate; when fewer are placed than offered, the
figures alone (each process's CPU a bet) do not say why. What does is how
busy each process was *while the bets came*: a process whose Python work
runs on one core at a time (the interpreter's lock) is at its limit near
one core, whatever the machine has free; and a machine whose every core is
busy is the limit itself, its largest process the one to cut.

``Sampler`` reads each process's CPU (``/proc/<pid>/stat``) and the
machine's busy time (``/proc/stat``) every ``every`` seconds on a thread
of its own; ``verdict`` keeps the intervals inside the betting windows
(the time between a round's first bet sent and its last answer) and
judges them.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Callable

#: placed at least this share of the offered rate: the load was kept up with
KEPT_UP = 0.95
#: a process using this much of one core while the bets came is at its limit (its Python threads share one)
AT_ONE_CORE = 0.85
#: the machine's cores this busy (a share of them all) while the bets came: the machine is the limit
MACHINE_BUSY = 0.9


def _cpu_line() -> list[int]:
    """``/proc/stat``'s clock ticks of all the machine's cores: user, nice, system, idle, iowait,
    irq, softirq, steal (Linux; OSError elsewhere)."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:9]]
    return fields + [0] * (8 - len(fields))


def machine_busy() -> float:
    """CPU seconds the machine's cores spent busy so far (all of them; Linux)."""
    fields = _cpu_line()
    idle = fields[3] + fields[4]  # (idle and iowait: waiting is not work)
    return (sum(fields) - idle) / os.sysconf("SC_CLK_TCK")


def machine_steal() -> float:
    """Of ``machine_busy``, the seconds the host gave the machine's cores to others (Linux)."""
    return _cpu_line()[7] / os.sysconf("SC_CLK_TCK")


class Sampler:
    """Samples of (wall time, each process's CPU seconds, the machine's busy seconds)."""

    def __init__(self, read: Callable[[], dict[str, float]], every: float = 0.25) -> None:
        self.read = read
        self.every = every
        self.samples: list[tuple[float, dict[str, float], float]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="load-sampler", daemon=True)

    def __enter__(self) -> "Sampler":
        self._take()
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        self._take()

    def _take(self) -> None:
        self.samples.append((time.time(), self.read(), machine_busy()))

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            self._take()


def cores_in(samples: list[tuple[float, dict[str, float], float]],
             windows: list[tuple[float, float]]) -> tuple[dict[str, float], float, float]:
    """(each process's cores, the machine's busy cores, the seconds measured) over
    the sampled intervals that lie inside a window; an interval partly inside
    counts by its share inside (its CPU assumed even over it)."""
    cpu: dict[str, float] = {}
    busy = seconds = 0.0
    for (t0, c0, m0), (t1, c1, m1) in zip(samples, samples[1:]):
        if t1 <= t0:
            continue
        inside = sum(max(0.0, min(t1, b) - max(t0, a)) for a, b in windows)
        if inside <= 0:
            continue
        share = min(1.0, inside / (t1 - t0))
        seconds += inside
        busy += (m1 - m0) * share
        for name in c1:
            if c0.get(name, -1) >= 0 and c1[name] >= 0:  # (-1: a process that could not be read)
                cpu[name] = cpu.get(name, 0.0) + (c1[name] - c0[name]) * share
    if seconds <= 0:
        return {}, 0.0, 0.0
    return {k: round(v / seconds, 2) for k, v in cpu.items()}, round(busy / seconds, 2), round(seconds, 1)


def verdict(offered: float, placed: float | None, cores: dict[str, float], machine: float,
            ncpu: int, seconds: float, asked: float | None = None) -> dict:
    """Whether the offered rate was kept up with, and if not, what limited it.

    ``cores``: each process's cores while the bets came (``cores_in``; a name
    may stand for several processes of one kind, e.g. the load processes);
    ``machine``: the machine's busy cores then; ``asked``: the rate asked for,
    where the bettors could offer less (``offered``: their most)."""
    kept_up = placed is not None and placed >= KEPT_UP * offered
    busiest = max(cores, key=cores.get) if cores else None
    ours = round(sum(cores.values()), 2)
    out = {"offered_per_second": offered, "placed_per_second": placed, "kept_up": kept_up,
           "cores_while_betting": cores, "run_cores": ours, "machine_cores_busy": machine, "machine_cores": ncpu,
           "seconds_measured": seconds, "busiest": busiest, "limit": None}
    # (a shared machine: the busy cores that are not the run's are someone else's work)
    busy = f"the machine {machine:.2f} of {ncpu} cores busy, {ours:.2f} of them this run's"
    capped = ""
    if asked is not None and asked > offered:
        out["asked_per_second"] = asked
        capped = f" (asked {asked:g}: the bettors offer {offered:g} at most; more bettors offer more)"
    if not seconds:
        out["why"] = "no sample fell inside a betting window: nothing to judge"
        return out
    at_core = [k for k, v in cores.items() if v >= AT_ONE_CORE]
    machine_full = machine >= MACHINE_BUSY * ncpu
    if kept_up:
        headroom = ncpu - machine
        out["why"] = (f"kept up: {placed:g} of {offered:g} bets/s placed{capped}; the busiest process {busiest} "
                      f"at {cores.get(busiest, 0):.2f} of a core, {busy} ({headroom:.2f} free)")
        return out
    if at_core:
        limit = max(at_core, key=cores.get)
        out["limit"] = limit
        out["why"] = (f"saturated at {placed or 0:g} of {offered:g} bets/s{capped}: {limit} at {cores[limit]:.2f} of a "
                      "core (its Python work runs on one core at a time)"
                      + (f"; the machine full too: {busy}" if machine_full else ""))
    elif machine_full:
        out["limit"] = "machine"
        out["why"] = (f"saturated at {placed or 0:g} of {offered:g} bets/s{capped}: the machine's cores ({busy}), "
                      f"the run's largest share {busiest}'s ({cores.get(busiest, 0):.2f} of a core)")
    else:
        out["limit"] = "latency"
        out["why"] = (f"not kept up ({placed or 0:g} of {offered:g} bets/s{capped}) with no process at its core and "
                      f"{ncpu - machine:.2f} cores free: the bettors' bets in flight wait on answers "
                      "(a delay, not a CPU, limits the rate)")
    return out
