"""The console adapter of a table's game (its spec's ``console`` part; the
base class and the actions are in :mod:`tablesim.games.console`)."""

from __future__ import annotations

from tablesim.games import registry
from tablesim.games.console import HIDDEN, Action, GameAdapter
from tablesim.games.rig import MockRig


def adapter_for(table, rig: MockRig | None = None) -> GameAdapter:
    return registry.spec(table.game).part("console")(table, rig)


__all__ = ["HIDDEN", "Action", "GameAdapter", "adapter_for"]
