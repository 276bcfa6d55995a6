"""The line drivers of each device kind: named groups in, typed events out.

- :class:`LineShoe`: a ``card`` line is a ``CardRead`` of the round the
  shoe is armed for, at the round's next index; a card drawn while
  disarmed is fault 204 (warning) with the card, never a ``CardRead``. With
  an ``index`` group, a card reported again is not delivered twice.
- :class:`LineWheel`: a ``spin`` line is the wheel's status or result.
  With a ``state`` group, states in ``spinning_state`` start the spin and
  states in ``result_state`` show the last result; with a ``spin`` group
  (the controller's spin counter) a result is new only when the counter
  moved (it may wrap), so a polled status that keeps showing the last
  result is taken once; the first result heard is an old one unless the
  wheel was seen turning or waiting since the arming. The turns come from
  the configured source (:mod:`drivers.lineproto.turns`: a field, revolution
  lines counted, rotor speeds integrated, or the controller's judgement),
  reported with how they were obtained and their error; a "no spin" state
  or flag is ``InvalidSpin``. One arming, one spin; a spin while disarmed
  is fault 506, never a result.
- :class:`LineDisplay`: a ``shown`` line is the display's read-back
  (``DrawShown``), of the draw number or of the sets' numbers, compared
  with what was sent like the TDL/1 display's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from drivers.base import CardShoeReader, DrawDisplay, WheelSensor
from drivers.events import (
    DISPLAY_READBACK,
    DRAWN_WHILE_DISARMED,
    WHEEL_MOTION_IDLE,
    CardRead,
    DeviceEvent,
    DrawShown,
    FaultRaised,
    InvalidSpin,
    Revolution,
    SpinResult,
    SpinStarted,
)
from drivers.lineproto.device import LineDevice, Unacceptable
from drivers.lineproto.spec import DIRECTIONS, Message
from drivers.lineproto.turns import SpeedIntegral, flag_bits
from drivers.serial.display import draw_text, set_text
from tablecore.cards import RANK_OF, Card, parse_dealt


def _integer(groups: dict[str, str], key: str, hi: int = 9999) -> int:
    text = groups[key].strip()  # a number space-padded to its width (" 7") is 7
    if not (text.isascii() and text.isdigit() and len(text) <= 6 and int(text) <= hi):
        raise Unacceptable(f"{key} {text!r} is not a number 0-{hi}")
    return int(text)


class LineShoe(LineDevice, CardShoeReader):
    def __init__(self, url: str, **kwargs: Any) -> None:
        super().__init__(url, **kwargs)
        self.shoe_id, self.decks = "", 0
        self.armed, self.round_id, self.max_cards = False, "", 0
        self._next_index = 0

    def load_shoe(self, shoe_id: str, decks: int) -> None:
        with self._lock:
            self.shoe_id, self.decks = shoe_id, decks
        self._command("load", {"shoe_id": shoe_id, "decks": decks})

    def arm(self, round_id: str, max_cards: int) -> None:
        with self._lock:
            if round_id != self.round_id:
                self.round_id, self._next_index = round_id, 0
            self.armed, self.max_cards = True, max_cards
        self._state_command("arm", {"round_id": round_id, "max_cards": max_cards})

    def disarm(self) -> None:
        with self._lock:
            self.armed = False
        self._state_command("disarm", {})

    def card(self, message: Message, groups: dict[str, str]) -> Card:
        if "code" in groups:
            code = message.cards.get(groups["code"])
            if code is None:
                raise Unacceptable(f"card code {groups['code']!r} is not in the table of cards")
            return parse_dealt(code).card
        rank = message.ranks.get(groups["rank"], "T" if groups["rank"] == "10" else groups["rank"])
        suit = message.suits.get(groups["suit"], groups["suit"])
        if rank not in RANK_OF or suit not in ("S", "H", "D", "C"):
            raise Unacceptable(f"{groups['rank']!r} {groups['suit']!r} is not a card")
        return parse_dealt(rank + suit).card

    def on_message(self, message: Message, groups: dict[str, str]) -> list[DeviceEvent]:
        if message.event != "card":
            return []  # an ignore line
        card = self.card(message, groups)
        if not self.armed:
            return [FaultRaised(DRAWN_WHILE_DISARMED, "W", f"card {card} drawn while the shoe was disarmed",
                                card, self.shoe_id, device=self.name)]
        if "index" in groups:
            index = _integer(groups, "index")
            if index < self._next_index:
                return []  # reported already
            if index > self._next_index:
                raise Unacceptable(f"card index {index}, expected {self._next_index}")
        index, self._next_index = self._next_index, self._next_index + 1
        return [CardRead(self.round_id, index, card, False, device=self.name)]


class LineWheel(LineDevice, WheelSensor):
    def __init__(self, url: str, **kwargs: Any) -> None:
        super().__init__(url, **kwargs)
        self.armed, self.round_id = False, ""
        self.min_turns, self.max_seconds = 3, 60.0
        self._started = False  # this arming's spin has started
        self._last_spin: str | None = None  # the controller's spin counter, last seen
        self._idle_spins: set[str] = set()  # spin counters reported as moved while idle
        self._passes = 0  # revolution lines of this spin
        self._rest: tuple[Decimal, Decimal] | None = None  # the last rotor speed sample at rest (s, rpm)
        self._samples: list[tuple[Decimal, Decimal]] = []  # this spin's samples, from the rest before it
        self._waited = False  # a status not showing a result came since the arming: a result now is new
        self._idle_counter: str | None = None  # the spin counter on the last status not showing a result

    def arm(self, round_id: str, min_turns: int, max_seconds: float) -> None:
        with self._lock:
            self.armed, self.round_id, self._started = True, round_id, False
            self.min_turns, self.max_seconds = min_turns, max_seconds
            self._passes, self._samples, self._waited = 0, [], False
        seconds = f"{float(max_seconds):.3f}".rstrip("0").rstrip(".")
        self._state_command("arm", {"round_id": round_id, "min_turns": int(min_turns), "max_seconds": seconds})

    def disarm(self) -> None:
        with self._lock:
            self.armed = False
        self._state_command("disarm", {})

    @staticmethod
    def direction(message: Message, groups: dict[str, str]) -> str:
        raw = groups.get("direction", "CW")
        direction = message.directions.get(raw, raw)
        if direction not in DIRECTIONS:
            raise Unacceptable(f"direction {raw!r} is not one of {', '.join(message.directions) or 'CW, CCW'}")
        return direction

    def _spin_start(self, direction: str) -> list[DeviceEvent]:
        if self._started:
            return []
        self._started = True
        return [SpinStarted(self.round_id, direction, device=self.name)]  # type: ignore[arg-type]

    def on_message(self, message: Message, groups: dict[str, str]) -> list[DeviceEvent]:
        turns = self.spec.turns
        if message.event == "revolution":
            return self._revolution(message, groups)
        if message.event == "spin_started":
            return self._spin_start(self.direction(message, groups)) if self.armed else []
        if message.event != "spin":
            return []
        direction = self.direction(message, groups)
        state = groups.get("state")
        moving = state is not None and state in message.spinning_state
        declared = state is not None and state in turns.no_spin_state
        if "speed" in groups and turns.source == "rotor_speed":
            self._sample(groups["speed"], moving, shows_result=not moving and (
                state is None or state in message.result_state or declared))
        if moving or (state is not None and state not in message.result_state and not declared):
            self._waited = self.armed
            self._idle_counter = groups.get("spin", self._idle_counter)
            if moving:
                return self._spin_start(direction) if self.armed else []
            return []  # neither turning nor showing a result (e.g. a betting state)
        segment = _integer(groups, "segment", 999) if groups.get("segment", "").strip() else None
        spin = groups.get("spin")
        ours = self.armed and (self._started or self._waited)
        if spin is not None:
            previous, self._last_spin = self._last_spin, spin
            if spin == previous:
                return []  # the same result shown again
            moved = self._idle_counter is not None and spin != self._idle_counter
            if previous is None and not (ours or self.armed and moved):
                return []  # first sight of the counter: a result from before this spin
        elif state is not None and not ours:
            return []  # a result shown before this arming's spin started: the last one's
        if not self.armed:
            return self._idle_motion(spin, segment if segment is not None else 0)
        self.armed = False  # one arming, one spin
        events = [*self._spin_start(direction)]
        flags = flag_bits(groups.get("flags", "0")) or 0
        if declared or flags & turns.no_spin_flags:
            events.append(InvalidSpin(self.round_id, Decimal(0), "device_no_spin", turns.source, device=self.name))
        elif segment is None:
            raise Unacceptable("a result with no segment")
        else:
            count, error = self._measured(groups)
            events.append(SpinResult(self.round_id, segment, count, direction, turns.source,  # type: ignore[arg-type]
                                     error, device=self.name))
        self._started = False
        self._passes, self._samples = 0, []
        return events

    def _measured(self, groups: dict[str, str]) -> tuple[Decimal, Decimal]:
        """The spin's turns and their error, from the configured source."""
        source = self.spec.turns.source
        if source == "field":
            if "turns" not in groups:
                raise Unacceptable("a result with no turns")
            return self._turns(groups["turns"]), self.spec.turns.error
        if source == "revolutions":
            return Decimal(self._passes), Decimal(1) if self._passes else Decimal(0)
        if source == "rotor_speed":
            if len(self._samples) < 2:
                return Decimal(0), Decimal(0)  # no motion seen: no turns to count
            return SpeedIntegral(self.spec.turns.speed_unit, self._samples).result()
        return Decimal(self.min_turns), Decimal(0)  # controller: it judged the spin a spin

    def _sample(self, text: str, moving: bool, shows_result: bool) -> None:
        if not (text.isascii() and text.strip().isdigit() and len(text) <= 8):
            raise Unacceptable(f"rotor speed {text!r} is not a number")
        sample = (Decimal(repr(self.clock())), int(text.strip()) * self.spec.turns.speed_unit)
        if moving and self.armed:
            if not self._samples and self._rest is not None:
                self._samples.append(self._rest)  # from the last moment seen at rest
            self._samples.append(sample)
        elif shows_result and self._samples and self.armed:
            self._samples.append(sample)  # the spin's end (the result's line is read next)
        else:
            self._rest = sample

    def _revolution(self, message: Message, groups: dict[str, str]) -> list[DeviceEvent]:
        if not self.armed:
            return []  # a pass of the mark while idle: the spin's result (if any) says it
        events = self._spin_start(self.direction(message, groups))
        self._passes += 1
        events.append(Revolution(self.round_id, self._passes, device=self.name))
        return events

    def _turns(self, text: str) -> Decimal:
        head, dot, tail = text.partition(".")
        if not (head.isascii() and head.isdigit() and len(text) <= 12) or (dot and not (tail.isascii() and tail.isdigit())):
            raise Unacceptable(f"turns {text!r} is not a decimal number")
        return Decimal(text)

    def _idle_motion(self, spin: str | None, segment: int) -> list[DeviceEvent]:
        key = spin if spin is not None else str(len(self._idle_spins))
        if key in self._idle_spins:
            return []
        self._idle_spins.add(key)
        return [FaultRaised(WHEEL_MOTION_IDLE, "W", f"wheel spun while the sensor was idle (segment {segment}): "
                            "not a result", device=self.name)]


class LineDisplay(LineDevice, DrawDisplay):
    def __init__(self, url: str, *, draws: Mapping[int, tuple[Sequence[int], Sequence[int]]] | None = None,
                 **kwargs: Any) -> None:
        super().__init__(url, **kwargs)
        self._combos: dict[str, int] = {draw_text(u, l): n for n, (u, l) in (draws or {}).items()}
        self._sent: dict[str, tuple[int, str]] = {}  # draw id -> (draw, upper/lower sent)
        self._read: dict[str, str] = {}
        self._last_draw_id = ""
        self.showing: tuple[str, int] | None = None

    def learn_draws(self, draws: Mapping[int, tuple[Sequence[int], Sequence[int]]]) -> None:
        """The game's combinations, so a read-back of another draw is named by its number."""
        with self._lock:
            self._combos.update({draw_text(u, l): n for n, (u, l) in draws.items()})

    def show(self, round_id: str, draw_id: str, draw: int, upper: tuple[int, ...], lower: tuple[int, ...]) -> None:
        text = draw_text(upper, lower)
        with self._lock:
            self._sent[draw_id] = (draw, text)
            self._combos.setdefault(text, draw)
            self._read.pop(draw_id, None)
            self._last_draw_id = draw_id
        self._command("show", {"round_id": round_id, "draw_id": draw_id, "draw": draw,
                               "upper": set_text(upper), "lower": set_text(lower)})

    def clear(self) -> None:
        if self._command("clear", {}):
            with self._lock:
                self.showing = None
                self.health.faults.pop(DISPLAY_READBACK, None)

    def on_message(self, message: Message, groups: dict[str, str]) -> list[DeviceEvent]:
        if message.event != "shown":
            return []
        draw_id = groups.get("draw_id", self._last_draw_id)
        sent = self._sent.get(draw_id)
        if sent is None:
            raise Unacceptable(f"read-back of draw {draw_id!r}, which was never shown")
        draw, text = sent
        if "draw" in groups:
            number = _integer(groups, "draw")
            shown = str(number)
            matches = number == draw
        else:
            shown = f"{groups['upper']}/{groups['lower']}"
            matches = shown == text
            number = draw if matches else self._combos.get(shown, 0)
        if self._read.get(draw_id) == shown:
            return []  # read back already
        self._read[draw_id] = shown
        self.showing = (draw_id, number)
        if matches:
            self.health.faults.pop(DISPLAY_READBACK, None)
        else:
            self.health.faults[DISPLAY_READBACK] = f"draw {draw_id}: the display reads back {shown}, {text} was sent"
            self._log.warning("read-back mismatch", draw_id=draw_id, sent=text, shown=shown)
        return [DrawShown(draw_id, number, device=self.name)]
