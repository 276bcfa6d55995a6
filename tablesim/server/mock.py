"""Mock tables for ``tablesim serve --mock``: the game's table on mock
devices, and what stands in for the dealer's hands.

The mock shoe hands out a card each time it is asked while armed, the mock
shuffler a hand, the mock display reads back what it is shown, and the
mock wheel sensor reports a spin each time it is armed. The server's pump
asks them at a realistic pace, and (for the wheel) only once the dealer
pressed "spin", so the console shows a round as it happens at a table.
"""

from __future__ import annotations

import random
import secrets
from dataclasses import dataclass, field
from typing import Any

from tablesim.engine.runopts import RunOptions
from tablesim.engine.table import GameTable
from tablesim.core.errors import InputError


@dataclass
class MockRig:
    """A mock table and the mock dealer's state."""

    game: str
    table: GameTable
    seed: int
    source: Any = None  # the card source of a shoe or shuffler
    decks: int = 1
    spin_requested: bool = False  # wheel: the dealer pressed "spin"
    notes: list[str] = field(default_factory=list)

    def after_recovery(self) -> None:
        """A recovered round goes on with the cards still in the (mock) shoe."""
        table = self.table
        if self.source is None:
            return
        if self.game == "fortune3":
            self.source.exclude(getattr(table, "seen", ()))
        elif self.game == "football":
            self.source.exclude(getattr(table, "round_cards", ()))

    def round_over(self) -> None:
        """Between rounds: a continuous shuffler takes the used cards back (football, Art. 8(2))."""
        if self.game == "football" and self.decks > 1 and self.source is not None:
            self.source.return_cards(getattr(self.table, "round_cards", ()))


def build_mock(
    game: str,
    *,
    seed: int | None = None,
    profile: str | None = None,
    dealing: str | None = None,
    decks: int | None = None,
) -> MockRig:
    if dealing and game != "fortune3":
        raise InputError(f"--dealing applies to fortune3, not {game}")
    if decks and game != "football":
        raise InputError(f"--decks applies to football, not {game}")
    seeded = seed is not None
    seed = seed if seeded else secrets.randbelow(2**32)
    rng = random.Random(seed)
    options = RunOptions(game, seed=seed, profile=profile, dealing=dealing, decks=decks)
    if game == "fortune3":
        from tablesim.games.fortune3.mockrun import build_table

        table = build_table(options, rng)
        return MockRig(game, table, seed, source=table.devices[0].source)
    if game == "wheel":
        from tablesim.games.wheel.mockrun import build_table as build_wheel

        return MockRig(game, build_wheel(options, rng), seed)
    if game == "football":
        from drivers.mock import MockShoe, ShuffledShoe
        from drivers.mock.display import MockDisplay
        from tablesim.games.football.draw import SecureDraw, SeededDraw
        from tablesim.games.football.profile import load_profile
        from tablesim.games.football.settings import FootballSettings
        from tablesim.games.football.table import FootballTable

        settings = FootballSettings(decks=decks or 1)
        n = settings.decks
        source = ShuffledShoe(rng, n, reshuffle_each_load=n == 1, exposed_rate=0.01)
        draws = SeededDraw(rng) if seeded else SecureDraw()
        table = FootballTable(
            load_profile(profile), settings, display=MockDisplay(), shoe=MockShoe(source),
            draws=draws, mode="mock", table_id="FB-MOCK",
        )
        return MockRig(game, table, seed, source=source, decks=n)
    raise InputError(f"unknown game {game!r}")
