"""Wheel of Fortune rules as pure functions: which spin counts, what it pays.

No state, no I/O: the table calls these, the analysis and the tests call
them directly.
"""

from __future__ import annotations

from decimal import ROUND_FLOOR, Decimal
from typing import Iterable

from tablecore.money import ZERO, add, multiply
from tablesim.games.wheel.profile import WheelProfile

#: why a spin is not counted (the sensor's INV reasons, plus the table's own)
NO_SPIN_REASONS = ("few_turns", "peg", "reversed", "early_motion", "timeout")


def full_turns(turns: Decimal | int) -> int:
    """Full revolutions in a measured turn count (2.75 turns is 2 full turns).

    The count is exact (the sensor's whole revolutions or a Decimal), never
    a float: 2.9999999999999999999 turns is two full turns, not three."""
    if isinstance(turns, float):
        raise TypeError("a turn count is exact: pass an int or a Decimal, not a float")
    return int(Decimal(turns).to_integral_value(rounding=ROUND_FLOOR))


def exact_count(turns: object) -> Decimal | None:
    """A sensor's turn count as an exact, finite, non-negative Decimal, or
    None when it is not one (a driver that reports a float is read by the
    float's shortest repr; NaN, infinities and negatives are impossible)."""
    if isinstance(turns, bool):
        return None
    if isinstance(turns, float):
        turns = repr(turns)
    try:
        value = Decimal(turns) if isinstance(turns, (int, str, Decimal)) else None
    except ArithmeticError:
        return None
    if value is None or not value.is_finite() or value < 0 or value > 10**6:
        return None
    return value


def spin_counts(profile: WheelProfile, turns: Decimal | int) -> bool:
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
        return multiply(stake, profile.pays(spot))
    return -stake


def settle(
    profile: WheelProfile, bets: Iterable[tuple[str, str, Decimal]], symbol: str
) -> dict[str, dict[str, Decimal]]:
    """Every player's net per spot for ``(player, spot, stake)`` bets."""
    results: dict[str, dict[str, Decimal]] = {}
    for player, spot, stake in bets:
        per = results.setdefault(player, {})
        per[spot] = add(per.get(spot, ZERO), settle_bet(profile, spot, stake, symbol))
    return results
