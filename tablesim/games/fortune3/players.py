"""Simulated players for the mock table and simulations.

They sit at a few boxes, bet chips within the table limits, and decide by
the profile's strategy (Q-6-4 by default), which is the optimal play.
"""

from __future__ import annotations

import random
from decimal import Decimal

from tablesim.engine.limits import Limits
from tablesim.games.fortune3.hands import Evaluator, Hand
from tablesim.games.fortune3.profile import Fortune3Profile
from tablesim.games.fortune3.settle import plays_by_strategy

CHIPS = (Decimal(5), Decimal(10), Decimal(25), Decimal(100))


def _chip(rng: random.Random, limits: Limits, bet: str) -> Decimal:
    choices = [c for c in CHIPS if limits.check(bet, c) is None]
    if not choices:
        limit = limits.by_bet[bet]
        return limit.minimum
    return rng.choice(choices)


def random_bets(
    rng: random.Random, profile: Fortune3Profile, limits: Limits, *, all_boxes: bool = False
) -> list[tuple[str, str, Decimal]]:
    """Bets for one round: Ante on most boxes, Pair Plus on about half."""
    count = profile.boxes if all_boxes else rng.randint(1, min(4, profile.boxes))
    boxes = sorted(rng.sample(range(1, profile.boxes + 1), count))
    bets = []
    for box in boxes:
        kind = rng.random()
        if kind < 0.85 or all_boxes:
            bets.append((str(box), "ante", _chip(rng, limits, "ante")))
        if kind >= 0.5 or all_boxes:
            bets.append((str(box), "pair_plus", _chip(rng, limits, "pair_plus")))
    return bets


def decide(profile: Fortune3Profile, evaluator: Evaluator, hand: Hand, has_pair_plus: bool) -> str:
    if plays_by_strategy(profile, evaluator, hand):
        return "play"
    if has_pair_plus and profile.fold_with_pair_plus == "forbid":
        return "play"
    return "fold"
