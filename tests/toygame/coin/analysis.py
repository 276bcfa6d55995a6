"""The coin game's simulator and its exact figures."""

from __future__ import annotations

import random
from decimal import Decimal
from fractions import Fraction

from coin.game import load_profile, settings
from coin.table import BOXES, PAYS, SIDES, CoinTable


class Simulator:
    """Every box backs both sides with a unit, every round."""

    def __init__(self, seed: str, profile: str | None = None) -> None:
        self.rng = random.Random(seed)
        rules = load_profile(profile)
        self.table = CoinTable(rules, settings(rules, {}), table_id="COIN-SIM")

    def play_round(self) -> dict[str, tuple[Decimal, Decimal]]:
        t = self.table
        t.open_round()
        for box in BOXES:
            for side in SIDES:
                t.place_bet(box, side, Decimal(1))
        t.close_betting()
        t.toss(self.rng.choice(SIDES))
        return {side: (Decimal(len(BOXES)), sum((t.result.results[b][side] for b in BOXES), Decimal(0)))
                for side in SIDES}


def analyze(profile: str | None = None) -> dict:
    value = Fraction(1, 2) * Fraction(PAYS) - Fraction(1, 2)
    return {"game": "coin", "bets": {side: {"return": float(value), "exact": str(value)} for side in SIDES}}


def simulation_exact(profile: str | None = None) -> dict:
    return {side: {"return": info["return"], "basis": "a unit on the side"}
            for side, info in analyze(profile)["bets"].items()}
