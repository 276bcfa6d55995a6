"""The platform's garbage collector: no full collection of its players'
connections while a table it serves takes bets.

Python's full (generation 2) collection walks every object that survived
two younger ones and holds the whole process meanwhile. A platform's
long-lived objects are its players' connections: each open socket is about
150 objects the collector walks (the connection's awaits through the web
stack, its queues, its parser), and with 3,000 to 5,000 players watching a
full collection held the platform 0.45 to 0.6 s. One of them in a betting
window held every bet under way that long (``scripts/player_load.py``: bet
p99 0.55-0.8 s in about half the runs, with a p50 of 20-50 ms).

So while any table takes bets, what was alive when betting opened is
frozen (``gc.freeze``: out of the collector's sight, still freed by
reference counting as ever): the collections in the window walk only what
the window made. When no table takes bets any more, it is thawed, and
Python's own collections see it again (the cycles among it, a player gone
meanwhile, are freed by the next full one, outside the betting windows).
Not collected here at the close: that pause would hold the events of the
round's end instead (measured: event p99 0.76 s). A platform whose tables
never all close together is thawed and collected in full once every
``MOST_FROZEN`` seconds all the same, so nothing is kept for ever.
"""

from __future__ import annotations

import gc
import logging
import time

log = logging.getLogger("tablesim.platform")

#: the most seconds anything stays frozen (tables whose betting windows overlap without end)
MOST_FROZEN = 300.0


class Collector:
    """Freezes at the first table's betting open, thaws at the last one's close."""

    def __init__(self) -> None:
        self.frozen_at: float | None = None
        self.windows = 0  # times frozen
        self.forced = 0  # full collections made here (windows that never all closed)

    def betting(self, open_now: bool) -> None:
        """Told whether any table takes bets now (each time a table opens or closes betting)."""
        if not open_now:
            if self.frozen_at is not None:
                gc.unfreeze()
                self.frozen_at = None
            return
        if self.frozen_at is None:
            gc.freeze()
            self.frozen_at = time.monotonic()
            self.windows += 1
        elif time.monotonic() - self.frozen_at > MOST_FROZEN:
            gc.unfreeze()
            started = time.perf_counter()
            gc.collect()
            self.forced += 1
            log.info("platform: betting open for %.0f s without a pause: one full collection (%.0f ms)",
                     MOST_FROZEN, (time.perf_counter() - started) * 1000)
            gc.freeze()
            self.frozen_at = time.monotonic()
