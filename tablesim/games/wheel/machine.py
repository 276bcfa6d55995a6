"""The Wheel of Fortune round, as states and a transition table.

    betting_open --close_betting ("no more bets", Art. 2)--> bets_closed
    bets_closed  --spin_started--> spinning
    bets_closed | spinning --no_spin (Art. 4(4): spin again, bets stay)--> bets_closed
    bets_closed | spinning --spin_counted (Art. 4(3), 5)--> result
    result --settle (Art. 6)--> settlement --complete--> complete
    any state before settlement --void--> void (every bet returned)

A result can arrive without a start report (a sensor that only reports the
result), hence ``spin_counted`` and ``no_spin`` from ``bets_closed`` too.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from tablecore.codec import OMITTED
from tablecore.records import table_event, TableRecord
from tablecore.wording import CORE_WORDS as C, Words
from tablesim.engine.inputs import TableInput
from tablesim.engine.machine import Procedure, rule, step


class S(enum.Enum):
    IDLE = "idle"
    BETTING_OPEN = "betting_open"
    BETS_CLOSED = "bets_closed"
    SPINNING = "spinning"
    RESULT = "result"
    SETTLEMENT = "settlement"
    COMPLETE = "complete"
    VOID = "void"


BEFORE_SETTLEMENT = (S.BETTING_OPEN, S.BETS_CLOSED, S.SPINNING, S.RESULT)
#: states in which the sensor is armed and a spin report belongs to the round
AWAITING_SPIN = (S.BETS_CLOSED, S.SPINNING)


# --- The wheel's own table inputs (``tablesim/engine/inputs.py``): a player
# changes a bet while betting is open (Art. 2); the dealer calls "no spin"
# (Art. 4(4)).

@dataclass(frozen=True, slots=True)
class ChangeBet(TableInput):
    """Set ``player``'s bet on ``spot`` to ``amount``."""

    player: str
    spot: str
    amount: Decimal | str


@dataclass(frozen=True, slots=True)
class DeclareNoSpin(TableInput):
    """No spin (Art. 4(4)): ``reason`` the dealer's call, or why the table calls it."""

    reason: str = "dealer"


# --- The wheel's own table events: the spin, its revolutions, its result or
# no spin. They register themselves with the engine's records
# (``tablecore/records.py``) when the game is imported.

@table_event("spin_started")
@dataclass(frozen=True, slots=True)
class SpinStarted(TableRecord):
    direction: str


@table_event("revolution")
@dataclass(frozen=True, slots=True)
class Revolution(TableRecord):
    n: int


@table_event("stray_revolution")
@dataclass(frozen=True, slots=True)
class StrayRevolution(TableRecord):
    n: int
    round: str


@table_event("spin_result")
@dataclass(frozen=True, slots=True)
class SpinResult(TableRecord):
    segment: int
    symbol: str
    turns: Decimal
    direction: str
    #: how the turns were obtained (the driver's word; absent in journals written before it was kept)
    turns_source: str = OMITTED
    #: the bound of a measured count (absent: exact)
    turns_error: Decimal = OMITTED


@table_event("no_spin")
@dataclass(frozen=True, slots=True)
class NoSpin(TableRecord):
    reason: str
    turns: Decimal
    segment: int | None
    count: int
    turns_source: str = OMITTED
    turns_error: Decimal = OMITTED


# --- The wheel game's own words for the texts it makes (its refusals and
# incidents), in English from its catalog (``i18n/en.po``) and carrying their
# message ids, so a page shows them in its own language.

WORDS = Words(Path(__file__).resolve().parent / "i18n")


# --- the round: its steps and the rules of its actions

STEPS = (
    step("open_betting", (S.IDLE, S.COMPLETE, S.VOID), S.BETTING_OPEN, after="invite_bets"),
    # Art. 2: "no more bets"; the sensor is armed for the spin.
    step("close_betting", S.BETTING_OPEN, S.BETS_CLOSED, after="arm_sensor"),
    step("spin_started", S.BETS_CLOSED, S.SPINNING),
    # Art. 4(4): fewer than the minimum full turns: "no spin", bets stay, spin again.
    step("no_spin", AWAITING_SPIN, S.BETS_CLOSED, after="spin_again"),
    # Art. 4(3), 5: the spin counts; the segment at the indicator decides.
    step("spin_counted", AWAITING_SPIN, S.RESULT, after="announce_result"),
    # Art. 6: winning bets are paid by the pay table.
    step("settle", S.RESULT, S.SETTLEMENT, before="stop_sensor", after="settle_bets"),
    step("complete", S.SETTLEMENT, S.COMPLETE),
    # Before settlement: every bet returns.
    step("void", BEFORE_SETTLEMENT, S.VOID, before=("stop_sensor", "note_void_outcome", "announce_void")),
)

CLOSED = C("refusal.betting_closed")

RULES = (
    rule("open_round", "open betting", trigger="open_betting",
         refused=C("refusal.round_not_finished")),
    # Art. 3: a bet on one of the wheel's symbols, while betting is open (Art. 2).
    rule("place_bet", "bet", states=S.BETTING_OPEN, refused=CLOSED),
    rule("change_bet", "change", states=S.BETTING_OPEN, refused=CLOSED),
    rule("close_betting", "close betting", trigger="close_betting", refused=CLOSED),
    rule("declare_no_spin", "no spin", states=AWAITING_SPIN,
         refused=WORDS("wheel.refusal.no_spin_to_call_off")),
)

PROCEDURE = Procedure(S, S.IDLE, (S.COMPLETE, S.VOID), STEPS, RULES)
