"""The platform's garbage collector: its players' connections out of the
full collections, collected in full only now and then, after betting closes.

Python's full (generation 2) collection walks every object that survived
two younger ones and holds the whole process meanwhile. A platform's
long-lived objects are its players' connections (about a hundred objects
each: the connection's task and parser, its queues, its session), spread
over a large heap: with 3,000 to 5,000 players watching, each full
collection held the platform 0.45 to 0.9 s, about every 30 s under load.
One in a betting window held every bet under way that long
(``scripts/player_load.py``: bet p99 0.55-0.8 s in about half the runs,
with a p50 of 20-50 ms); one between windows held the events of the round
to every player (event p99 0.3-0.76 s).

So when a table opens betting, what is alive is frozen (``gc.freeze``: out
of the collector's sight, still freed by reference counting as ever): the
collections walk only what was made since, and stay short. What is frozen
is thawed and collected in full once it has been frozen ``MOST_FROZEN``
seconds, a moment after the last table closed betting (its last answers
out first; a table opening meanwhile puts it off to the next close), or,
where windows never all close, at an opening once frozen twice that long:
the cycles among it (a player gone meanwhile) are freed then, so nothing is
kept for ever, and the one long pause comes every ten minutes instead of
every thirty seconds, between betting windows.

What is made after the opening is not frozen: the players who connect
during the window (a hundred objects each), the round's bets. Python's own
full collections walked all of it again and again while bets came in: with
1,000 players connected after the opening, one every few thousand bets,
about 60 ms each (``tablesim bench --only platform``: 15-23 µs of the
platform's CPU a bet, of about 120). So while a table takes bets they come
only after ``FULL_AFTER`` middle-generation collections, not Python's 10 (as
the served table's, ``tablesim.server.gctuning``); and a young collection
once ``YOUNG`` objects more were made than freed, not 700: a bet's objects
are mostly freed as soon as it is answered, and at 700 the young
collections came every dozen bets, walking the bets under way each time
(2.5 µs a bet; 0.7 µs at ``YOUNG``, one every few thousand bets). Python's
own thresholds are back once every table closed betting.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time

log = logging.getLogger("tablesim.platform")

#: the most seconds anything stays frozen before a full collection
MOST_FROZEN = 600.0
#: seconds after the last table closed betting before that collection (its last answers out)
QUIET = 0.3
#: while a table takes bets, Python's own full collection only after this many middle-generation
#: ones (its default is 10): a hundred times rarer, seldom within a window
FULL_AFTER = 1000
#: while a table takes bets, a young collection once this many objects more were made than freed
#: (Python's default is 700; never lowered here)
YOUNG = 7000


class Collector:
    """Freezes whenever a table opens betting; thaws and collects in full, now and then, after a close."""

    def __init__(self) -> None:
        self.frozen_since: float | None = None  # (the first freeze since the last full collection)
        self.collections = 0  # full collections made here
        self._due: asyncio.TimerHandle | None = None
        self._thresholds: tuple[int, int, int] | None = None  # Python's own, while a table takes bets

    def _defer_full(self, deferred: bool) -> None:
        """Python's own collections rarer (while a table takes bets), or as they were."""
        if deferred and self._thresholds is None:
            self._thresholds = gc.get_threshold()
            young, middle, _ = self._thresholds
            gc.set_threshold(max(young, YOUNG), middle, FULL_AFTER)
        elif not deferred and self._thresholds is not None:
            gc.set_threshold(*self._thresholds)
            self._thresholds = None

    def betting(self, open_now: bool) -> None:
        """Told whether any table takes bets now (each time a table opens or closes betting)."""
        self._defer_full(open_now)
        if open_now:
            if self._due is not None:  # (a table opened again before the quiet moment came)
                self._due.cancel()
                self._due = None
            if self._overdue(2):  # (windows that never all close: not at a close's heels, long after)
                self._collect()
            gc.freeze()
            if self.frozen_since is None:
                self.frozen_since = time.monotonic()
            return
        if self._overdue() and self._due is None:
            try:
                self._due = asyncio.get_running_loop().call_later(QUIET, self._quiet)
            except RuntimeError:  # (no loop: a test walking records)
                self._quiet()

    def _overdue(self, times: float = 1) -> bool:
        return self.frozen_since is not None and time.monotonic() - self.frozen_since > MOST_FROZEN * times

    def _quiet(self) -> None:
        self._due = None
        if self._overdue():
            self._collect()

    def _collect(self) -> None:
        frozen = time.monotonic() - self.frozen_since if self.frozen_since is not None else 0.0
        gc.unfreeze()
        started = time.perf_counter()
        gc.collect()
        took = time.perf_counter() - started
        self.frozen_since = None
        self.collections += 1
        log.info("platform: a full collection after %.0f s frozen: %.0f ms", frozen, took * 1000)
