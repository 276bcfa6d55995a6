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
"""

from __future__ import annotations

from decimal import Context, Decimal, Inexact, InvalidOperation, localcontext
from typing import Mapping

from tablesim.games.football.profile import Draw, FootballProfile
from tablesim.core.money import ZERO

# Wide enough for any stake a table takes; rounding is an error, never silent.
_EXACT = Context(prec=60, traps=[Inexact, InvalidOperation])


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
    """What a winning ``stake`` on ``bet`` wins: stake x pay, less commission."""
    with localcontext(_EXACT):
        gross = stake * profile.pays[bet]
        return gross - gross * profile.commission.get(bet, ZERO)


def bet_result(profile: FootballProfile, draw: Draw, bet: str, stake: Decimal, total: int) -> Decimal:
    """The player's net on one bet: the win (stake not included), -stake, or 0."""
    outcome = bet_outcome(profile, draw, bet, total)
    if outcome == "win":
        return win_amount(profile, bet, stake)
    if outcome == "lose":
        return -stake
    return ZERO


def settle_box(
    profile: FootballProfile, draw: Draw, bets: Mapping[str, Decimal], total: int
) -> dict[str, Decimal]:
    """Each bet's net result on one box, in the order the bets were placed."""
    return {bet: bet_result(profile, draw, bet, stake, total) for bet, stake in bets.items()}
