"""What ``tablesim bench`` times of Fortune 3 Card Poker besides its rounds:
hand evaluation, cached and raw (the harness does the timing)."""

from __future__ import annotations

import random
from typing import Callable

from tablesim.core.cards import DECK
from tablesim.games.fortune3.hands import Evaluator, classify
from tablesim.games.fortune3.profile import load_profile


def hands() -> dict[str, tuple[Callable[[], object], int]]:
    """measure -> (one call, batch size)."""
    evaluator = Evaluator(load_profile().ranking)
    rng = random.Random(1)
    dealt = [tuple(rng.sample(DECK, 3)) for _ in range(5000)]
    it = iter(range(10**12))

    def one_cached() -> None:
        evaluator.evaluate(dealt[next(it) % 5000])

    def one_raw() -> None:
        classify(dealt[next(it) % 5000])

    return {"evaluate_per_second": (one_cached, 5000), "classify_per_second": (one_raw, 5000)}
