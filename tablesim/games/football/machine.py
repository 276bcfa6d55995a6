"""The football card game's round, as states and a transition table.

Art. 6: the draw is made and shown first (the display's read-back must match
before anyone bets), then betting, then two cards to each box with bets,
left to right, the common box last whether or not it has bets; then the
third cards (Art. 10(1)), left to right, the common box last; settlement.
A round may be voided at any point before settlement.
"""

from __future__ import annotations

import enum

from tablesim.engine.machine import steps


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

STEPS = steps(
    [
        ("start_round", (S.IDLE, S.COMPLETE, S.VOID), S.DRAWING),
        ("draw_shown", S.DRAWING, S.BETTING_OPEN),
        ("close_betting", S.BETTING_OPEN, S.BETS_CLOSED),
        ("start_dealing", S.BETS_CLOSED, S.DEALING),
        ("third_cards", S.DEALING, S.THIRD_CARDS),
        ("settle", S.THIRD_CARDS, S.SETTLEMENT),
        ("complete", S.SETTLEMENT, S.COMPLETE),
        ("void", BEFORE_SETTLEMENT, S.VOID),
    ]
)
