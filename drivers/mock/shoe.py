"""Mock card-shoe reader: the dealer 'draws' a card each time the table asks."""

from __future__ import annotations

from typing import Iterable

from drivers.base import CardShoeReader
from drivers.events import (
    DRAWN_WHILE_DISARMED,
    MISREAD,
    DeviceEvent,
    ShoeCount,
    card_read,
)
from drivers.mock.cards import CardSource, OutOfCards
from drivers.mock.device import MockCardDevice
from drivers.mock.faults import MockFault


class MockShoe(MockCardDevice, CardShoeReader):
    def __init__(self, source: CardSource, faults: Iterable[MockFault] = (), name: str | None = None) -> None:
        CardShoeReader.__init__(self, name)
        self._init_mock(source, faults)
        self.armed = False
        self.round_id = ""
        self.index = 0
        self.shoe_id = ""
        self.dealt = 0

    def fault_source(self) -> str:
        return self.shoe_id  # a mock reports at once: always from the pack loaded now

    def load_shoe(self, shoe_id: str, decks: int) -> None:
        self.shoe_id = shoe_id
        self.source.reload(decks)
        self.dealt = 0

    def arm(self, round_id: str, max_cards: int) -> None:
        """Arming again for the same round goes on with its card positions
        (as the real reader does), so fault positions stay where they were."""
        self.armed = True
        if round_id != self.round_id:
            self.round_id = round_id
            self.index = 0
            self.delivered_this_round = []

    def disarm(self) -> None:
        self.armed = False

    def next_event(self, timeout: float | None = 0.0) -> DeviceEvent | None:
        if self.queue:
            return self.queue.popleft()
        if not self.armed:
            fault = self._take_fault(0, ("drawn_while_disarmed",))
            if fault is None:
                return None
            drawn = fault.card or self._draw_or_none()
            return self._raise(DRAWN_WHILE_DISARMED, "W", "card drawn while the shoe was disarmed", drawn)
        return self._next_card()

    def _draw_or_none(self):
        try:
            return self.source.draw().card
        except OutOfCards:
            return None

    def _next_card(self) -> DeviceEvent | None:
        position = self.index
        fault = self._take_fault(position, ("misread", "duplicate")) if self.faults else None
        if fault is not None and fault.kind == "duplicate" and self.delivered_this_round:
            # The reader reports a card it already reported: the table must not
            # take it for a second copy of that card.
            self.index += 1
            return card_read(self.round_id, position, self.delivered_this_round[-1], False, self.name)
        try:
            dealt = self.source.draw()
        except OutOfCards:
            return None
        self.index += 1
        self.dealt += 1
        if fault is not None and fault.kind == "misread":
            return self._raise(MISREAD, "E", f"card {position + 1} not recognised", dealt.card)
        self.delivered_this_round.append(dealt.card)
        if self.dealt % 13 == 0:
            self.queue.append(ShoeCount(self.shoe_id, self.dealt, self.source.remaining(), device=self.name))
        return card_read(self.round_id, position, dealt.card, dealt.exposed, self.name)
