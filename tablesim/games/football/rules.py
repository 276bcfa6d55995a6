"""Card values, totals and the third-card rule (Art. 9, 10(1)): pure functions."""

from __future__ import annotations

from typing import Iterable, Sequence

from tablecore.cards import Card
from tablesim.games.football.profile import FootballProfile


def card_value(profile: FootballProfile, card: Card) -> int:
    """Art. 9: A = 1, 2-9 face value, 10 J Q K = 0 (by the profile)."""
    return profile.card_values[card.rank]


def total(profile: FootballProfile, cards: Iterable[Card]) -> int:
    """Art. 9(4): the sum's last digit."""
    return sum(profile.card_values[c.rank] for c in cards) % 10


def needs_third_card(profile: FootballProfile, cards: Sequence[Card]) -> bool:
    """Art. 10(1): a box whose first two cards total a middle number gets a third."""
    return len(cards) == 2 and total(profile, cards) in profile.middle


def deal_plan(profile: FootballProfile, order: Sequence[str], cards: Sequence[Card]) -> tuple[int, list[str]]:
    """How many cards a deal to ``order`` takes from ``cards``, and which boxes
    take a third card. Needs at least ``2 * len(order)`` cards; the count is
    exact once the first two cards of every box are known."""
    pairs = len(order) * 2
    if len(cards) < pairs:
        raise ValueError(f"{pairs} cards are needed for the first two cards of {len(order)} boxes")
    thirds = [box for i, box in enumerate(order) if needs_third_card(profile, cards[2 * i : 2 * i + 2])]
    return pairs + len(thirds), thirds
