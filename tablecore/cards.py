"""Playing cards and card codes.

A card code is rank + suit: rank ``A K Q J T 9 8 7 6 5 4 3 2`` (``10`` is
accepted for ``T``) and suit ``S H D C``; a trailing ``^`` marks a card that
came out of the shoe or shuffler face up. The 52 cards are interned, so
identity comparison and hashing are cheap in the hot paths.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Iterable, Iterator

from tablecore.errors import InputError

RANK_CHARS = "23456789TJQKA"
SUITS = "SHDC"
#: rank number by rank character; A is 14 (it plays low only in 3-2-A).
RANK_OF = {c: i + 2 for i, c in enumerate(RANK_CHARS)}
RANK_CHAR = {v: k for k, v in RANK_OF.items()}


@dataclass(frozen=True, slots=True, eq=False)
class Card:
    """One of the 52 interned cards: equality and hashing are by identity
    (cheap in the hot paths), and unpickling returns the interned card."""

    rank: int  # 2..14
    suit: str  # one of SUITS
    index: int  # 0..51, unique per card
    code: str  # e.g. "AS", "TD": kept, not computed, as hot paths read it often

    def __reduce__(self):
        return (card_at, (self.index,))

    def __lt__(self, other: "Card") -> bool:
        return self.index < other.index

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card({self.code})"


DECK: tuple[Card, ...] = tuple(
    Card(rank, suit, i * 4 + j, RANK_CHAR[rank] + suit)
    for i, rank in enumerate(range(2, 15))
    for j, suit in enumerate(SUITS)
)
_BY_CODE = {c.code: c for c in DECK}


def card_at(index: int) -> Card:
    return DECK[index]


@dataclass(frozen=True, slots=True)
class DealtCard:
    """A card as a device delivered it: which card, and whether it came face up.
    ``dealt(card, exposed)`` returns the interned instance (no allocation)."""

    card: Card
    exposed: bool = False

    @property
    def code(self) -> str:
        return self.card.code + ("^" if self.exposed else "")

    def __str__(self) -> str:
        return self.code


_DEALT = {(c, e): DealtCard(c, e) for c in DECK for e in (False, True)}


def dealt(card: Card, exposed: bool = False) -> DealtCard:
    return _DEALT[(card, exposed)]


def card(code: str) -> Card:
    """The card for a plain code such as ``AS``, ``TD`` or ``10H``."""
    dealt = parse_dealt(code)
    if dealt.exposed:
        raise InputError(f"{code!r}: an exposed mark is not allowed here")
    return dealt.card


def parse_dealt(code: object) -> DealtCard:
    """Parse a card code with an optional trailing ``^`` (exposed)."""
    if not isinstance(code, str):
        raise InputError(f"{code!r} is not a card code (expected e.g. AS, TD, 10H, 7C^)")
    text = code.strip().upper()
    exposed = text.endswith("^")
    if exposed:
        text = text[:-1]
    if text.startswith("10"):
        text = "T" + text[2:]
    found = _BY_CODE.get(text)
    if found is None or len(text) != 2:
        raise InputError(
            f"{code!r} is not a card of a 52-card deck (rank A K Q J T/10 9-2, suit S H D C)"
        )
    return dealt(found, exposed)


def parse_cards(codes: Iterable[str]) -> list[Card]:
    return [card(c) for c in codes]


def shuffled_deck(rng: random.Random, decks: int = 1) -> list[Card]:
    cards = list(DECK) * decks
    rng.shuffle(cards)
    return cards


def codes(cards: Iterable[Card | DealtCard]) -> list[str]:
    return [c.code for c in cards]


def iter_deck() -> Iterator[Card]:
    return iter(DECK)
