"""Table settings of a football card game table (not rules: how it is run)."""

from __future__ import annotations

from dataclasses import dataclass, field

from tablesim.engine.limits import Limit, Limits
from tablesim.games.football.profile import BETS
from tablecore.money import parse_amount
from tablesim.games.football.spec import DECKS

MIN_DECKS, MAX_DECKS = DECKS.lo, DECKS.hi


def default_limits() -> Limits:
    return Limits({b: Limit(parse_amount(1), parse_amount(10000)) for b in BETS})


@dataclass(frozen=True)
class FootballSettings:
    decks: int = 1
    limits: Limits = field(default_factory=default_limits)

    def __post_init__(self) -> None:
        if not MIN_DECKS <= self.decks <= MAX_DECKS:
            raise ValueError(f"decks must be {MIN_DECKS}-{MAX_DECKS}, not {self.decks}")
