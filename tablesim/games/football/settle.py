"""Settlement of the football card game (Art. 4, 10(2), 11, 12): pure and exact.

Each bet is decided by the box's final total and the draw:

- final total a middle number (only after a third card): each bet does what
  the profile's ``on_middle`` says (by default middle wins, odd and even
  lose, upper and lower are returned);
- otherwise: middle loses; upper (lower) wins if the total is in the draw's
  upper (lower) set; odd and even win on their numbers; anything else loses.

A win pays stake x pay, less the profile's commission on that bet (Art. 12:
5% of upper and lower winnings, so a win of 10 pays 9.5). Amounts are
Decimals computed in a context that traps any rounding, so a result is
exact or the settlement refuses.

When a win less commission is not a whole number of the table's payout
unit, the profile's ``commission.rounding`` decides: ``player`` (the
regulation's profile) rounds the commission down to the unit, so the house
takes at most the article's 5% and the player is paid at least the exact
win; ``house`` rounds the payout down to the unit (the house keeps the
difference); ``exact`` pays it exactly. The amount either rounding moved is
returned alongside, so the round's result shows and records it. Without a
payout unit (``None``) nothing is rounded: the exact analysis and the tests
of the pure rule use that.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Mapping

from tablesim.games.football.profile import Draw, FootballProfile
from tablecore.money import ZERO, add, floor_to, fmt, multiply, subtract


def bet_outcome(profile: FootballProfile, draw: Draw, bet: str, total: int) -> str:
    """``win``, ``lose`` or ``push`` for ``bet`` on a box whose final total is ``total``."""
    if total in profile.middle:
        return profile.on_middle[bet]
    if bet == "upper":
        wins = total in draw.upper
    elif bet == "lower":
        wins = total in draw.lower
    elif bet == "odd":
        wins = total in profile.odd
    elif bet == "even":
        wins = total in profile.even
    elif bet == "middle":
        wins = False
    else:
        raise ValueError(f"unknown bet {bet!r}")
    return "win" if wins else "lose"


def win_amount(profile: FootballProfile, bet: str, stake: Decimal) -> Decimal:
    """What a winning ``stake`` on ``bet`` wins: stake x pay, less commission (exact)."""
    gross = multiply(stake, profile.pays[bet])
    rate = profile.commission.get(bet)
    return subtract(gross, multiply(gross, rate)) if rate else gross


def paid_win(profile: FootballProfile, bet: str, stake: Decimal, payout_unit: Decimal | None) -> tuple[Decimal, Decimal]:
    """What a winning ``stake`` is paid, and what the rounding moved off the
    exact win to reach a whole payout unit (zero when nothing was): with
    ``player`` the commission the house forgoes, with ``house`` the part of
    the win the house keeps."""
    win = win_amount(profile, bet, stake)
    if payout_unit is None or profile.commission_rounding == "exact" or bet not in profile.commission:
        return win, ZERO
    if profile.commission_rounding == "house":
        return floor_to(win, payout_unit)
    gross = multiply(stake, profile.pays[bet])
    taken, forgone = floor_to(multiply(gross, profile.commission[bet]), payout_unit)
    return subtract(gross, taken), forgone


def bet_settlement(
    profile: FootballProfile, draw: Draw, bet: str, stake: Decimal, total: int, payout_unit: Decimal | None = None
) -> tuple[Decimal, Decimal]:
    """The player's net on one bet (the win, stake not included, -stake, or
    0) and the amount the commission rule rounded off that win."""
    outcome = bet_outcome(profile, draw, bet, total)
    if outcome == "win":
        return paid_win(profile, bet, stake, payout_unit)
    if outcome == "lose":
        return -stake, ZERO
    return ZERO, ZERO


def bet_result(
    profile: FootballProfile, draw: Draw, bet: str, stake: Decimal, total: int, payout_unit: Decimal | None = None
) -> Decimal:
    """The player's net on one bet: the win (stake not included), -stake, or 0."""
    return bet_settlement(profile, draw, bet, stake, total, payout_unit)[0]


def settle_box(
    profile: FootballProfile, draw: Draw, bets: Mapping[str, Decimal], total: int,
    payout_unit: Decimal | None = None, rounded_off: dict[str, Decimal] | None = None,
) -> dict[str, Decimal]:
    """Each bet's net result on one box, in the order the bets were placed.
    What the commission rule rounded off a win goes into ``rounded_off``
    (bet -> amount, only where it is more than zero)."""
    out = {}
    for bet, stake in bets.items():
        out[bet], cut = bet_settlement(profile, draw, bet, stake, total, payout_unit)
        if cut and rounded_off is not None:
            rounded_off[bet] = cut
    return out


def settle_round(
    profile: FootballProfile, draw: Draw, stakes: Mapping[str, Mapping[str, Mapping[str, Decimal]]],
    totals: Mapping[str, int], payout_unit: Decimal | None,
) -> tuple[dict[str, dict[str, Decimal]], dict[str, dict[str, dict[str, Decimal]]], dict[str, dict[str, str]]]:
    """Settle every player's bets (``stakes``: position -> player -> bet ->
    stake). Each player is paid on their own stake (the commission rule
    rounds each player's payout), and a position's result is the sum of its
    players'. Returns the positions' results, the players' (player ->
    position -> bet -> result) and what the commission rule rounded off per
    position and bet (as text; empty when nothing was)."""
    results: dict[str, dict[str, Decimal]] = {}
    players: dict[str, dict[str, dict[str, Decimal]]] = {}
    rounded: dict[str, dict[str, str]] = {}
    for position, per in stakes.items():
        box: dict[str, Decimal] = {}
        kept: dict[str, Decimal] = {}
        for player, bets in per.items():
            cut: dict[str, Decimal] = {}
            mine = settle_box(profile, draw, bets, totals[position], payout_unit, cut)
            players.setdefault(player, {})[position] = mine
            for bet, value in mine.items():
                box[bet] = add(box.get(bet, ZERO), value)
            for bet, value in cut.items():
                kept[bet] = add(kept.get(bet, ZERO), value)
        results[position] = box
        if kept:
            rounded[position] = {bet: fmt(v) for bet, v in kept.items()}
    return results, players, rounded
