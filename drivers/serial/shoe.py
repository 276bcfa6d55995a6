"""Card-shoe reader (ADDR 02) over TDL/1: ``LDS``/``ARM``/``DRM`` in,
``CRD``/``CNT``/``CUT``/``EMP`` and faults out.

A ``CRD`` is taken only for the round the shoe is armed for, at the next
index of that round (a misread, ``FLT|201`` while armed, takes an index
too). The same card reported again is ACKed and not delivered twice; any
other card out of turn is refused (``STA`` disarmed or another round,
``SEQ`` an index out of order) and never becomes a ``CardRead``.
"""

from __future__ import annotations

from typing import Any

from drivers.base import CardShoeReader
from drivers.events import DRAWN_WHILE_DISARMED, MISREAD, CardRead, DeviceEvent, ShoeCount, ShoeEmpty
from drivers.tdl import DeviceAddr, Frame, NakReason
from drivers.serial import parse
from drivers.serial.link_device import Handler, LinkDevice
from drivers.serial.parse import Refuse
from tablecore.cards import Card


def keep(books: dict, key: Any, value: str, most: int = 16) -> None:
    """Note ``key -> value`` in a small book that forgets its oldest entries."""
    books.pop(key, None)
    books[key] = value
    while len(books) > most:
        del books[next(iter(books))]


class SerialShoe(LinkDevice, CardShoeReader):
    ADDR = DeviceAddr.SHOE
    KEEPS_ROUND = True

    def __init__(self, url: str | None = None, **kwargs: Any) -> None:
        super().__init__(url, **kwargs)
        self.shoe_id = ""
        self.decks = 0
        self.armed = False
        self.round_id = ""
        self.max_cards = 0
        self._next_index = 0
        self._since_arm = 0  # cards (read or misread) since the last ARM
        self._cards: dict[int, tuple[str, ...]] = {}  # index -> CRD fields delivered this round
        self._empty = False
        self._count: tuple[str, ...] | None = None
        # The pack the device holds: set once LDS is acknowledged, so a report
        # read before that acknowledgement (the reader thread reads in order)
        # is stamped with the pack it really came from.
        self._pack = ""
        self._round_pack: dict[str, str] = {}  # round -> the pack it was armed on (the last few)
        # card -> pack, for cards refused as out of turn: the reader reports
        # each as drawn while disarmed, maybe after a new pack was loaded (a
        # resent CRD of the round before), and it came from its round's pack
        self._refused: dict[Card, str] = {}

    def device_handlers(self) -> dict[str, Handler]:
        return {"CRD": self._on_crd, "CNT": self._on_cnt, "CUT": self._on_cut, "EMP": self._on_emp}

    # -- commands ---------------------------------------------------------------

    def load_shoe(self, shoe_id: str, decks: int) -> None:
        with self._lock:
            self.shoe_id, self.decks, self._empty, self._count = shoe_id, decks, False, None
        if self._command("LDS", shoe_id, str(decks)):
            self._pack = shoe_id

    def arm(self, round_id: str, max_cards: int) -> None:
        def before() -> None:
            if round_id != self.round_id:
                self.round_id, self._next_index, self._cards = round_id, 0, {}
            self.armed, self.max_cards, self._since_arm = True, max_cards, 0
            keep(self._round_pack, round_id, self._pack)

        self._state_command("ARM", round_id, str(max_cards), before=before)

    def disarm(self) -> None:
        def before() -> None:
            self.armed = False

        self._state_command("DRM", before=before)

    def resync_command(self, desired: tuple[str, ...]) -> tuple[str, ...] | None:
        """After a reboot or a lost link: arm for the cards still due, not for max-cards again."""
        if desired[0] != "ARM":
            return desired
        left = self.max_cards - self._since_arm
        return ("ARM", self.round_id, str(left)) if left > 0 else None

    # -- device messages (reader thread, under the driver lock) -------------------

    def _on_crd(self, frame: Frame) -> list[DeviceEvent]:
        round_id, index_s, rank, suit, face = parse.fields(frame, 5)
        index = parse.integer(index_s, "index", 0, 9999)
        card = parse.card(rank, suit)
        parse.choice(face, "face", ("D", "U"))
        if round_id == self.round_id and self._cards.get(index) == frame.fields:
            return []  # already delivered (resent after a link loss, or replayed)
        if not self.armed or round_id != self.round_id:
            keep(self._refused, card, self._round_pack.get(round_id, self._pack))
            if not self.armed:
                raise parse.sta(f"card {card} drawn while the shoe is disarmed")
            raise parse.sta(f"card for round {round_id!r}, the shoe is armed for {self.round_id!r}")
        if index != self._next_index:
            raise Refuse(NakReason.SEQ, f"card index {index}, expected {self._next_index}")
        self._cards[index] = frame.fields
        self._next_index += 1
        self._since_arm += 1
        return [CardRead(round_id, index, card, face == "U", device=self.name)]

    def on_fault(self, code: int, card: Any) -> None:
        if code == MISREAD and self.armed:
            self._next_index += 1  # the unread card took its place in the round
            self._since_arm += 1
        elif code == DRAWN_WHILE_DISARMED:
            pass  # reported and flagged by the table, never dealt

    def fault_source(self, code: int, card: Any) -> str:
        if code == DRAWN_WHILE_DISARMED and card in self._refused:
            return self._refused.pop(card)
        return self._pack

    def _on_cnt(self, frame: Frame) -> list[DeviceEvent]:
        shoe_id, dealt_s, remaining_s = parse.fields(frame, 3)
        dealt = parse.integer(dealt_s, "dealt", 0, 99999)
        remaining = parse.integer(remaining_s, "remaining", 0, 99999)
        if frame.fields == self._count:
            return []
        self._count = frame.fields
        return [ShoeCount(shoe_id, dealt, remaining, device=self.name)]

    def _on_cut(self, frame: Frame) -> list[DeviceEvent]:
        round_id, index_s = parse.fields(frame, 2)
        parse.integer(index_s, "index", 0, 9999)
        self._log.info("cut card", round_id=round_id, index=index_s)
        return []

    def _on_emp(self, frame: Frame) -> list[DeviceEvent]:
        parse.fields(frame, 0)
        if self._empty:
            return []
        self._empty = True
        return [ShoeEmpty(device=self.name)]
