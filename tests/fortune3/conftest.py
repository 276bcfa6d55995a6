"""Fixtures for the Fortune 3 Card Poker tests: profiles, tables on mock devices."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest

from drivers.mock import MockFault, MockShoe, MockShuffler, ScriptedCards
from tablecore.cards import parse_dealt
from tablesim.games.fortune3.profile import Fortune3Profile, load_profile
from tablesim.games.fortune3.profile import Fortune3Settings
from tablesim.games.fortune3.table import Fortune3Table
from tablesim.profiles import config_root

DEFAULT_PROFILE_TEXT = (config_root() / "rules" / "fortune3-macau-2008.toml").read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def profile() -> Fortune3Profile:
    return load_profile()


@pytest.fixture
def profile_file(tmp_path: Path) -> Callable[..., Path]:
    """Write a copy of the default profile with text replacements; returns its path.

    Each replacement must match the default text exactly once, so a change to
    the default profile cannot silently turn a test into a no-op.
    """
    counter = iter(range(1000))

    def make(replacements: dict[str, str] | None = None, *, append: str = "", name: str | None = None) -> Path:
        text = DEFAULT_PROFILE_TEXT
        for old, new in (replacements or {}).items():
            assert text.count(old) == 1, f"{old!r} is not in the default profile exactly once"
            text = text.replace(old, new)
        # a changed profile carries its own name (the loader refuses a built-in name with other rules)
        text = text.replace('name = "macau-2008"', 'name = "test-variant"')
        path = tmp_path / (name or f"f3-profile-{next(counter)}.toml")
        path.write_text(text + append, encoding="utf-8")
        return path

    return make


class Rig:
    """A Fortune3Table on a mock shoe or shuffler fed from a card list."""

    def __init__(self, table: Fortune3Table, device, source: ScriptedCards) -> None:
        self.table = table
        self.device = device
        self.source = source
        self.events: list = []
        table.bus.subscribe(self.events.append)

    def feed(self, codes: str | list[str]) -> None:
        if isinstance(codes, str):
            codes = codes.split()
        self.source.feed(parse_dealt(c) for c in codes)

    def kinds(self, kind: str) -> list[dict]:
        return [e.data for e in self.events if e.kind == kind]

    def snapshot(self) -> dict:
        """Everything a refused action must leave untouched."""
        t = self.table
        return {
            "state": t.state,
            "round_id": t.round_id,
            "round_no": t.round_no,
            "incident": t.incident,
            "paused": t.paused,
            "bets": t.book.snapshot(),
            "cards": {who: [d.code for d in cs] for who, cs in t.cards.items()},
            "set_aside": [d.code for d in t.set_aside],
            "targets": list(t.targets),
            "decisions": dict(t.decisions),
            "hands": dict(t.hands),
            "result": None if t.result is None else (t.result.status, t.result.void_reason, t.result.as_json()),
            "events": t.bus.seq,
            "cards_left": self.source.remaining(),
            "queue": list(getattr(self.device, "queue", [])),
        }

    def bet(self, bets: dict) -> None:
        for box, per_box in bets.items():
            for name, amount in per_box.items():
                self.table.place_bet(str(box), name, amount)

    def deal(self) -> None:
        """Close betting and deal as far as the devices allow."""
        from tablesim.games.fortune3.machine import S

        self.table.close_betting()
        if self.table.state is S.BETS_CLOSED:
            self.table.start_dealing()
            self.table.pump((S.DEALING,))

    def finish(self, decisions: dict | None = None) -> None:
        """Every box still to decide plays (or as ``decisions`` says)."""
        from tablesim.games.fortune3.machine import S

        if self.table.state is S.DECISIONS:
            for box in self.table.pending_decisions():
                self.table.decide(box, (decisions or {}).get(box, "play"))


@pytest.fixture
def rig(profile) -> Callable[..., Rig]:
    def make(
        dealing: str = "shoe",
        cards: str | list[str] = "",
        *,
        faults: list[MockFault] | tuple = (),
        profile_: Fortune3Profile | None = None,
        table_id: str = "T",
        **options,
    ) -> Rig:
        source = ScriptedCards()
        settings = Fortune3Settings(dealing=dealing, **options)
        prof = profile_ or profile
        if dealing == "shoe":
            device = MockShoe(source, faults)
            table = Fortune3Table(prof, settings, shoe=device, table_id=table_id)
        else:
            device = MockShuffler(source, faults)
            table = Fortune3Table(prof, settings, shuffler=device, table_id=table_id)
        r = Rig(table, device, source)
        if cards:
            r.feed(cards)
        return r

    return make
