"""Fixtures for the football card game tests: the profile, tables on mock devices."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from pathlib import Path
from typing import Callable

import pytest

from drivers.mock import MockShoe, ScriptedCards
from drivers.mock.display import DisplayFault, MockDisplay
from tablecore.cards import parse_dealt
from tablesim.games.football.draw import ScriptedDraw
from tablesim.games.football.machine import CARD_STATES
from tablesim.games.football.profile import FootballProfile, load_profile
from tablesim.games.football.profile import FootballSettings, default_limits
from tablesim.games.football.table import FootballTable
from tablesim.profiles import config_root

DEFAULT_PROFILE_TEXT = (config_root() / "rules" / "football-macau-2003.toml").read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def profile() -> FootballProfile:
    return load_profile()


@pytest.fixture
def profile_file(tmp_path: Path) -> Callable[..., Path]:
    """A copy of the default profile with exact text replacements (each must
    match once, so a changed default cannot turn a test into a no-op)."""
    counter = iter(range(1000))

    def make(replacements: dict[str, str] | None = None, *, append: str = "") -> Path:
        text = DEFAULT_PROFILE_TEXT
        for old, new in (replacements or {}).items():
            assert text.count(old) == 1, f"{old!r} is not in the default profile exactly once"
            text = text.replace(old, new)
        # a changed profile carries its own name (the loader refuses a built-in name with other rules)
        text = text.replace('name = "macau-2003"', 'name = "test-variant"')
        path = tmp_path / f"football-profile-{next(counter)}.toml"
        path.write_text(text + append, encoding="utf-8")
        return path

    return make


#: the rig's tables take stakes in cents and pay to the thousandth (12.5 on
#: upper wins 11.875), so the rule tests see commission unrounded
CENTS = replace(default_limits(), unit=Decimal("0.01"), payout_unit=Decimal("0.001"))


class Rig:
    """A football table on mock devices, with its event log."""

    def __init__(self, profile: FootballProfile, decks: int = 1) -> None:
        self.cards = ScriptedCards()
        self.shoe = MockShoe(self.cards)
        self.display = MockDisplay()
        self.draws = ScriptedDraw()
        self.table = FootballTable(
            profile, FootballSettings(decks=decks, limits=CENTS), display=self.display, shoe=self.shoe,
            draws=self.draws, mode="script", table_id="T",
        )
        self.events: list = []
        self.table.bus.subscribe(self.events.append)

    def kinds(self, kind: str) -> list[dict]:
        return [e.data for e in self.events if e.kind == kind]

    def open(self, draw: int, *, display_faults=(), shoe_faults=()) -> None:
        self.display.faults = [DisplayFault(*f) if isinstance(f, tuple) else f for f in display_faults]
        self.shoe.faults = list(shoe_faults)
        self.draws.next = draw
        self.table.open_round()
        self.table.await_draw()

    def bet(self, bets: dict) -> None:
        for box, per_box in bets.items():
            for bet, amount in per_box.items():
                self.table.place_bet(str(box), bet, amount)

    def deal(self, codes: str) -> None:
        """Feed the shoe and let the table take cards until it stops asking."""
        self.cards.feed(parse_dealt(c) for c in codes.split())
        self.table.pump(CARD_STATES)

    def round(self, draw: int, bets: dict, codes: str):
        self.open(draw)
        self.bet(bets)
        self.table.close_betting()
        self.table.poll()
        self.table.start_dealing()
        self.deal(codes)
        return self.table.result


@pytest.fixture
def rig(profile) -> Callable[..., Rig]:
    return lambda decks=1: Rig(profile, decks)

