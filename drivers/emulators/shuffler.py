"""Automatic shuffler emulator (ADDR 01): load, shuffle, dispense hands.

``LDK`` loads a pack, ``SHF`` shuffles it (``shuffle_time`` device
seconds, then ``SHD`` with the count it made), ``DLH`` dispenses one hand
(``hand_time`` later: ``HDO`` with its cards, read as they leave). ``DLH``
before a shuffle is done is refused (``BSY`` while shuffling, ``STA``
otherwise, and while jammed). Nothing ever reveals the order of the cards
still inside: ``STS`` gives only the state and how many cards are left.

Faults: ``jam@hand=N`` (``FLT|310|E``, no hand; cleared by the next
``LDK``/``SHF``), ``misread@hand=N`` (``FLT|201|E``, the hand is lost),
``count@shuffle=N`` (``SHD`` ... ``MISMATCH`` with one card short),
``short-hand@hand=N`` / ``long-hand@hand=N`` (a hand of one card fewer or
more than asked),
``power@hand=N`` and the link faults.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from drivers.events import MISREAD, SHUFFLER_JAM
from drivers.emulators.base import Emulator
from drivers.tdl import DeviceAddr, Frame, NakReason
from drivers.serial import parse
from tablecore.cards import DECK, Card

SHUFFLE_TIME = 25.0
HAND_TIME = 2.5
MODES = ("BATCH", "CONT")


class ShufflerEmulator(Emulator):
    KIND = "shuffler"
    ADDR = DeviceAddr.SHUFFLER
    MODEL = "TDL-SHUFFLER-EMU"
    TRANSIENT_FAULTS = (MISREAD,)

    def __init__(self, *, decks: int = 1, shuffle_time: float = SHUFFLE_TIME, hand_time: float = HAND_TIME,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.decks = decks
        self.shuffle_time = shuffle_time
        self.hand_time = hand_time
        self.expected = 52 * decks
        self.pack: list[Card] = []  # the cards inside, in the order only the shuffler knows
        self.state = "EMPTY"
        self.shuffle_id = ""
        self._queue: deque[tuple[int, int]] = deque()  # (hand#, cards) asked for, not yet dispensed
        self._busy = False
        self._gen = 0

    def device_handlers(self) -> dict:
        return {"LDK": self._on_ldk, "SHF": self._on_shf, "DLH": self._on_dlh, "ABT": self._on_abt}

    def status_fields(self) -> tuple[str, ...]:
        return (str(self.decks), str(len(self.pack)))  # how many, never which or in what order

    # -- commands ---------------------------------------------------------------------

    def _on_ldk(self, frame: Frame) -> NakReason | None:
        decks_s, cards_s = parse.fields(frame, 2)
        decks = parse.integer(decks_s, "decks", 1, 8)
        cards = parse.integer(cards_s, "cards", 1, 416)
        if self.state == "SHUFFLING":
            raise parse.sta("the shuffler is shuffling")
        self._cancel()
        self.decks, self.expected = decks, cards
        self.pack = list(DECK) * decks
        self.clear_fault(SHUFFLER_JAM)  # the dealer opened the lid and reloaded
        self.state = "LOADED"
        return None

    def _on_shf(self, frame: Frame) -> NakReason | None:
        mode, shuffle_id = parse.fields(frame, 2)
        parse.choice(mode, "mode", MODES)
        if self.state == "EMPTY":
            raise parse.sta("no pack loaded")
        if self.state == "SHUFFLING":
            return NakReason.BSY
        self._cancel()
        self.clear_fault(SHUFFLER_JAM)
        self.clear_transient_faults()
        self.pack = list(DECK) * self.decks  # a batch shuffle takes every card back in
        self.shuffle_id = shuffle_id
        self.state = "SHUFFLING"
        gen = self._gen
        self.after(self.shuffle_time, lambda: self._shuffled(gen, shuffle_id))
        return None

    def _on_dlh(self, frame: Frame) -> NakReason | None:
        hand_s, cards_s = parse.fields(frame, 2)
        hand = parse.integer(hand_s, "hand#", 0, 9999)
        cards = parse.integer(cards_s, "cards", 1, 52)
        if self.state == "SHUFFLING":
            return NakReason.BSY
        if self.state != "READY":
            raise parse.sta(f"no hand can be dispensed while {self.state.lower()}")
        self._queue.append((hand, cards))
        if not self._busy:
            self._busy = True
            gen = self._gen
            self.after(self.hand_time, lambda: self._dispense(gen))
        return None

    def _on_abt(self, frame: Frame) -> NakReason | None:
        parse.fields(frame, 0)
        self._cancel()
        if self.state in ("READY", "SHUFFLING"):
            self.state = "LOADED"  # a new shuffle is needed
        return None

    def _cancel(self) -> None:
        self._gen += 1
        self._queue.clear()
        self._busy = False

    def reset(self) -> None:
        self._cancel()
        self.state = "LOADED" if self.pack else "EMPTY"

    def on_power_loss(self) -> None:
        self._cancel()
        if self.state in ("READY", "SHUFFLING"):
            self.state = "LOADED"

    # -- the machine --------------------------------------------------------------------

    def _shuffled(self, gen: int, shuffle_id: str) -> None:
        if gen != self._gen:
            return
        self.rng.shuffle(self.pack)
        self.count["shuffle"] += 1
        count = len(self.pack)
        if self.plan.take("count", "shuffle", self.count["shuffle"]) is not None:
            self._log.info("fault: count mismatch", shuffle=self.count["shuffle"])
            count -= 1
        self.state = "READY"
        self.emit("SHD", shuffle_id, str(count), "VERIFIED" if count == self.expected else "MISMATCH")

    def _dispense(self, gen: int) -> None:
        if gen != self._gen or not self._queue:
            self._busy = False
            return
        hand, cards = self._queue.popleft()
        self.count["hand"] += 1
        n = self.count["hand"]
        if self.plan.take("jam", "hand", n) is not None:
            self._log.info("fault: jam", hand=n)
            self._cancel()
            self.state = "JAMMED"
            self.raise_fault(SHUFFLER_JAM, "E", "card jam while dispensing")
            return
        for kind, more in (("short-hand", -1), ("long-hand", 1)):
            if self.plan.take(kind, "hand", n) is not None:
                self._log.info(f"fault: {kind}", hand=n)
                cards += more
        if len(self.pack) < cards:
            self._cancel()
            self.state = "EMPTY"
            self.emit("EMP")
            return
        dealt = [self.pack.pop() for _ in range(cards)]
        if self.plan.take("misread", "hand", n) is not None:
            self._log.info("fault: misread", hand=n)
            self.raise_fault(MISREAD, "E", f"hand {hand}: card not recognised")
        else:
            self.emit("HDO", str(hand), ",".join(c.code for c in dealt), counter="hand")
        if self._queue:
            self.after(self.hand_time, lambda: self._dispense(gen))
        else:
            self._busy = False
