"""Mock automatic shuffler that dispenses hands on command."""

from __future__ import annotations

from typing import Iterable

from drivers.base import Shuffler
from drivers.events import (
    MISREAD,
    SHUFFLER_JAM,
    DeviceEvent,
    HandDispensed,
    ShuffleDone,
)
from drivers.mock.cards import CardSource, OutOfCards
from drivers.mock.device import MockCardDevice
from drivers.mock.faults import MockFault


class MockShuffler(MockCardDevice, Shuffler):
    def __init__(self, source: CardSource, faults: Iterable[MockFault] = (), name: str | None = None) -> None:
        Shuffler.__init__(self, name)
        self._init_mock(source, faults)
        self.decks = 1
        self.hands = 0
        self.jammed = False

    def load(self, decks: int, cards: int) -> None:
        self.decks = decks

    def shuffle(self, shuffle_id: str, mode: str = "BATCH") -> None:
        self.source.reload()
        self.hands = 0
        self.jammed = False
        self.delivered_this_round = []
        verified = self._take_fault(0, ("count_mismatch",)) is None
        count = 52 * self.decks if verified else 52 * self.decks - 1
        self.queue.append(ShuffleDone(shuffle_id, count, verified, device=self.name))

    def deal_hand(self, hand_no: int, cards: int = 3) -> None:
        if self.jammed:
            return
        fault = self._take_fault(self.hands, ("jam", "misread", "duplicate", "short_hand", "long_hand"))
        self.hands += 1
        if fault is not None and fault.kind == "jam":
            self.jammed = True
            self.queue.append(self._raise(SHUFFLER_JAM, "E", "card jam while dispensing"))
            return
        dealt = []
        if fault is not None and fault.kind in ("short_hand", "long_hand"):
            cards += -1 if fault.kind == "short_hand" else 1
        for _ in range(cards):
            try:
                dealt.append(self.source.draw())
            except OutOfCards:
                return  # nothing arrives: the table sees no hand
        if fault is not None and fault.kind == "misread":
            self.queue.append(self._raise(MISREAD, "E", f"hand {hand_no}: card not recognised"))
            return
        if fault is not None and fault.kind == "duplicate" and self.delivered_this_round:
            dealt[0] = type(dealt[0])(self.delivered_this_round[-1], False)
        self.delivered_this_round.extend(d.card for d in dealt)
        self.queue.append(
            HandDispensed(
                hand_no,
                tuple(d.card for d in dealt),
                tuple(d.exposed for d in dealt),
                device=self.name,
            )
        )

    def abort(self) -> None:
        self.queue.clear()

    def next_event(self, timeout: float | None = 0.0) -> DeviceEvent | None:
        return self.queue.popleft() if self.queue else None
