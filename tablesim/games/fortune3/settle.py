"""Settlement of one Fortune 3 Card Poker box (Art. 9, 10): pure and exact."""

from __future__ import annotations

from typing import Iterable, NamedTuple
from functools import lru_cache
from decimal import Decimal

from tablesim.games.fortune3.hands import Evaluator, Hand
from tablesim.games.fortune3.profile import Fortune3Profile
from tablecore.money import ZERO, exact


class BoxBets(NamedTuple):
    """A box's bets (a named tuple: built for every box of every round)."""

    ante: Decimal | None = None
    pair_plus: Decimal | None = None


@lru_cache(maxsize=64)
def _qualifier(evaluator: Evaluator, category: str, high_card: int) -> int:
    return evaluator.score(category, (high_card, 0, 0))


@lru_cache(maxsize=64)
def _play_threshold(evaluator: Evaluator, ranks: tuple[int, int, int]) -> int:
    return evaluator.high_card_score(ranks)


def dealer_qualifies(profile: Fortune3Profile, evaluator: Evaluator, dealer: Hand) -> bool:
    return dealer.score >= _qualifier(evaluator, profile.qualifier_category, profile.qualifier_high_card)


def plays_by_strategy(profile: Fortune3Profile, evaluator: Evaluator, hand: Hand) -> bool:
    """The simulated players' decision: play with the profile's threshold or better."""
    return hand.score >= _play_threshold(evaluator, tuple(profile.play_at_least))


def settle_box(
    profile: Fortune3Profile,
    bets: BoxBets,
    decision: str | None,
    player: Hand,
    dealer: Hand,
    qualifies: bool,
) -> dict[str, Decimal]:
    """Each bet's net result for the box (win positive, loss negative, push 0).

    ``decision`` is ``play`` or ``fold`` for a box with an Ante, None for a
    Pair Plus-only box.
    """
    with exact():
        return _settle_box(profile, bets, decision, player, dealer, qualifies)


def settle_boxes(
    profile: Fortune3Profile, boxes: Iterable[tuple[str, BoxBets, str | None, Hand]], dealer: Hand, qualifies: bool
) -> dict[str, dict[str, Decimal]]:
    """``settle_box`` for each (box, bets, decision, hand) of a round, in one
    exact context (entered once a round, not once a box)."""
    with exact():
        return {box: _settle_box(profile, bets, decision, hand, dealer, qualifies)
                for box, bets, decision, hand in boxes}


def _settle_box(
    profile: Fortune3Profile, bets: BoxBets, decision: str | None, player: Hand, dealer: Hand, qualifies: bool
) -> dict[str, Decimal]:
    results: dict[str, Decimal] = {}
    folded = decision == "fold"
    if bets.ante is not None:
        ante = bets.ante
        if folded:
            results["ante"] = -ante
        else:
            if not qualifies:
                results["ante"], results["play"] = ante * profile.ante_pays, ZERO
            elif player.score > dealer.score:
                results["ante"], results["play"] = ante * profile.ante_pays, ante * profile.play_pays
            elif player.score < dealer.score:
                results["ante"], results["play"] = -ante, -ante
            else:
                results["ante"], results["play"] = ZERO, ZERO
            results["ante_bonus"] = ante * profile.ante_bonus.get(player.category, ZERO)
    if bets.pair_plus is not None:
        stake = bets.pair_plus
        pay = profile.pair_plus.get(player.category)
        if folded or pay is None:
            results["pair_plus"] = -stake
        else:
            results["pair_plus"] = stake * pay
    return results
