"""The Fortune 3 Card Poker round, as states and a transition table."""

from __future__ import annotations

import enum

from tablesim.engine.machine import steps


class S(enum.Enum):
    IDLE = "idle"
    BETTING_OPEN = "betting_open"
    BETS_CLOSED = "bets_closed"
    DEALING = "dealing"
    DECISIONS = "decisions"
    DEALER_REVEAL = "dealer_reveal"
    SETTLEMENT = "settlement"
    COMPLETE = "complete"
    VOID = "void"


BEFORE_SETTLEMENT = (S.BETTING_OPEN, S.BETS_CLOSED, S.DEALING, S.DECISIONS, S.DEALER_REVEAL)

STEPS = steps(
    [
        ("open_betting", (S.IDLE, S.COMPLETE, S.VOID), S.BETTING_OPEN),
        ("close_betting", S.BETTING_OPEN, S.BETS_CLOSED),
        ("start_dealing", S.BETS_CLOSED, S.DEALING),
        ("hands_dealt", S.DEALING, S.DECISIONS),
        # Art. 11(3): the deal's last card went to a box with no bet; the
        # dealer declares it and the deal goes on for the card still due.
        ("card_set_aside", S.DECISIONS, S.DEALING),
        ("reveal", S.DECISIONS, S.DEALER_REVEAL),
        ("settle", S.DEALER_REVEAL, S.SETTLEMENT),
        ("complete", S.SETTLEMENT, S.COMPLETE),
        ("void", BEFORE_SETTLEMENT, S.VOID),
    ]
)
