"""The bet timer (``bet_seconds``): closes betting that many seconds after
it opened (frozen while the table is paused). With no bet on the table it
keeps betting open and starts again."""

from __future__ import annotations

import asyncio
import logging
import math
import time

from tablecore.errors import IllegalAction
from tablesim.server.stream import now_ts

log = logging.getLogger("tablesim.server")


class BetTimer:
    """The served table's bet timer, owned by its ``TableRunner``
    (``runner.timer``); its state is the table thread's."""

    def __init__(self, runner) -> None:
        self.runner = runner
        self.remaining: float | None = None
        self._tick_at = time.monotonic()
        self._shown: int | None = None

    def restart(self) -> None:
        """Betting opened: the whole ``bet_seconds`` again."""
        self.remaining = float(self.runner.bet_seconds)
        self._tick_at = time.monotonic()
        self._shown = None

    def tick(self) -> bool:
        """Count the bet timer down; True when betting is due to close."""
        run = self.runner
        t = run.table
        now = time.monotonic()
        elapsed, self._tick_at = now - self._tick_at, now
        if self.remaining is None or t.state is not t.BETTING:
            return False
        if t.paused or (t.blocked):
            return False  # the timer is frozen
        self.remaining -= elapsed
        shown = max(math.ceil(self.remaining), 0)
        if self.remaining > 0:
            if shown != self._shown:
                self._shown = shown
                run.stream.publish({"type": "timer", "round_id": t.round_id, "remaining": shown,
                                    "seconds": run.bet_seconds})
            return False
        if not t.book.bets:
            self.remaining = float(run.bet_seconds)
            self._shown = None
            run.stream.publish({"type": "notice", "level": "info", "ts": now_ts(), "round_id": t.round_id,
                                "text": "bet timer: no bets on the table, betting stays open"})
            return False
        return True

    def close(self) -> None:
        t = self.runner.table
        if t.state is not t.BETTING or self.remaining is None or self.remaining > 0:
            return
        if t.paused or t.blocked:
            # A pause that came between the count and the close (its own call on the table's
            # thread) freezes the run-out timer: it closes betting once the table goes on. Cleared
            # here, the close refused as "paused" left betting open for good, with no timer.
            return
        self.remaining = None
        t.close_betting()

    async def run(self) -> None:
        run = self.runner
        while True:
            try:
                if await run.call(self.tick, publish=False):
                    await run.call(self.close, actor="timer")
            except asyncio.CancelledError:
                raise
            except IllegalAction as exc:
                run.stream.publish({"type": "notice", "level": "warning", "ts": now_ts(), "text": str(exc)})
            except Exception:
                log.exception("bet timer failed")
            await asyncio.sleep(0.1)
