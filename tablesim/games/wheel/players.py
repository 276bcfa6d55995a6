"""Simulated players for the mock wheel table.

A few of a pool of regulars sit down each round; each bets chips on one to
three symbols, favouring the frequent low-paying ones, within the limits.
"""

from __future__ import annotations

import random
from decimal import Decimal

from tablesim.engine.limits import Limits
from tablesim.games.wheel.profile import WheelProfile

CHIPS = (Decimal(1), Decimal(2), Decimal(5), Decimal(10), Decimal(25))
NAMES = ("alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi")


def _chip(rng: random.Random, limits: Limits, spot: str) -> Decimal:
    choices = [c for c in CHIPS if limits.check(spot, c) is None]
    if not choices:
        return limits.by_bet[spot].minimum
    return rng.choice(choices)


def random_bets(rng: random.Random, profile: WheelProfile, limits: Limits) -> list[tuple[str, str, Decimal]]:
    """Bets for one round as (player, spot, amount)."""
    players = rng.sample(NAMES, rng.randint(1, 5))
    spots = profile.spots
    # The more segments a symbol has, the more often it is backed.
    weights = [s.segments + 2 for s in profile.symbols]
    bets = []
    for player in players:
        chosen: list[str] = []
        for _ in range(rng.randint(1, 3)):
            spot = rng.choices(spots, weights)[0]
            if spot not in chosen:
                chosen.append(spot)
        for spot in chosen:
            bets.append((player, spot, _chip(rng, limits, spot)))
    return bets
