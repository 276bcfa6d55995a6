"""Wheel of Fortune under simulation: ten players, every symbol covered.

Players p1..p10 each stake one unit on a symbol, the symbols taken in turn,
so every symbol carries at least one bet each round. Spins come from the
mock sensor's seeded generator (no-spins included: they are re-spun, as at
the table); each valid spin's segment is uniform over the 52 segments,
which is what the exact figures assume.
"""

from __future__ import annotations

import random
from decimal import Decimal

from tablecore.errors import IllegalAction
from tablesim.games.dealer import Players
from tablesim.games.gamespec import IntakeSetup
from tablesim.games.rig import mock_device
from tablesim.games.wheel import dealer
from tablesim.games.wheel.analysis import symbol_figures
from tablesim.games.wheel.profile import load_profile, WheelSettings
from tablesim.games.wheel.table import WheelTable


ONE = Decimal(1)
PLAYERS = 10


class Seats(Players):
    """Each player a unit on their symbol."""

    def __init__(self, seats: list[tuple[str, str]]) -> None:
        self.stakes = tuple((player, spot, ONE) for player, spot in seats)

    def bets(self, table: WheelTable):
        return self.stakes

    def refused(self, action: str, position: str, what: str, exc: IllegalAction) -> None:
        raise exc


class WheelSimulator:
    def __init__(self, seed: str, profile: str | None = None) -> None:
        self.rng = random.Random(seed)
        self.profile = load_profile(profile)
        sensor = mock_device("wheel", rng=self.rng, segments=self.profile.segments)
        self.table = WheelTable(self.profile, WheelSettings.for_profile(self.profile), sensor=sensor, table_id="WHEEL-SIM")
        spots = self.profile.spots
        self.seats = [(f"p{i + 1}", spots[i % len(spots)]) for i in range(PLAYERS)]
        self.players = Seats(self.seats)

    def play_round(self) -> dict[str, tuple[Decimal, Decimal]] | None:
        t = self.table
        dealer.play_round(t, self.players)
        if t.result is None or t.result.status != "settled":
            return None
        out: dict[str, tuple[Decimal, Decimal]] = {}
        for player, spot in self.seats:
            stake, net = out.get(spot, (Decimal(0), Decimal(0)))
            out[spot] = (stake + ONE, net + t.result.results[player][spot])
        return out


def simulator(seed: str, profile: str | None = None) -> WheelSimulator:
    return WheelSimulator(seed, profile)


def simulation_exact(profile: str | None = None) -> dict[str, dict]:
    figures = symbol_figures(load_profile(profile))
    return {s: {"return": float(f["expected_return"]), "basis": "a unit on the symbol"} for s, f in figures.items()}


# --- How ``tablesim bench`` takes bets at a served Wheel of Fortune table: a
# table with no boxes, so any number of players bet on the symbols.

INTAKE = IntakeSetup(
    bets=("1", "3", "5", "10", "20", "joker", "logo"),
    position_prefix="player",
    table="wheel, one bet per player, each bet with a ref",
    finish="spin",
)
