"""Where a mock shoe or shuffler gets its cards: a script, or a seeded shuffle."""

from __future__ import annotations

import random
from collections import deque
from typing import Iterable

from tablecore.cards import DECK, DealtCard, dealt


class OutOfCards(Exception):
    """A scripted source has no card left: the script gave too few cards."""


class CardSource:
    def draw(self) -> DealtCard:
        raise NotImplementedError

    def reload(self, decks: int | None = None) -> None:
        """A new pack was loaded (the shoe was refilled / the shuffler
        reloaded); ``decks``: how many decks the table loaded (None: as before)."""

    def remaining(self) -> int:
        raise NotImplementedError


class ScriptedCards(CardSource):
    """Exactly the cards a script says the device produces, in order."""

    def __init__(self, cards: Iterable[DealtCard] = ()) -> None:
        self._cards: deque[DealtCard] = deque(cards)

    def feed(self, cards: Iterable[DealtCard]) -> None:
        self._cards.extend(cards)

    def clear(self) -> None:
        """Nothing left to deal (a scripted round starts from its own cards)."""
        self._cards.clear()

    def draw(self) -> DealtCard:
        if not self._cards:
            raise OutOfCards("the script gives no more cards")
        return self._cards.popleft()

    def remaining(self) -> int:
        return len(self._cards)

    def left(self) -> list[DealtCard]:
        return list(self._cards)


class ShuffledShoe(CardSource):
    """A seeded shuffled pack of ``decks`` decks.

    ``reshuffle_each_load``: every load starts from the full pack freshly
    shuffled (Fortune 3: each round dealt from a full deck). Otherwise the
    pack runs down and is refilled when ``cut_remaining`` cards are left.
    ``exposed_rate`` makes the occasional card come out face up.
    """

    def __init__(
        self,
        rng: random.Random,
        decks: int = 1,
        *,
        reshuffle_each_load: bool = True,
        exposed_rate: float = 0.0,
    ) -> None:
        self.rng = rng
        self.decks = decks
        self.reshuffle_each_load = reshuffle_each_load
        self.exposed_rate = exposed_rate
        self._pack: list = []
        self._shuffle()

    def _shuffle(self) -> None:
        self._pack = list(DECK) * self.decks
        self.rng.shuffle(self._pack)

    def reload(self, decks: int | None = None) -> None:
        # A table that loads another number of decks gets a pack of that many,
        # freshly shuffled; the same number keeps the pack as it ran down.
        if decks is not None and decks != self.decks:
            self.decks = decks
            self._shuffle()
        elif self.reshuffle_each_load:
            self._shuffle()

    def exclude(self, cards: Iterable) -> None:
        """Take cards already dealt (a recovered round) out of the pack."""
        for c in cards:
            if c in self._pack:
                self._pack.remove(c)

    def return_cards(self, cards: Iterable) -> None:
        """Continuous shuffler: used cards go back in at random places."""
        for c in cards:
            self._pack.insert(self.rng.randrange(len(self._pack) + 1), c)

    def draw(self) -> DealtCard:
        if not self._pack:
            self._shuffle()
        c = self._pack.pop()
        exposed = self.exposed_rate > 0 and self.rng.random() < self.exposed_rate
        return dealt(c, exposed)

    def remaining(self) -> int:
        return len(self._pack)
