"""Mock electronic draw display (football card game, device 03 of TDL/1).

The host sends the draw it made (``show``); the display shows it and reads
back what it actually shows (a ``DrawShown`` event). Fault injection:

- ``readback_mismatch``: the display reads back another combination than the
  one it was sent (the host must refuse it: fault 402, the round halts);
- ``segment_fault``: the display reports fault 401 instead of a read-back;
  ``segment_fault()`` raises it at any moment (e.g. while cards are dealt).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Iterable

from drivers.base import DrawDisplay
from drivers.events import DISPLAY_SEGMENT, DeviceEvent, DrawShown, FaultCleared, FaultRaised

DISPLAY_FAULTS = ("readback_mismatch", "segment_fault")


@dataclass(frozen=True)
class DisplayFault:
    """A fault that fires at the display's next ``show``."""

    kind: str
    shown: int | None = None  # readback_mismatch: the number read back (default: the next one)

    def __post_init__(self) -> None:
        if self.kind not in DISPLAY_FAULTS:
            raise ValueError(f"unknown display fault {self.kind!r} (faults: {', '.join(DISPLAY_FAULTS)})")


class MockDisplay(DrawDisplay):
    def __init__(self, faults: Iterable[DisplayFault] = (), name: str | None = None) -> None:
        super().__init__(name)
        self.queue: deque[DeviceEvent] = deque()
        self.faults: list[DisplayFault] = list(faults)
        self.showing: tuple[str, int] | None = None  # (draw id, number) on the display now
        self.history: list[int] = []

    def inject(self, fault: DisplayFault) -> None:
        self.faults.append(fault)

    def show(self, round_id: str, draw_id: str, draw: int, upper: tuple[int, ...], lower: tuple[int, ...]) -> None:
        fault = self.faults.pop(0) if self.faults else None
        if fault is not None and fault.kind == "segment_fault":
            self.showing = None
            self.segment_fault()
            return
        shown = draw
        if fault is not None:  # readback_mismatch
            shown = fault.shown if fault.shown is not None else (draw % 8) + 1
        self.showing = (draw_id, shown)
        self.history.append(shown)
        self.queue.append(DrawShown(draw_id, shown, device=self.name))

    def segment_fault(self, text: str = "display segment fault") -> None:
        """The display detects a dead segment: what it shows cannot be trusted."""
        self.health.faults[DISPLAY_SEGMENT] = text
        self.queue.append(FaultRaised(DISPLAY_SEGMENT, "E", text, device=self.name))

    def clear(self) -> None:
        self.showing = None

    def repair(self) -> None:
        """A technician fixed the display: every fault is cleared."""
        for code in list(self.health.faults):
            self.queue.append(FaultCleared(code, device=self.name))
        self.health.faults.clear()

    def next_event(self, timeout: float | None = 0.0) -> DeviceEvent | None:
        return self.queue.popleft() if self.queue else None
