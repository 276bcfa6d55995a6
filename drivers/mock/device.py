"""Shared machinery of the mock card devices: an event queue and pending faults."""

from __future__ import annotations

from collections import deque
from typing import Iterable

from drivers.events import DeviceEvent, FaultRaised
from drivers.mock.cards import CardSource
from drivers.mock.faults import MockFault


class MockCardDevice:
    """Mixin state for mock devices that hand out cards from a CardSource."""

    def _init_mock(self, source: CardSource, faults: Iterable[MockFault]) -> None:
        self.source = source
        self.queue: deque[DeviceEvent] = deque()
        self.faults: list[MockFault] = list(faults)
        self.delivered_this_round: list = []

    def inject(self, fault: MockFault) -> None:
        self.faults.append(fault)

    def _take_fault(self, position: int, kinds: tuple[str, ...]) -> MockFault | None:
        for f in self.faults:
            if f.after == position and f.kind in kinds:
                self.faults.remove(f)
                return f
        return None

    def _raise(self, code: int, severity: str, text: str, card=None) -> FaultRaised:
        self.health.faults[code] = text
        return FaultRaised(code, severity, text, card, self.fault_source(), device=self.name)

    def fault_source(self) -> str:
        """The load a fault's card came from (a shoe's pack), or "" (as the serial drivers say it)."""
        return ""

    def clear_faults(self) -> None:
        self.health.faults.clear()
