"""Simulated players for the mock table: they see the draw, then bet.

A few seats are taken each round; some players also bet on the common box
(Art. 5(2)). Each box gets one to three of the five bets, in chips within
the table limits. No bet has a strategy that matters: every bet's return is
fixed by the rules (see ``tablesim analyze football``).
"""

from __future__ import annotations

import random
from decimal import Decimal

from tablesim.engine.limits import Limits
from tablesim.games.football.profile import BETS, COMMON, FootballProfile

CHIPS = (Decimal(1), Decimal(5), Decimal(10), Decimal(25), Decimal(100))


def _chip(rng: random.Random, limits: Limits, bet: str) -> Decimal:
    choices = [c for c in CHIPS if limits.check(bet, c) is None]
    return rng.choice(choices) if choices else limits.by_bet[bet].minimum


def random_bets(rng: random.Random, profile: FootballProfile, limits: Limits) -> list[tuple[str, str, Decimal]]:
    """Bets for one round, boxes left to right: (box, bet, amount)."""
    seats = rng.randint(1, min(5, profile.boxes))
    boxes = [str(b) for b in sorted(rng.sample(range(1, profile.boxes + 1), seats))]
    if rng.random() < 0.5:
        boxes.append(COMMON)
    bets = []
    for box in boxes:
        for bet in rng.sample(BETS, rng.randint(1, 3)):
            bets.append((box, bet, _chip(rng, limits, bet)))
    return bets
