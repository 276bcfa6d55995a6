"""Three-card hand evaluation (Art. 4 and Art. 8).

Card order A K Q J 10 .. 2; straights run from A-K-Q (highest) down to
3-2-A (lowest, its high card is the 3); K-A-2 is not a straight. Ties are
broken by ranks only, never by suits. The category order comes from the rule
profile, so a profile may rank categories differently.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from tablecore.cards import DECK, Card

ACE = 14


@dataclass(frozen=True, slots=True)
class Hand:
    category: str
    ranks: tuple[int, ...]  # tie-break ranks, most significant first
    score: int  # comparable across hands of one ranking: higher wins

    def beats(self, other: "Hand") -> bool:
        return self.score > other.score


def classify(cards: Sequence[Card]) -> tuple[str, tuple[int, ...]]:
    """The category of a three-card hand and its tie-break ranks."""
    if len(cards) != 3:
        raise ValueError(f"a hand has three cards, not {len(cards)}")
    a, b, c = sorted((card.rank for card in cards), reverse=True)
    flush = cards[0].suit == cards[1].suit == cards[2].suit
    if a == c:
        return "three_of_a_kind", (a,)
    if a == b or b == c:
        pair, kicker = (a, c) if a == b else (b, a)
        return "pair", (pair, kicker)
    if a - c == 2:
        high = a
    elif (a, b, c) == (ACE, 3, 2):
        high = 3  # 3-2-A: the ace plays low only here
    else:
        high = 0
    if high:
        return ("straight_flush" if flush else "straight"), (high,)
    return ("flush" if flush else "high_card"), (a, b, c)


class Evaluator:
    """Scores hands under one ranking order (highest category first)."""

    def __init__(self, ranking: Sequence[str]) -> None:
        self.ranking = tuple(ranking)
        self._strength = {cat: len(ranking) - 1 - i for i, cat in enumerate(ranking)}
        # 22,100 hands: a table makes evaluation one sort and one lookup.
        self._table: dict[tuple[int, int, int], Hand] = {}

    def score(self, category: str, ranks: tuple[int, ...]) -> int:
        padded = ranks + (0,) * (3 - len(ranks))
        return ((self._strength[category] * 16 + padded[0]) * 16 + padded[1]) * 16 + padded[2]

    def evaluate(self, cards: Sequence[Card]) -> Hand:
        key = tuple(sorted([c.index for c in cards]))
        hand = self._table.get(key)  # type: ignore[arg-type]
        if hand is None:
            category, ranks = classify(cards)
            hand = Hand(category, ranks, self.score(category, ranks))
            self._table[key] = hand  # type: ignore[index]
        return hand

    def high_card_score(self, ranks: tuple[int, int, int]) -> int:
        return self.score("high_card", tuple(sorted(ranks, reverse=True)))


def all_hands() -> list[tuple[Card, Card, Card]]:
    """Every three-card hand of one deck (22,100)."""
    n = len(DECK)
    return [(DECK[i], DECK[j], DECK[k]) for i in range(n) for j in range(i + 1, n) for k in range(j + 1, n)]
