"""Abstract device interfaces: commands in, typed events out.

A device queues the events it reports; the table takes them with
``next_event``. Mock devices produce an event when one is due (a card the
dealer draws, a spin result); real devices produce them from their reader
thread. ``None`` means nothing arrived within the timeout.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import structlog

from drivers.events import DeviceEvent

#: what a table binds for its round (``tablesim.log.bind_round``), which a driver's
#: own threads (reader, heartbeat, worker) do not inherit
ROUND_CONTEXT = ("table", "game", "round_id")


def round_context() -> dict[str, str]:
    """The calling thread's round context (empty outside a table's thread)."""
    bound = structlog.contextvars.get_contextvars()
    return {k: bound[k] for k in ROUND_CONTEXT if k in bound}


@dataclass
class DeviceHealth:
    link_up: bool = True
    faults: dict[int, str] = field(default_factory=dict)  # active fault code -> text
    #: what a driver counts of its traffic (a line device: lines, malformed, unknown, noise,
    #: duplicates taken once ...); empty where it counts nothing
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.link_up and not self.faults


class Device(abc.ABC):
    kind: str = "device"

    def __init__(self, name: str | None = None) -> None:
        self.name = name or self.kind
        self.health = DeviceHealth()

    def open(self) -> None:
        """Connect; a mock is always open."""

    def close(self) -> None:
        """Release the port and stop any thread; safe to call twice."""

    def reset_round(self) -> bool:
        """Make the device forget the round it was last armed for (a table
        starting: another program, a check, may have left it mid-round).
        False if the device would not; a device with no round state has
        nothing to forget."""
        return True

    @abc.abstractmethod
    def next_event(self, timeout: float | None = 0.0) -> DeviceEvent | None:
        """The next reported event, or None if none arrived within ``timeout``."""

    def watch(self, wake: Callable[[], None]) -> None:
        """Call ``wake`` (from any thread) whenever this device queues a report,
        so one waiter can wait on several devices at once (``tablesim.engine.devicewait``).
        A device that reports only when asked (a mock) never needs to call it."""
        self._wakers = (*getattr(self, "_wakers", ()), wake)

    def reported(self) -> None:
        """A report was queued (a driver's reader thread calls this)."""
        for wake in getattr(self, "_wakers", ()):
            wake()

    def __enter__(self):
        self.open()
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class CardShoeReader(Device):
    """A dealing shoe that reads each card as it is drawn."""

    kind = "shoe"

    @abc.abstractmethod
    def load_shoe(self, shoe_id: str, decks: int) -> None:
        """A (freshly shuffled) pack was put in the shoe."""

    @abc.abstractmethod
    def arm(self, round_id: str, max_cards: int) -> None:
        """Dealing is allowed; cards drawn now belong to ``round_id``."""

    @abc.abstractmethod
    def disarm(self) -> None:
        """No card may be drawn; one drawn anyway is reported as fault 204."""


class Shuffler(Device):
    """An automatic shuffler that dispenses hands."""

    kind = "shuffler"

    @abc.abstractmethod
    def load(self, decks: int, cards: int) -> None: ...

    @abc.abstractmethod
    def shuffle(self, shuffle_id: str, mode: str = "BATCH") -> None: ...

    @abc.abstractmethod
    def deal_hand(self, hand_no: int, cards: int = 3) -> None:
        """Dispense one hand; the cards arrive as a HandDispensed event."""

    @abc.abstractmethod
    def abort(self) -> None: ...


class DrawDisplay(Device):
    """The football game's electronic draw display."""

    kind = "display"

    @abc.abstractmethod
    def show(self, round_id: str, draw_id: str, draw: int, upper: tuple[int, ...], lower: tuple[int, ...]) -> None:
        """Show a draw; the display answers with a DrawShown read-back."""

    @abc.abstractmethod
    def clear(self) -> None: ...

    def learn_draws(self, draws: "Mapping[int, tuple[Sequence[int], Sequence[int]]]") -> None:
        """The game's combinations (number -> upper, lower), so a read-back
        of another combination than the one sent is named by its number (a
        display that reads back the draw number itself has nothing to learn)."""


class WheelSensor(Device):
    """The wheel indicator sensor: spin start, each turn, final segment."""

    kind = "wheel"

    @abc.abstractmethod
    def arm(self, round_id: str, min_turns: int, max_seconds: float) -> None:
        """Bets are closed: the next spin counts for ``round_id``."""

    @abc.abstractmethod
    def disarm(self) -> None: ...
