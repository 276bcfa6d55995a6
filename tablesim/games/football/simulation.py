"""The football card game under simulation: all 11 boxes, every bet.

Each of boxes 1-10 and the common box stakes one unit on upper, lower, odd,
even and middle. The draw is seeded (simulation mode); the shoe follows
Art. 8: one deck is replaced by a fresh shuffled deck when it could run
short, several decks sit in a continuous shuffler that takes each round's
cards back. Either way each box's cards are a uniformly random draw from a
full pack, which is what the exact figures assume.
"""

from __future__ import annotations

import random
from decimal import Decimal

from tablecore.errors import IllegalAction
from tablesim.games.dealer import Players
from tablesim.games.football import dealer
from tablesim.games.football.analysis import analyze
from tablesim.games.football.draw import SeededDraw
from tablesim.games.football.profile import BETS, COMMON, FootballSettings, load_profile
from tablesim.games.football.table import FootballTable
from tablesim.games.rig import mock_device

ONE = Decimal(1)


class EveryBet(Players):
    """A unit on every bet of every box."""

    def __init__(self, boxes: list[str]) -> None:
        self.stakes = tuple((box, bet, ONE) for box in boxes for bet in BETS)

    def bets(self, table: FootballTable):
        return self.stakes

    def refused(self, action: str, position: str, what: str, exc: IllegalAction) -> None:
        raise exc


class FootballSimulator:
    def __init__(self, seed: str, profile: str | None = None, decks: int | None = None) -> None:
        self.rng = random.Random(seed)
        self.profile = load_profile(profile)
        self.settings = FootballSettings(decks=decks or 1)
        n = self.settings.decks
        shoe = mock_device("shoe", rng=self.rng, decks=n)  # one deck: fresh at each load; several: taken back
        self.source = shoe.source
        self.table = FootballTable(
            self.profile, self.settings, display=mock_device("display"), shoe=shoe,
            draws=SeededDraw(self.rng), mode="mock", table_id="FB-SIM",
        )
        self.boxes = [str(b) for b in range(1, self.profile.boxes + 1)] + [COMMON]
        self.players = EveryBet(self.boxes)

    def play_round(self) -> dict[str, tuple[Decimal, Decimal]] | None:
        t = self.table
        dealer.play_round(t, self.players)
        if self.settings.decks > 1:
            self.source.return_cards(t.round_cards)
        if t.result is None or t.result.status != "settled":
            return None
        stake = Decimal(len(self.boxes))
        return {
            bet: (stake, sum((t.result.results[box][bet] for box in self.boxes), Decimal(0))) for bet in BETS
        }


def simulator(seed: str, profile: str | None = None, decks: int | None = None) -> FootballSimulator:
    return FootballSimulator(seed, profile, decks)


def simulation_exact(profile: str | None = None, decks: int | None = None) -> dict[str, dict]:
    data = analyze(profile=profile, decks=decks or 1)
    basis = f"a unit per box, {data['decks']} deck(s), averaged over the eight draws"
    return {bet: {"return": info["return"]["value"], "basis": basis} for bet, info in data["bets"].items()}
