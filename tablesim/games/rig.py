"""A game's table on mock devices, and what stands in for the dealer's hands.

``tablesim run --mock`` and ``tablesim serve --mock`` build the same rig
(:func:`mock_rig`): the game's ``mock`` part returns its :class:`MockRig`
(a subclass when the game needs more, e.g. the wheel's "spin" button). The
rig's random generator is the one the mock devices draw from, and the
simulated players too, so a seed replays a whole session.
"""

from __future__ import annotations

import random
import secrets
from dataclasses import dataclass, field
from typing import Any, ClassVar

from drivers.base import Device
from drivers.registry import open_device
from tablesim.games import registry


@dataclass
class MockRig:
    table: Any
    seed: int
    rng: random.Random
    source: Any = None  # the mock shoe's or shuffler's pack, if the game deals cards
    notes: list[str] = field(default_factory=list)
    #: how the session's banner names the devices
    devices: ClassVar[str] = "mock devices"

    @property
    def game(self) -> str:
        return self.table.game

    def after_recovery(self) -> None:
        """A recovered round goes on with the cards still in the mock shoe:
        take out those the journal says are out of it this round."""
        if self.source is not None:
            self.source.exclude(self.table.cards_out())

    def round_over(self) -> None:
        """Between rounds (e.g. a continuous shuffler takes the used cards back)."""


def mock_device(kind: str, **settings: Any) -> Device:
    """A mock ``kind`` device, built by the device registry (its ``mock``
    backend): the one way a game's mock table, scripted session or
    simulator gets one. ``settings`` as the registry takes them, with the
    objects no file holds: ``rng`` (the generator it draws from), ``source``
    (the pack or the spins it deals from), ``faults``."""
    return open_device(kind, "mock", settings, open=False)


def mock_rig(game: str, *, seed: int | None = None, profile: str | None = None,
             options: dict[str, Any] | None = None) -> MockRig:
    """``game``'s table on mock devices; ``options`` as given on the command
    line (checked here: one line naming an option the game does not take)."""
    spec = registry.spec(game)
    given = registry.check_options(game, dict(options or {}))
    seeded = seed is not None
    seed = seed if seed is not None else secrets.randbelow(2**32)
    return spec.part("mock")(spec.cli_options(given), profile=profile, seed=seed, seeded=seeded)
