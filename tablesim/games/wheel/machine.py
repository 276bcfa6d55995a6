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

from tablesim.engine.machine import steps


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

STEPS = steps(
    [
        ("open_betting", (S.IDLE, S.COMPLETE, S.VOID), S.BETTING_OPEN),
        ("close_betting", S.BETTING_OPEN, S.BETS_CLOSED),
        ("spin_started", S.BETS_CLOSED, S.SPINNING),
        ("no_spin", AWAITING_SPIN, S.BETS_CLOSED),
        ("spin_counted", AWAITING_SPIN, S.RESULT),
        ("settle", S.RESULT, S.SETTLEMENT),
        ("complete", S.SETTLEMENT, S.COMPLETE),
        ("void", BEFORE_SETTLEMENT, S.VOID),
    ]
)
