"""The card-table kit: what every game dealt from a card shoe (with a
reader) or an automatic shuffler shares, so that a card game writes only
its hands, its bets and its comparison.

* ``CardTable``: a ``GameTable`` whose shoe reports cards to typed hooks
  (``on_card``, ``on_fault``; the engine's ``DEVICE_HOOKS``). A card read
  for an earlier round is *stale*: never dealt (the game's ``read_card``
  is told so; a card outside the deal is the game's to refuse).
* ``CardRound``: what every card round holds: who is dealt, in order
  (``order``), who gets each next card (``targets``), the hands
  (``cards``), the cards set aside, and every card out of the pack this
  round with its copies.
* ``Pack``: the cards in the shoe across rounds: how many decks, which pack
  is loaded, the cut card (a pack that may run short for a round is
  replaced before it is dealt), and how many copies of a card a round may
  hold (one more is a duplicate: a device fault, the round is void).
* ``DealLog``: who holds which card, rebuilt from what the device
  delivered, so a card dealt to a box with no bet (a *stray*) is taken out
  and the hands laid again (a component of the table: ``table.deal_log``).

Arming: the shoe is armed for exactly the cards still due (``arm``), so a
card drawn past the deal is refused by the reader (fault 204), never dealt;
after a restart ``resume_deal`` arms it again and says who is due next.

Void: a game's ``void`` step's callbacks (``before=``/``after=`` in its
procedure, e.g. ``stop_devices``) are handed the ``Void`` record (reason,
actor, why): each takes it as its one argument, even when it does not read
it (``def stop_devices(self, note: Void) -> None``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from drivers.events import MISREAD, CardRead
from tablecore.cards import Card, DealtCard
from tablecore.records import CardDealt, CardSetAside, Fault
from tablesim.engine.inputs import Void
from tablesim.engine.table import GameTable, RoundState

#: cards in one deck
DECK_SIZE = 52


@dataclass(slots=True)
class CardRound(RoundState):
    """What every card round holds (a game's round derives from it)."""

    order: list[str] = field(default_factory=list)  # who is dealt, in order
    cards: dict[str, list[DealtCard]] = field(default_factory=dict)  # each one's cards as dealt
    targets: list[str] = field(default_factory=list)  # who gets each next card (or hand)
    set_aside: list[DealtCard] = field(default_factory=list)  # out of the pack, in no hand
    copies: dict[Card, int] = field(default_factory=dict)  # each card's copies out of the pack this round
    round_cards: list[Card] = field(default_factory=list)  # every card out of the pack this round, in order


class Pack:
    """The cards in the shoe across rounds.

    ``decks``: how many decks a pack holds (and so how many copies of one
    card a round may hold); ``continuous``: a continuous shuffler takes the
    used cards back after each round, so the pack never runs down (no cut
    card); otherwise the pack is replaced once it may run short for a round.
    """

    def __init__(self, decks: int = 1, *, continuous: bool = False) -> None:
        self.decks = decks
        self.continuous = continuous
        self.pack_id: str | None = None
        self.loads = 0  # packs loaded so far
        self.taken = 0  # cards out of the pack loaded now
        self.reads = 0  # cards the reader reported since it was loaded

    @property
    def size(self) -> int:
        return DECK_SIZE * self.decks

    def load(self, shoe: Any, pack_id: str) -> None:
        """A new pack goes into the shoe (``shoe.load_shoe``)."""
        self.loads += 1
        self.pack_id = pack_id
        self.taken = 0
        self.reads = 0
        shoe.load_shoe(pack_id, self.decks)

    def runs_short(self, most: int) -> bool:
        """The cut card: whether the pack may run short for a round that
        takes up to ``most`` cards (a round is never dealt across two packs)."""
        return not self.continuous and self.taken + most > self.size

    def earlier(self, shoe_id: str | None) -> bool:
        """Whether a report names a pack loaded before this one (handled late)."""
        return bool(shoe_id) and shoe_id != self.pack_id

    def take(self, rnd: CardRound, card: Card) -> int:
        """Count ``card`` out of the pack this round; its copies this round."""
        self.taken += 1
        rnd.round_cards.append(card)
        copies = rnd.copies
        n = copies[card] = copies.get(card, 0) + 1  # (a plain dict: a Counter's missing key costs a call)
        return n


class CardTable(GameTable):
    """A table dealt from a shoe with a reader (or a shuffler's hands).

    A game sets ``self.shoe`` (None without one) and ``self.pack`` before
    ``GameTable.__init__``, defines ``read_card(card, exposed, stale)`` (a
    card the reader read) and says who gets the next card (``instruct``).
    """

    Round: ClassVar[type[RoundState]] = CardRound
    #: the fault code of a card read more often than the pack holds it
    DUPLICATE_FAULT: ClassVar[int] = MISREAD
    shoe: Any = None
    pack: Pack
    #: the shoe deals card by card (False: a shuffler deals a hand at a time)
    by_card: bool = True

    def on_card(self, event: CardRead) -> None:
        # (``stale_card`` inline: every card of every round comes this way)
        rid = event.round_id
        self.read_card(event.card, event.exposed, bool(rid) and rid != self.round_id)

    def read_card(self, card: Card, exposed: bool, stale: bool = False) -> None:
        """A card the reader read (``stale``: for another round)."""
        raise NotImplementedError

    def cards_out(self) -> list[Card]:
        """Every card out of the pack this round (dealt, set aside, flagged)."""
        return self.round.round_cards

    # --- copies per deck ---------------------------------------------------------

    def count_out(self, card: Card) -> bool:
        """Count a card out of the pack this round; False if the pack cannot
        hold that many copies of it: a device fault, the round is void."""
        # (``Pack.take`` inline: every card of every round comes this way)
        pack = self.pack
        pack.taken += 1
        rnd = self.round
        rnd.round_cards.append(card)
        seen = rnd.copies
        copies = seen[card] = seen.get(card, 0) + 1
        if copies <= pack.decks:
            return True
        self.emit(Fault(device=self.card_device_name(), code=self.DUPLICATE_FAULT, severity="E",
                        text=self.duplicate_text(card, copies)))
        if self.unsettled:
            self.void("duplicate_card")
        return False

    def duplicate_text(self, card: Card, copies: int) -> str:
        return f"{card.code} read {copies} times in one round from {self.pack.decks} deck(s)"

    def card_device_name(self) -> str:
        return self.shoe.name if self.shoe is not None else self.devices[0].name

    # --- set aside ---------------------------------------------------------------

    def set_aside_card(self, dealt: DealtCard, reason: str | None = None) -> None:
        """A card out of the pack in nobody's hand (announced with ``reason``)."""
        self.round.set_aside.append(dealt)
        if reason is not None:
            self.emit(CardSetAside(card=dealt.code, reason=reason))

    # --- arming and resuming -------------------------------------------------------

    def arm(self) -> None:
        """Arm the shoe for exactly the cards still due."""
        self.shoe.arm(self.round_id, len(self.round.targets))

    def stop_shoe(self, note: Void | None = None) -> None:
        """The deal is over (or void): the shoe takes no more cards."""
        if self.shoe is not None and self.by_card:
            self.shoe.disarm()

    def resume_deal(self) -> None:
        """After a restart, mid-deal: the shoe armed again for the cards still
        due, and the dealer told who gets the next one."""
        self.arm()
        self.instruct()

    def instruct(self) -> None:
        """Tell the dealer who gets the next card (the game's words)."""


#: a delivery's kind: dealt by the device, or drawn while the shoe was disarmed
DEALT, FLAGGED = "dealt", "flagged"


@dataclass(slots=True)
class DealtRound(CardRound):
    """A card round that keeps its deliveries (see ``DealLog``)."""

    deliveries: list = field(default_factory=list)
    dead: set = field(default_factory=set)
    #: who got the latest card(s) dealt and kept (None after a stray): what
    #: the table's state shows of the deal's progress
    last_placed: tuple[str, list[DealtCard]] | None = None


class DealLog:
    """Who holds which card, rebuilt from what the device delivered.

    Every card the shoe reads, or hand the shuffler dispenses, is one
    *delivery*, kept in order with the cards drawn while the shoe was
    disarmed. The hands and the cards set aside are a function of those
    deliveries and of the ones declared stray: a stray marks one delivery
    dead and the hands are laid again from the start, so only the dead card
    (or hand) is dead; whoever it was meant for takes the next card, and
    every card after it goes where the dealer actually put it. An exposed
    card due to ``dealer`` is set aside wherever it falls (the dealer stays
    due a card), so it is dead once, never twice.

    ``hand``: cards in a hand (a shuffler's hand is done when full).
    """

    def __init__(self, table: CardTable, *, hand: int, dealer: str, exposed_reason: str) -> None:
        self.table = table
        self.hand = hand
        self.dealer = dealer
        self.exposed_reason = exposed_reason

    def flag(self, card: DealtCard) -> None:
        """A card drawn while the shoe was disarmed: set aside, never dealt."""
        rnd = self.table.round
        rnd.deliveries.append((FLAGGED, [card]))
        rnd.set_aside.append(card)

    def deliver(self, dealt: list[DealtCard], live: bool = True) -> None:
        """Give each card of a card (shoe) or hand (shuffler) the device
        delivered to whoever is due it. ``live``: as it happens (kept as a
        delivery, announced); else laid again from the kept deliveries."""
        t = self.table
        rnd = t.round
        if live:
            rnd.deliveries.append((DEALT, dealt))
        # (one frame a card, the loop's lookups made once: every card of every round comes this way)
        targets = rnd.targets
        by_card = t.by_card
        for d in dealt:
            if not targets:
                rnd.set_aside.append(d)  # (laid again after a stray: past the deal, never held)
                continue
            who = targets[0]
            if d.exposed and who == self.dealer:
                # The dealer stays due a card: the next one (or a one-card hand
                # from the shuffler) takes the exposed card's place.
                rnd.set_aside.append(d)
                if live:
                    t.emit(CardSetAside(card=d.code, reason=self.exposed_reason))
                continue
            hand = rnd.cards[who]
            hand.append(d)
            if live:
                # who got the latest card (a shoe's) or the cards of one hand (a shuffler's)
                placed = rnd.last_placed
                if by_card or placed is None or placed[0] != who:
                    rnd.last_placed = (who, [d])
                else:
                    placed[1].append(d)
                if t.observed:
                    t.emit(CardDealt(to=who, card=d.code))
            if by_card or len(hand) == self.hand:
                targets.pop(0)

    def latest(self) -> int | None:
        """The latest card or hand dealt, unless it was already declared stray
        (a second press of the button never reaches a card before it: an
        earlier card is named, for a supervisor to confirm)."""
        deliveries = self.table.round.deliveries
        for i in range(len(deliveries) - 1, -1, -1):
            if deliveries[i][0] == DEALT:
                return None if i in self.table.round.dead else i
        return None

    def holding(self, code: str) -> int | None:
        """The live delivery holding the card ``code`` (with or without ``^``)."""
        bare = code.rstrip("^").upper()
        rnd = self.table.round
        for i, (kind, dealt) in enumerate(rnd.deliveries):
            if kind == DEALT and i not in rnd.dead and any(d.card.code == bare for d in dealt):
                return i
        return None

    def kill(self, index: int, targets: list[str]) -> list[DealtCard]:
        """Declare delivery ``index`` stray and lay every hand again without
        it, from ``targets`` (who is due each card, or hand, from the deal's
        start). Returns its cards."""
        rnd = self.table.round
        rnd.dead.add(index)
        rnd.last_placed = None
        rnd.targets = targets
        rnd.cards = {who: [] for who in rnd.order}
        rnd.set_aside = []
        for i, (kind, dealt) in enumerate(rnd.deliveries):
            if kind == FLAGGED or i in rnd.dead:
                rnd.set_aside.extend(dealt)
            else:
                self.deliver(dealt, live=False)
        return rnd.deliveries[index][1]
