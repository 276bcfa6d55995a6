"""Table settings of a Fortune 3 Card Poker table (not rules: how it is run)."""

from __future__ import annotations

from dataclasses import dataclass, field

from tablesim.engine.limits import Limit, Limits
from tablecore.money import parse_amount

BETS = ("ante", "pair_plus")
#: who voids a round by a misdeal once a card is out (Art. 11(1)): the
#: dealer's call confirmed by a supervisor (an incident), or the dealer alone
MISDEAL_CONFIRMATION = ("supervisor", "dealer")


def default_limits() -> Limits:
    return Limits({b: Limit(parse_amount(1), parse_amount(10000)) for b in BETS})


@dataclass(frozen=True)
class Fortune3Settings:
    dealing: str = "shoe"
    limits: Limits = field(default_factory=default_limits)
    misdeal_confirmation: str = "supervisor"
    #: hold a dealt round before the dealer's reveal even when no decision is
    #: pending, so a misdeal or a stray last card can still be called
    reveal_by_dealer: bool = False
