"""The table's side of a card-shoe reader that reads card codes (a USB HID
keyboard-wedge reader through libusb, ``drivers.usb.hid``; the same reader
through the Linux input layer, ``drivers.evdev``): a code read becomes a
card of the configuration's table, dealt in order while the shoe is armed,
a fault while it is not; events wait in a queue for the table."""

from __future__ import annotations

import queue
from typing import Any

import structlog

from drivers.base import CardShoeReader, round_context
from tablecore.validate import Reader
from drivers.events import DRAWN_WHILE_DISARMED, CardRead, DeviceEvent, FaultRaised
from tablecore.cards import Card, parse_dealt
from tablecore.errors import InputError


def code_settings(reader: Reader, out: dict[str, Any]) -> dict[str, Any]:
    """What every code-reading shoe's settings share: ``cards`` (a device's code ->
    our card code, each checked) and ``reconnect`` (seconds, 0 to 60); the rest
    of the section refused as unknown. ``out``: the backend's own settings."""
    if reader.has("cards"):
        sub = reader.sub("cards")
        cards = {}
        for code in sub.data:
            value = sub.str(code)
            try:
                cards[code] = parse_dealt(value).card.code
            except InputError:
                raise sub.fail(code, f"{value!r} is not a card code (e.g. QH)") from None
        out["cards"] = cards
    if reader.has("reconnect"):
        seconds = reader.decimal("reconnect")
        if not 0 < seconds <= 60:
            raise reader.fail("reconnect", f"{seconds} is outside 0..60 seconds")
        out["reconnect_interval"] = float(seconds)
    reader.reject_unknown()
    return out


class CodeShoe(CardShoeReader):
    """What both readers do with a code; each says where it reads (``log_fields``)."""

    def __init__(self, name: str | None, cards: dict[str, str] | None) -> None:
        super().__init__(name)
        self.cards = dict(cards or {})  # a device's code -> our card code (none: the code is ours)
        self.armed, self.round_id, self.shoe_id, self._index = False, "", "", 0
        self._events: queue.Queue = queue.Queue()

    def log_fields(self) -> dict[str, Any]:
        raise NotImplementedError

    def _code(self, code: str) -> None:
        card = self._card(code)
        if card is None:
            self._log.warning("unknown card code", code=code)
            return
        if not self.armed:
            self._put(FaultRaised(DRAWN_WHILE_DISARMED, "W", f"card {card} drawn while the shoe was disarmed",
                                  card, self.shoe_id, device=self.name))
            return
        index, self._index = self._index, self._index + 1
        self._put(CardRead(self.round_id, index, card, False, device=self.name))

    def _card(self, code: str) -> Card | None:
        text = self.cards.get(code) if self.cards else code.upper()
        try:
            return parse_dealt(text).card if text else None
        except InputError:
            return None

    # -- the table's side -------------------------------------------------------------

    def _put(self, event: DeviceEvent) -> None:
        self._events.put(event)
        self.reported()

    def next_event(self, timeout: float | None = 0.0) -> DeviceEvent | None:
        try:
            event = self._events.get(timeout=timeout) if timeout else self._events.get_nowait()
        except queue.Empty:
            return None
        if event is None:
            self._events.put(None)
        return event

    def load_shoe(self, shoe_id: str, decks: int) -> None:
        self.shoe_id = shoe_id

    def arm(self, round_id: str, max_cards: int) -> None:
        context = round_context()
        if context:
            # (the reader's own module's logger, as its other lines)
            self._log = structlog.get_logger(type(self).__module__).bind(device=self.name, **self.log_fields(),
                                                                          **context)
        if round_id != self.round_id:
            self.round_id, self._index = round_id, 0
        self.armed = True
        for cue in list(self.cues):
            cue("arm", {"round_id": round_id, "max_cards": max_cards})

    def disarm(self) -> None:
        self.armed = False
        for cue in list(self.cues):
            cue("disarm", {})
