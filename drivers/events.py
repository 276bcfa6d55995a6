"""Typed events that devices report to the table.

They mirror the device messages of the TDL/1 protocol (docs/protocol.md), so
a mock backend and a serial backend deliver exactly the same objects.
"""

from __future__ import annotations

from decimal import Decimal

from dataclasses import dataclass, field
from typing import Literal

from tablecore.cards import Card

Severity = Literal["W", "E", "C"]  # warning / round must pause / device disabled


@dataclass(frozen=True, slots=True)
class DeviceEvent:
    device: str = field(default="", kw_only=True)


@dataclass(frozen=True, slots=True)
class CardRead(DeviceEvent):
    """The shoe reader saw a card leave the shoe (``exposed``: it came face up)."""

    round_id: str
    index: int
    card: Card
    exposed: bool = False


def _card_read_maker():
    """A ``CardRead`` built through its slots: the same frozen object as
    ``CardRead(...)``, at half the cost (a frozen dataclass's ``__init__``
    sets each field through ``object.__setattr__``). A shoe reports every card
    of every round, so this is on the engine's hottest path."""
    new = object.__new__
    set_round, set_index, set_card = CardRead.round_id.__set__, CardRead.index.__set__, CardRead.card.__set__
    set_exposed, set_device = CardRead.exposed.__set__, CardRead.device.__set__

    def card_read(round_id: str, index: int, card: Card, exposed: bool, device: str) -> CardRead:
        event = new(CardRead)
        set_round(event, round_id)
        set_index(event, index)
        set_card(event, card)
        set_exposed(event, exposed)
        set_device(event, device)
        return event

    return card_read


#: ``card_read(round_id, index, card, exposed, device)``: a ``CardRead``, cheaply
card_read = _card_read_maker()


@dataclass(frozen=True, slots=True)
class HandDispensed(DeviceEvent):
    """The automatic shuffler delivered a hand (one or more cards)."""

    hand_no: int
    cards: tuple[Card, ...]
    exposed: tuple[bool, ...]


@dataclass(frozen=True, slots=True)
class ShuffleDone(DeviceEvent):
    shuffle_id: str
    count: int
    verified: bool


@dataclass(frozen=True, slots=True)
class ShoeCount(DeviceEvent):
    shoe_id: str
    dealt: int
    remaining: int


@dataclass(frozen=True, slots=True)
class ShoeEmpty(DeviceEvent):
    pass


@dataclass(frozen=True, slots=True)
class DrawShown(DeviceEvent):
    """The draw display's read-back of what it shows."""

    draw_id: str
    shown: int


@dataclass(frozen=True, slots=True)
class SpinStarted(DeviceEvent):
    round_id: str
    direction: Literal["CW", "CCW"]


@dataclass(frozen=True, slots=True)
class Revolution(DeviceEvent):
    round_id: str
    n: int


@dataclass(frozen=True, slots=True)
class SpinResult(DeviceEvent):
    round_id: str
    segment: int
    turns: Decimal  # a sensor measurement, exact (never a float: 2.999... is not 3)
    direction: Literal["CW", "CCW"]
    #: how the turns were obtained (docs/drivers.md, "Turns"): the table records it with the
    #: spin, since an integral of rotor speeds is not a count of index passes
    turns_source: str = "sensor"
    #: the measurement's bound: the true count lies within ``turns`` +/- this (0: exact)
    turns_error: Decimal = Decimal(0)


@dataclass(frozen=True, slots=True)
class InvalidSpin(DeviceEvent):
    round_id: str
    turns: Decimal
    reason: str  # few_turns | peg | reversed | early_motion | timeout | device_no_spin
    turns_source: str = "sensor"


@dataclass(frozen=True, slots=True)
class FaultRaised(DeviceEvent):
    code: int
    severity: Severity
    text: str
    card: Card | None = None  # the card concerned (drawn while disarmed, misread guess)
    #: the shoe load the card came from, as the driver knew it when the report
    #: arrived ("" unknown): a report read before a new pack was loaded belongs
    #: to the old pack, however late the table handles it
    shoe_id: str = ""


@dataclass(frozen=True, slots=True)
class FaultCleared(DeviceEvent):
    code: int


@dataclass(frozen=True, slots=True)
class LinkLost(DeviceEvent):
    reason: str


@dataclass(frozen=True, slots=True)
class LinkRestored(DeviceEvent):
    pass


# Fault codes of docs/protocol.md, by name, so game code reads as prose.
MISREAD = 201
TWO_CARDS = 202
CARD_PUSHED_BACK = 203
DRAWN_WHILE_DISARMED = 204
LOW_CONFIDENCE = 205
SHOE_UNMAPPED = 209  # a shoe's own fault its configuration's fault map does not name (line devices)
SHUFFLER_COUNT_LOW = 301
SHUFFLER_COUNT_HIGH = 302
SHUFFLER_DUPLICATE = 303
SHUFFLER_JAM = 310
SHUFFLER_LID_OPEN = 320
SHUFFLER_RNG = 340
DISPLAY_SEGMENT = 401
DISPLAY_READBACK = 402
DISPLAY_UNMAPPED = 409
WHEEL_INDEX_SENSOR = 501
WHEEL_ENCODER = 502
WHEEL_SENSORS_DISAGREE = 503
WHEEL_MOTION_IDLE = 506
WHEEL_UNMAPPED = 509
