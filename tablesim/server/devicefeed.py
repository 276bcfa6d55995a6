"""The device feed: asks the devices for what they reported and hands it to
the table (see ``tablesim.server.runner`` for how real and mock devices
are paced, and what waits while the table is paused)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from typing import Any

from drivers.events import CardRead, HandDispensed
from tablecore.errors import IllegalAction
from tablecore.rest import rest
from tablesim.server.stream import now_ts

log = logging.getLogger("tablesim.server")

#: mock devices: how long the pump rests when the dealer's hands had nothing to do. Anything
#: that can give them something (an action, a bet, a timer's close) runs as a command on the
#: table's thread and wakes the pump at once (``poke``), so this bounds only what time alone
#: changes (a round stalled in its state). Asking 20 times a second instead, an idle table
#: used 13.5 ms of CPU a second, on a thread hop each time; now 5.5.
IDLE_POLL = 0.5
#: real devices: how long one pump command waits for a report on the table's thread
DEVICE_WAIT = 0.02
#: real devices: what waits while the table is paused or a blocking incident holds the round
HELD_WHILE_BLOCKED = (CardRead, HandDispensed)


class DeviceFeed:
    """The served table's device feed, owned by its ``TableRunner``
    (``runner.feed``): the reports held while the table cannot take them,
    and when a device last reported."""

    def __init__(self, runner) -> None:
        self.runner = runner
        #: real devices: the last report handled
        self.last_report = time.monotonic()
        #: real devices: cards read while the table is paused or a blocking incident holds
        #: the round, handed on (in order) once it is resumed or resolved
        self.held: deque = deque()
        #: set by any other command on the table's thread: the pump's rest ends (``poke``)
        self._woken: asyncio.Event | None = None

    def poke(self) -> None:
        """Another command ran on the table: the mock dealer's hands may have
        something to do now (called on the event loop)."""
        if self._woken is not None:
            self._woken.set()

    def once(self) -> float | None:
        """Hand the table one device event; returns how long to wait before the
        next, or None if no device had anything to say."""
        run = self.runner
        if run.mock_dealer is None:
            return self._from_devices()
        run.metrics.card_at = time.monotonic()  # (a mock card is reported as the dealer's hand moves)
        delay = run.mock_dealer.step(time.monotonic() - run.state_since)
        return None if delay is None else delay * run.pace

    def _from_devices(self) -> float | None:
        """Real or emulated devices: wait up to DEVICE_WAIT for a report and
        hand it to the table; 0 (already waited) or None (no devices)."""
        run = self.runner
        t = run.table
        if not t.devices:
            return None
        blocked = t.paused or (t.blocked)
        if self.held and not blocked:
            t.handle(self.held.popleft())  # in the order they were read, before anything newer
            return 0.0
        event = t.device_pump.next_event(t.devices, DEVICE_WAIT)  # (no polling: taken as it arrives)
        now = time.monotonic()
        if event is not None:
            self.last_report, run.notices.quiet_noticed = now, False
            run.metrics.card_at = now
            if blocked and isinstance(event, HELD_WHILE_BLOCKED):
                self._hold(event)
            else:
                t.handle(event)
            return 0.0
        run.adapter.stalled(now - run.state_since)
        run.notices.notice_quiet(now)
        return 0.0

    def _hold(self, event: Any) -> None:
        """A card (or hand) read while the table is paused or a blocking
        incident holds the round waits until it is resumed or resolved: e.g.
        the cards the dealer drew after a misread follow the card the
        supervisor names for it."""
        run = self.runner
        t = run.table
        self.held.append(event)
        if len(self.held) == 1:
            why = "the table is paused" if t.paused else f"incident {t.incident.id} holds the round"
            until = "it is resumed" if t.paused else "the incident is resolved"
            run.stream.publish({
                "type": "notice", "level": "warning", "ts": now_ts(), "round_id": t.round_id,
                "text": f"the {event.device} reported a card while {why}: it waits until {until}",
            })
        run.view.refresh(True)

    async def run(self) -> None:
        run = self.runner
        woken = self._woken = asyncio.Event()
        while True:
            woken.clear()  # (before the step: a command that ends while it runs still wakes the rest)
            try:
                wait = await run.call(self.once, publish=False)
            except asyncio.CancelledError:
                raise
            except IllegalAction as exc:
                log.warning("device event refused: %s", exc)
                wait = None
            except Exception:
                log.exception("device event failed")
                run.stream.publish({"type": "notice", "level": "error", "ts": now_ts(),
                                    "text": "a device event could not be handled: see the server log"})
                wait = IDLE_POLL * 10
            # The table's thread answered: it is alive. A hung thread (or a
            # journal that cannot commit) stops the pings, and systemd restarts
            # the table, which recovers its journal.
            run.notices.feed_watchdog()
            run.metrics.card_shown()  # (the command's events went out as it returned)
            if wait is None:
                await rest(woken, IDLE_POLL)  # (not asyncio.wait_for: see tablecore.rest)
            else:
                await asyncio.sleep(max(wait, 0.0))
