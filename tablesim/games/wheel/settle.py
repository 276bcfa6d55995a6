"""Wheel of Fortune rules as pure functions: which spin counts, what it pays.

No state, no I/O: the table calls these, the analysis and the tests call
them directly.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Iterable

from tablesim.games.wheel.profile import WheelProfile

#: why a spin is not counted (the sensor's INV reasons, plus the table's own)
NO_SPIN_REASONS = ("few_turns", "peg", "reversed", "early_motion", "timeout")


def full_turns(turns: float) -> int:
    """Full revolutions in a measured turn count (2.75 turns is 2 full turns)."""
    return math.floor(turns)


def spin_counts(profile: WheelProfile, turns: float) -> bool:
    """Art. 4(3): the spin is valid only with at least ``min_turns`` full turns."""
    return full_turns(turns) >= profile.min_turns


def symbol_at(layout: tuple[str, ...], segment: int) -> str:
    """Art. 5: the segment at the indicator decides; the layout names its symbol."""
    if not 0 <= segment < len(layout):
        raise ValueError(f"segment {segment} is outside 0..{len(layout) - 1}")
    return layout[segment]


def settle_bet(profile: WheelProfile, spot: str, stake: Decimal, symbol: str) -> Decimal:
    """A bet's net: stake x pays when its spot is the winning symbol, else -stake (Art. 6)."""
    if spot == symbol:
        return stake * profile.pays(spot)
    return -stake


def settle(
    profile: WheelProfile, bets: Iterable[tuple[str, str, Decimal]], symbol: str
) -> dict[str, dict[str, Decimal]]:
    """Every player's net per spot for ``(player, spot, stake)`` bets."""
    results: dict[str, dict[str, Decimal]] = {}
    for player, spot, stake in bets:
        per = results.setdefault(player, {})
        per[spot] = per.get(spot, Decimal(0)) + settle_bet(profile, spot, stake, symbol)
    return results
