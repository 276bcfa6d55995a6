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
    """(A part of ``TableRunner``.) The timer's state is the table thread's."""

    def _init_timer(self) -> None:
        self.timer_remaining: float | None = None
        self._timer_tick_at = time.monotonic()
        self._timer_shown: int | None = None

    def _timer_tick(self) -> bool:
        """Count the bet timer down; True when betting is due to close."""
        t = self.table
        now = time.monotonic()
        elapsed, self._timer_tick_at = now - self._timer_tick_at, now
        if self.timer_remaining is None or t.state is not t.BETTING:
            return False
        if t.paused or (t.blocked):
            return False  # the timer is frozen
        self.timer_remaining -= elapsed
        shown = max(math.ceil(self.timer_remaining), 0)
        if self.timer_remaining > 0:
            if shown != self._timer_shown:
                self._timer_shown = shown
                self.stream.publish({"type": "timer", "round_id": t.round_id, "remaining": shown,
                                     "seconds": self.bet_seconds})
            return False
        if not t.book.bets:
            self.timer_remaining = float(self.bet_seconds)
            self._timer_shown = None
            self.stream.publish({"type": "notice", "level": "info", "ts": now_ts(), "round_id": t.round_id,
                                 "text": "bet timer: no bets on the table, betting stays open"})
            return False
        return True

    def _timer_close(self) -> None:
        t = self.table
        if t.state is t.BETTING and self.timer_remaining is not None and self.timer_remaining <= 0:
            self.timer_remaining = None
            t.close_betting()

    async def _timer_loop(self) -> None:
        while True:
            try:
                if await self.call(self._timer_tick, publish=False):
                    await self.call(self._timer_close, actor="timer")
            except asyncio.CancelledError:
                raise
            except IllegalAction as exc:
                self.stream.publish({"type": "notice", "level": "warning", "ts": now_ts(), "text": str(exc)})
            except Exception:
                log.exception("bet timer failed")
            await asyncio.sleep(0.1)
