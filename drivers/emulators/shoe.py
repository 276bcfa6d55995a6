"""Card-shoe reader emulator (ADDR 02): a seeded shuffled shoe and a dealer.

The shoe holds ``decks`` decks shuffled with the emulator's seed (``LDS``
loads a fresh pack of the decks it names). While armed (``ARM``), the
emulated dealer draws a card, the reader reports it (``CRD``), and once the
host has ACKed it the dealer draws the next one, ``card_interval`` device
seconds later, until ``max-cards`` cards were drawn for that ``ARM`` or the
shoe is disarmed. ``CNT`` follows every 13th card, ``EMP`` the last one.
A re-``ARM`` for the same round goes on with that round's card indices.

Faults: ``misread@card=N`` (``FLT|201|E`` with the reader's guess, the card
takes its index), ``exposed@card=N`` (the card comes face up),
``disarmed@card=N`` (a card drawn while disarmed: ``FLT|204|W`` with the
card), ``power@card=N``, and the link faults. A ``CRD`` the host refuses was
drawn while the host had disarmed the shoe: it is reported as 204 too.
"""

from __future__ import annotations

from typing import Any

from drivers.events import DRAWN_WHILE_DISARMED, MISREAD
from drivers.emulators.base import Emulator, Outgoing
from drivers.tdl import DeviceAddr, Frame, NakReason
from drivers.serial import parse
from tablecore.cards import DECK, RANK_CHAR, Card

#: device seconds at time_scale 1
FIRST_CARD = 1.5  # from ARM to the first card
CARD_INTERVAL = 0.8  # between cards
COUNT_EVERY = 13


class ShoeEmulator(Emulator):
    KIND = "shoe"
    ADDR = DeviceAddr.SHOE
    MODEL = "TDL-SHOE-EMU"
    TRANSIENT_FAULTS = (MISREAD, DRAWN_WHILE_DISARMED)

    def __init__(self, *, decks: int = 1, card_interval: float = CARD_INTERVAL, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not 1 <= decks <= 8:
            raise ValueError("decks must be 1-8")
        self.decks = decks
        self.card_interval = card_interval
        self.shoe_id = ""
        self.pack: list[Card] = []
        self.armed = False
        self.round_id = ""
        self.index = 0  # the next card's index in the round
        self.max_cards = 0
        self.for_arm = 0  # cards drawn since the last ARM
        self.dealt = 0  # cards read out of this pack (CNT)
        self._empty_sent = False
        self._gen = 0  # bumped by ARM/DRM: a dealer's pending draw of an older arming is void
        self._fill(decks)

    def _fill(self, decks: int) -> None:
        self.decks = decks
        self.pack = list(DECK) * decks
        self.rng.shuffle(self.pack)
        self.dealt = 0
        self._empty_sent = False

    def device_handlers(self) -> dict:
        return {"LDS": self._on_lds, "ARM": self._on_arm, "DRM": self._on_drm}

    def status_fields(self) -> tuple[str, ...]:
        return (self.shoe_id, str(self.dealt), str(len(self.pack)))

    # -- commands ---------------------------------------------------------------------

    def _on_lds(self, frame: Frame) -> NakReason | None:
        shoe_id, decks_s = parse.fields(frame, 2)
        decks = parse.integer(decks_s, "decks", 1, 8)
        if self.armed:
            raise parse.sta("a shoe is loaded while disarmed")
        self.shoe_id = shoe_id
        self._fill(decks)
        self._idle()
        return None

    def _on_arm(self, frame: Frame) -> NakReason | None:
        round_id, max_s = parse.fields(frame, 2)
        max_cards = parse.integer(max_s, "max-cards", 1, 416)
        if not round_id:
            raise parse.fmt("ARM needs a round-id")
        if round_id != self.round_id:
            self.round_id, self.index = round_id, 0
        self.clear_transient_faults()
        self.armed, self.max_cards, self.for_arm = True, max_cards, 0
        self.state = "ARMED"
        self._gen += 1
        gen = self._gen
        self.after(FIRST_CARD, lambda: self._draw(gen))
        return None

    def _on_drm(self, frame: Frame) -> NakReason | None:
        parse.fields(frame, 0)
        was_armed = self.armed
        self.armed = False
        self.state = "IDLE"
        self._gen += 1
        if was_armed:
            self._idle()
        return None

    def reset(self) -> None:
        # RST forgets the round (a power loss does not): the next ARM starts at index 0
        self.armed, self.state = False, "IDLE"
        self.round_id, self.index = "", 0
        self._gen += 1

    def on_power_loss(self) -> None:
        self.armed, self.state = False, "IDLE"
        self._gen += 1

    # -- the dealer -------------------------------------------------------------------

    def _next_after_ack(self, gen: int) -> Any:
        def done(taken: bool, reason: str | None) -> None:
            if taken:  # a refused card stops the dealer until the next ARM
                self.after(self.card_interval, lambda: self._draw(gen))

        return done

    def _draw(self, gen: int) -> None:
        if gen != self._gen or not self.armed or self.for_arm >= self.max_cards:
            return
        if not self.pack:
            if not self._empty_sent:
                self._empty_sent = True
                self.emit("EMP")
            return
        card = self.pack.pop()
        self.count["card"] += 1
        n = self.count["card"]
        self.dealt += 1
        self.for_arm += 1
        index, self.index = self.index, self.index + 1
        if self.plan.take("misread", "card", n) is not None:
            self._log.info("fault: misread", card=n)
            self.raise_fault(MISREAD, "E", f"card {n} not recognised", card.code,
                             counter="card", on_done=self._next_after_ack(gen))
        else:
            face = "U" if self.plan.take("exposed", "card", n) is not None else "D"
            out = self.emit("CRD", self.round_id, str(index), RANK_CHAR[card.rank], card.suit, face,
                            counter="card", on_done=self._next_after_ack(gen))
            out.meta["card"] = card
        if self.dealt % COUNT_EVERY == 0:
            self.emit("CNT", self.shoe_id, str(self.dealt), str(len(self.pack)))
        if not self.pack and not self._empty_sent:
            self._empty_sent = True
            self.emit("EMP")

    def _idle(self) -> None:
        """The shoe is idle: a due ``disarmed`` fault draws a card now, as the
        shoe goes idle (so before the host can arm it again: the fault always
        fires in a run that reaches its position). With the shoe empty it
        waits for the next idle spell."""
        spec = self.plan.take_due("disarmed", "card", self.count["card"])
        if spec is None:
            return
        if self.armed or not self.pack:
            self.plan.specs.append(spec)
            return
        card = self.pack.pop()
        self._log.info("fault: card drawn while disarmed", card=card.code)
        self.raise_fault(DRAWN_WHILE_DISARMED, "W", "card drawn while the shoe was disarmed", card.code)

    def on_refused(self, out: Outgoing, reason: str) -> None:
        super().on_refused(out, reason)
        card = out.meta.get("card")
        if out.type == "CRD" and card is not None:
            # The host had disarmed the shoe: the card was drawn while disarmed.
            self.dealt -= 1
            self.raise_fault(DRAWN_WHILE_DISARMED, "W", "card drawn while the shoe was disarmed", card.code)
