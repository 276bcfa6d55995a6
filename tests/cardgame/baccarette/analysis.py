"""Baccarette's simulator and its exact figures (every way four cards can
come out of the shoe, counted without replacement)."""

from __future__ import annotations

import random
from decimal import Decimal
from fractions import Fraction

from drivers.mock import ShuffledShoe
from tablesim.games.rig import mock_device

from baccarette.game import load_profile, settings
from baccarette.table import BETS, PAYS, TIE_LOSES, BaccaretteTable, S

#: cards of each value (0 to 9) in one deck
PER_DECK = {0: 16, **{v: 4 for v in range(1, 10)}}


class Simulator:
    """One box on each bet, a unit each, every round."""

    def __init__(self, seed: str, profile: str | None = None, decks: int = 6) -> None:
        rng = random.Random(seed)
        rules = load_profile(profile)
        shoe = mock_device("shoe", source=ShuffledShoe(rng, decks, reshuffle_each_load=True))
        self.table = BaccaretteTable(rules, settings(rules, {"decks": decks}), shoe=shoe, table_id="BCT-SIM")

    def play_round(self) -> dict[str, tuple[Decimal, Decimal]]:
        t = self.table
        t.open_round()
        for bet in BETS:
            t.place_bet("1", bet, Decimal(1))
        t.close_betting()
        t.deal()
        t.pump((S.DEALING,))
        return {bet: (Decimal(1), t.result.results["1"][bet]) for bet in BETS}


def outcomes(decks: int) -> dict[str, Fraction]:
    """The chance of each winner from a full shoe of ``decks`` decks."""
    left = {v: n * decks for v, n in PER_DECK.items()}
    total = 52 * decks
    chance = {"player": Fraction(0), "banker": Fraction(0), "tie": Fraction(0)}

    def draw(depth: int, p: Fraction, cards: tuple[int, ...], remaining: int) -> None:
        if depth == 4:  # player, banker, player, banker
            player, banker = (cards[0] + cards[2]) % 10, (cards[1] + cards[3]) % 10
            chance["tie" if player == banker else "player" if player > banker else "banker"] += p
            return
        for v, n in left.items():
            if n:
                left[v] -= 1
                draw(depth + 1, p * Fraction(n, remaining), cards + (v,), remaining - 1)
                left[v] += 1

    draw(0, Fraction(1), (), total)
    return chance


def analyze(profile: str | None = None, decks: int = 6) -> dict:
    chance = outcomes(decks)
    bets = {}
    for bet in BETS:
        win = chance[bet] * Fraction(PAYS[bet])
        lose = Fraction(0) if bet == "tie" else chance["tie"] * Fraction(TIE_LOSES)
        value = win - lose - (1 - chance[bet] - (0 if bet == "tie" else chance["tie"]))
        bets[bet] = {"return": float(value), "exact": str(value)}
    return {"game": "baccarette", "decks": decks, "bets": bets,
            "chance": {k: float(v) for k, v in chance.items()}}


def simulation_exact(profile: str | None = None, decks: int = 6) -> dict:
    return {bet: {"return": info["return"], "basis": "a unit on the bet"}
            for bet, info in analyze(profile, decks)["bets"].items()}
