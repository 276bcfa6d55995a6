"""Mock tables for ``tablesim serve --mock``: the game's table on mock
devices, and what stands in for the dealer's hands (the game's
:class:`~tablesim.games.rig.MockRig`).

The mock shoe hands out a card each time it is asked while armed, the mock
shuffler a hand, the mock display reads back what it is shown, and a mock
indicator sensor reports a spin each time it is armed. The server's pump
asks them at a realistic pace, and only when the game's console adapter
says the dealer's hands may act (e.g. once the dealer pressed "spin"), so
the console shows a round as it happens at a table.
"""

from __future__ import annotations

from typing import Any

from tablesim.games.rig import MockRig, mock_rig


def build_mock(game: str, *, seed: int | None = None, profile: str | None = None, **options: Any) -> MockRig:
    """``options``: the game's options as given (``dealing=``, ``decks=``; None: not given)."""
    return mock_rig(game, seed=seed, profile=profile, options=options)


__all__ = ["MockRig", "build_mock"]
