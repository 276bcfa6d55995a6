"""Table settings of a Fortune 3 Card Poker table (not rules: how it is run)."""

from __future__ import annotations

from dataclasses import dataclass, field

from tablesim.engine.limits import Limit, Limits
from tablesim.core.money import parse_amount

BETS = ("ante", "pair_plus")


def default_limits() -> Limits:
    return Limits({b: Limit(parse_amount(1), parse_amount(10000)) for b in BETS})


@dataclass(frozen=True)
class Fortune3Settings:
    dealing: str = "shoe"
    limits: Limits = field(default_factory=default_limits)
