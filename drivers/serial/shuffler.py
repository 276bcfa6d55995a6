"""Automatic shuffler (ADDR 01) over TDL/1: ``LDK``/``SHF``/``DLH``/``ABT``
in, ``SHD``/``HDO``/``EMP`` and faults out.

A hand asked for while the shuffle is still running is held by the driver
and asked for (``DLH``) as soon as the shuffler reports the shuffle done, so
a table may ask for hands right after it asked for the shuffle.

A ``HDO`` is taken only for a hand the driver asked for (``DLH``) and with
as many cards as asked; the same hand reported again is ACKed and not
delivered twice. The shuffler never reveals the order of the cards it
still holds: no message asks for it, and the driver keeps none.
"""

from __future__ import annotations

from typing import Any

from drivers.base import Shuffler
from drivers.events import DeviceEvent, HandDispensed, ShoeEmpty, ShuffleDone
from drivers.tdl import DeviceAddr, Frame
from drivers.serial import parse
from drivers.serial.link_device import Handler, LinkDevice

MODES = ("BATCH", "CONT")


class SerialShuffler(LinkDevice, Shuffler):
    ADDR = DeviceAddr.SHUFFLER

    def __init__(self, url: str | None = None, **kwargs: Any) -> None:
        super().__init__(url, **kwargs)
        self.decks = 0
        self.shuffle_id = ""
        self._shuffle_done: tuple[str, ...] | None = None
        self._pending: dict[int, int] = {}  # hand# -> cards asked for
        self._hands: dict[int, tuple[str, ...]] = {}  # hand# -> HDO fields delivered since the shuffle
        self._empty = False
        self._held: list[tuple[int, int]] = []  # hands asked for before the shuffle was done

    def device_handlers(self) -> dict[str, Handler]:
        return {"SHD": self._on_shd, "HDO": self._on_hdo, "EMP": self._on_emp}

    # -- commands ---------------------------------------------------------------

    def load(self, decks: int, cards: int) -> None:
        with self._lock:
            self.decks, self._empty = decks, False
        self._command("LDK", str(decks), str(cards))

    def shuffle(self, shuffle_id: str, mode: str = "BATCH") -> None:
        if mode not in MODES:
            raise ValueError(f"shuffle mode {mode!r} is not one of {', '.join(MODES)}")
        with self._lock:
            self.shuffle_id, self._shuffle_done = shuffle_id, None
            self._pending, self._hands, self._held = {}, {}, []
        if not self._command("SHF", mode, shuffle_id):
            with self._lock:
                self.shuffle_id = ""

    def deal_hand(self, hand_no: int, cards: int = 3) -> None:
        with self._lock:
            if self.shuffle_id and self._shuffle_done is None:
                self._held.append((hand_no, cards))  # asked for once the shuffle is done
                return
        self._dlh(hand_no, cards)

    def _dlh(self, hand_no: int, cards: int) -> None:
        with self._lock:  # before sending: the HDO may arrive before send() returns
            self._pending[hand_no] = cards
            self._hands.pop(hand_no, None)
        if not self._command("DLH", str(hand_no), str(cards)):
            with self._lock:
                self._pending.pop(hand_no, None)

    def _release_held(self) -> None:
        """Worker: the shuffle is done, ask for the hands the table wanted meanwhile."""
        while True:
            with self._lock:
                if not self._held:
                    return
                hand_no, cards = self._held.pop(0)
            self._dlh(hand_no, cards)

    def abort(self) -> None:
        with self._lock:
            self._pending.clear()
            self._held.clear()
        self._command("ABT")

    # -- device messages ------------------------------------------------------------

    def _on_shd(self, frame: Frame) -> list[DeviceEvent]:
        shuffle_id, count_s, verdict = parse.fields(frame, 3)
        count = parse.integer(count_s, "count", 0, 9999)
        parse.choice(verdict, "verdict", ("VERIFIED", "MISMATCH"))
        if frame.fields == self._shuffle_done:
            return []
        if shuffle_id != self.shuffle_id:
            raise parse.sta(f"shuffle {shuffle_id!r} done, the shuffle asked for is {self.shuffle_id!r}")
        self._shuffle_done = frame.fields
        if self._held:
            self._post(self._release_held)
        return [ShuffleDone(shuffle_id, count, verdict == "VERIFIED", device=self.name)]

    def _on_hdo(self, frame: Frame) -> list[DeviceEvent]:
        hand_s, cards_s = parse.fields(frame, 2)
        hand_no = parse.integer(hand_s, "hand#", 0, 9999)
        cards = parse.card_list(cards_s)
        if self._hands.get(hand_no) == frame.fields:
            return []  # already delivered
        asked = self._pending.get(hand_no)
        if asked is None:
            raise parse.sta(f"hand {hand_no} was not asked for")
        if len(cards) != asked:
            # The cards are out of the shuffler: the table is told (a hand of the
            # wrong size is a misdeal at the table, Art. 11(1)), not left waiting
            # for a hand the device will never send again.
            self._log.warning("hand of the wrong size", hand=hand_no, cards=len(cards), asked=asked)
        if len({c.card for c in cards}) != len(cards):
            raise parse.fmt(f"hand {hand_no} holds the same card twice: {cards_s}")
        del self._pending[hand_no]
        self._hands[hand_no] = frame.fields
        return [HandDispensed(hand_no, tuple(c.card for c in cards), tuple(c.exposed for c in cards),
                              device=self.name)]

    def _on_emp(self, frame: Frame) -> list[DeviceEvent]:
        parse.fields(frame, 0)
        if self._empty:
            return []
        self._empty = True
        return [ShoeEmpty(device=self.name)]
