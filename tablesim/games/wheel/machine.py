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

from tablecore.wording import CORE_WORDS as C
from tablesim.games.wheel.words import WORDS as W
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
         refused=W("wheel.refusal.no_spin_to_call_off")),
)

PROCEDURE = Procedure(S, S.IDLE, (S.COMPLETE, S.VOID), STEPS, RULES)
