"""Fortune 3 Card Poker: who holds which card, rebuilt from what the device delivered.

Every card the shoe reads, or hand the shuffler dispenses, is one
*delivery*, kept in order with the cards drawn while the shoe was disarmed.
The boxes' hands and the cards set aside are a function of those deliveries
and of the ones declared stray: a stray (Art. 11(3)) marks one delivery dead
and the hands are laid again from the start, so

- only the dead card (or hand) is dead: no correctly dealt card is touched,
  whether the stray was the latest card or one noticed late;
- the box (or the dealer) it was meant for takes the next card, and every
  card after it goes where the dealer actually put it;
- an exposed dealer card (Art. 11(2)) is set aside wherever it falls, so a
  dealer's exposed card on an empty box is dead once, never twice.

A mixin of ``Fortune3Table``: it reads the table's targets, cards and
dealing mode.
"""

from __future__ import annotations

from tablecore.cards import DealtCard
from tablecore.records import CardDealt, CardSetAside

DEALER = "dealer"
#: a delivery's kind: dealt by the device, or drawn while the shoe was disarmed
DEALT, FLAGGED = "dealt", "flagged"


class DealLog:
    deliveries: list[tuple[str, list[DealtCard]]]
    dead: set[int]

    def flag(self, card: DealtCard) -> None:
        """A card drawn while the shoe was disarmed: set aside, never dealt."""
        self.round.deliveries.append((FLAGGED, [card]))
        self.round.set_aside.append(card)

    def deliver(self, dealt: list[DealtCard]) -> None:
        """Lay a card (shoe) or hand (shuffler) the device just delivered."""
        self.round.deliveries.append((DEALT, dealt))
        self.lay(dealt, live=True)

    def lay(self, dealt: list[DealtCard], *, live: bool) -> None:
        """Give each card to whoever is due, applying Art. 11(2) to the
        dealer; ``live``: as it happens (announced), not laid again."""
        for d in dealt:
            if not self.round.targets:
                self.round.set_aside.append(d)  # (laid again after a stray: past the deal, never held)
                continue
            who = self.round.targets[0]
            if d.exposed and who == DEALER:
                # The dealer stays due a card: the next one (or a one-card hand
                # from the shuffler) takes the exposed card's place.
                self.round.set_aside.append(d)
                if live:
                    self.emit(CardSetAside(card=d.code, reason="exposed dealer card (Art. 11(2))"))
                continue
            hand = self.round.cards[who]
            hand.append(d)
            if live:
                self._note_placed(who, d)
                if self.observed:
                    self.emit(CardDealt(to=who, card=d.code))
            if self.by_card or len(hand) == 3:
                self.round.targets.pop(0)

    def _note_placed(self, who: str, d: DealtCard) -> None:
        if self.by_card or self.round.last_placed is None or self.round.last_placed[0] != who:
            self.round.last_placed = (who, [])
        self.round.last_placed[1].append(d)

    def latest_delivery(self) -> int | None:
        """The latest card or hand dealt, unless it was already declared stray
        (a second press of the button never reaches a card before it: an
        earlier card is named, for a supervisor to confirm)."""
        for i in range(len(self.round.deliveries) - 1, -1, -1):
            kind, _ = self.round.deliveries[i]
            if kind == DEALT:
                return None if i in self.round.dead else i
        return None

    def delivery_of(self, code: str) -> int | None:
        """The live delivery holding the card ``code`` (with or without ``^``)."""
        bare = code.rstrip("^").upper()
        for i, (kind, dealt) in enumerate(self.round.deliveries):
            if kind == DEALT and i not in self.round.dead and any(d.card.code == bare for d in dealt):
                return i
        return None

    def kill(self, index: int) -> list[DealtCard]:
        """Declare delivery ``index`` stray and lay every hand again without
        it. Returns its cards."""
        self.round.dead.add(index)
        self.round.last_placed = None
        self.round.targets = self.round.order * 3 if self.dealing == "shoe" else list(self.round.order)
        self.round.cards = {who: [] for who in self.round.order}
        self.round.set_aside = []
        for i, (kind, dealt) in enumerate(self.round.deliveries):
            if kind == FLAGGED or i in self.round.dead:
                self.round.set_aside.extend(dealt)
            else:
                self.lay(dealt, live=False)
        return self.round.deliveries[index][1]
