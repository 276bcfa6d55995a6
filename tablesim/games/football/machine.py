"""The football card game's round, as states and a transition table.

Art. 6: the draw is made and shown first (the display's read-back must match
before anyone bets), then betting, then two cards to each box with bets,
left to right, the common box last whether or not it has bets; then the
third cards (Art. 10(1)), left to right, the common box last; settlement.
A round may be voided at any point before settlement.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from pathlib import Path

from tablecore.records import table_event, TableRecord
from tablecore.wording import CORE_WORDS as C, Words
from tablesim.engine.inputs import CloseBetting, StartDealing, TableInput
from tablesim.engine.machine import Procedure, rule, step


class S(enum.Enum):
    IDLE = "idle"
    DRAWING = "drawing"  # the draw is sent to the display; waiting for its read-back
    BETTING_OPEN = "betting_open"  # the draw is shown: players bet knowing it
    BETS_CLOSED = "bets_closed"
    DEALING = "dealing"  # two cards per dealt box
    THIRD_CARDS = "third_cards"  # one more card to each box whose two cards total a middle number
    SETTLEMENT = "settlement"
    COMPLETE = "complete"
    VOID = "void"


BEFORE_SETTLEMENT = (S.DRAWING, S.BETTING_OPEN, S.BETS_CLOSED, S.DEALING, S.THIRD_CARDS)
#: States in which the shoe delivers cards that belong to a box.
CARD_STATES = (S.DEALING, S.THIRD_CARDS)


# --- Football's own table input (``tablesim/engine/inputs.py``): the dealer
# settles once the last third card is in.

@dataclass(frozen=True, slots=True)
class Settle(TableInput):
    """Settle the round (Art. 10)."""


# --- Football's own table events: the draw, the pack and the shoe count, an
# exposed card. They register themselves with the engine's records
# (``tablecore/records.py``) when the game is imported.

@table_event("draw_made")
@dataclass(frozen=True, slots=True)
class DrawMade(TableRecord):
    draw: int
    draw_id: str
    source: str
    seeded: bool


@table_event("draw")
@dataclass(frozen=True, slots=True)
class DrawAccepted(TableRecord):
    draw: int
    upper: list
    lower: list
    source: str
    seeded: bool


@table_event("draw_confirmed")
@dataclass(frozen=True, slots=True)
class DrawConfirmed(TableRecord):
    draw: int


@table_event("pack_loaded")
@dataclass(frozen=True, slots=True)
class PackLoaded(TableRecord):
    pack_id: str
    decks: int
    cards: int
    reason: str


@table_event("shoe_count")
@dataclass(frozen=True, slots=True)
class ShoeCounted(TableRecord):
    pack_id: str
    dealt: int
    remaining: int


@table_event("exposed_card")
@dataclass(frozen=True, slots=True)
class ExposedCard(TableRecord):
    to: str
    card: str
    rule: str


# --- The football game's own words for the texts it makes (its refusals and
# incidents), in English from its catalog (``i18n/en.po``) and carrying their
# message ids, so a page shows them in its own language.

WORDS = Words(Path(__file__).resolve().parent / "i18n")


# --- the round: its steps and the rules of its actions

STEPS = (
    # Art. 6(1): the host draws a combination and sends it to the display.
    step("start_round", (S.IDLE, S.COMPLETE, S.VOID), S.DRAWING, after="send_draw"),
    # The display's read-back matches: the draw is accepted, players bet knowing it.
    step("draw_shown", S.DRAWING, S.BETTING_OPEN, after="announce_draw"),
    step("close_betting", S.BETTING_OPEN, S.BETS_CLOSED),
    # Art. 6(4): two cards to each box with bets, left to right, the common box last.
    step("start_dealing", S.BETS_CLOSED, S.DEALING, before="seat_boxes", after="arm_shoe"),
    # Art. 10(1): a third card to each box whose two cards total a middle number.
    step("third_cards", S.DEALING, S.THIRD_CARDS, before="find_thirds", after="deal_thirds"),
    step("settle", S.THIRD_CARDS, S.SETTLEMENT, before="stop_shoe", after="settle_boxes"),
    # Art. 8: the used cards are set aside (one deck) or go back into the shuffler.
    step("complete", S.SETTLEMENT, S.COMPLETE, after="used_cards"),
    # Any time before settlement: every bet returns.
    step("void", BEFORE_SETTLEMENT, S.VOID, before=("stop_devices", "announce_void")),
)

RULES = (
    rule("open_round", "start round", trigger="start_round",
         refused=C("refusal.round_not_finished")),
    rule("close_betting", "close betting", trigger="close_betting", refused=C("refusal.betting_closed"),
         fires=CloseBetting),
    rule("start_dealing", "deal", trigger="start_dealing",
         refused=C("refusal.deal_after_close"), fires=StartDealing),
    # The table settles when the last third card is in (or the dealer does, for a recovered round).
    rule("settle", "settle", trigger="settle", refused=WORDS("football.refusal.settle_after_thirds"),
         fires=Settle),
)

PROCEDURE = Procedure(S, S.IDLE, (S.COMPLETE, S.VOID), STEPS, RULES)
