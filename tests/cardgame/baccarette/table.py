"""Baccarette's round (states, steps, rules), its words and its table on the card-table kit."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from drivers.events import DRAWN_WHILE_DISARMED, MISREAD, FaultRaised
from tablecore.cards import Card, DealtCard, dealt
from tablecore.records import CardDealt, Fault, Instruction
from tablecore.wording import CORE_WORDS as C, Words
from tablesim.engine.actions import action
from tablesim.engine.betbook import BetBook
from tablesim.engine.cardtable import CardRound, CardTable, Pack
from tablesim.engine.inputs import CloseBetting, OpenRound, StartDealing, Void
from tablesim.engine.machine import Procedure, Refused, rule, step

WORDS = Words(Path(__file__).resolve().parent / "i18n")
HANDS = ("player", "banker")
BETS = ("player", "banker", "tie")
BOXES = ("1", "2", "3", "4", "5")
#: what a winning bet pays to one; on a tie the player and banker bets lose this part
PAYS = {"player": Decimal(1), "banker": Decimal(1), "tie": Decimal(8)}
TIE_LOSES = Decimal("0.5")


class S(enum.Enum):
    IDLE = "idle"
    BETTING_OPEN = "betting_open"
    BETS_CLOSED = "bets_closed"
    DEALING = "dealing"
    COMPLETE = "complete"
    VOID = "void"


PROCEDURE = Procedure(
    S, S.IDLE, (S.COMPLETE, S.VOID),
    (
        step("open_betting", (S.IDLE, S.COMPLETE, S.VOID), S.BETTING_OPEN),
        step("close_betting", S.BETTING_OPEN, S.BETS_CLOSED, after="poll"),
        step("start_dealing", S.BETS_CLOSED, S.DEALING, before="seat_hands", after="arm_shoe"),
        step("settle", S.DEALING, S.COMPLETE, before=("stop_shoe", "settle_bets")),
        # the void step's callbacks are handed the Void record
        step("void", (S.BETTING_OPEN, S.BETS_CLOSED, S.DEALING), S.VOID, before=("stop_shoe", "announce_void")),
    ),
    (
        rule("open_round", "open betting", trigger="open_betting", refused=C("refusal.round_not_finished")),
        rule("close_betting", "close betting", trigger="close_betting", refused=C("refusal.betting_closed"),
             fires=CloseBetting),
        rule("deal", "deal", trigger="start_dealing", refused=C("refusal.deal_after_close"), fires=StartDealing),
    ),
)


def value(card: Card) -> int:
    """A card's value: ace 1, two to nine as marked, ten and faces 0."""
    return 1 if card.rank == 14 else card.rank % 10 if card.rank < 10 else 0


def points(cards: list[DealtCard]) -> int:
    """A hand's points: its cards' values modulo 10."""
    return sum(value(d.card) for d in cards) % 10


def settle_bet(bet: str, amount: Decimal, winner: str) -> Decimal:
    """One bet's result against the winner (``player``, ``banker`` or ``tie``)."""
    if bet == winner:
        return amount * PAYS[bet]
    if winner == "tie":
        return -amount * TIE_LOSES  # the tie rule
    return -amount


@dataclass(slots=True)
class BaccaretteRound(CardRound):
    """(``order``: the two hands; ``targets``: player, banker, player, banker.)"""


class BaccaretteTable(CardTable):
    game = "baccarette"
    PROCEDURE = PROCEDURE
    BETTING = S.BETTING_OPEN
    POSITIONS = BOXES
    Round = BaccaretteRound

    def __init__(self, profile, settings, *, shoe, table_id: str = "BCT") -> None:
        self.profile, self.settings, self.shoe = profile, settings, shoe
        self.pack = Pack(settings.decks)
        book = BetBook(BETS, settings.limits, self._box_ok)
        super().__init__(table_id=table_id, book=book, devices=[shoe])

    def _box_ok(self, box: str) -> str | None:
        return None if box in BOXES else WORDS("baccarette.refusal.no_such_box", box=repr(box))

    @action(OpenRound, opens_round=True)
    def open_round(self, round_id: str | None = None) -> str:
        return self.begin_round(round_id)

    def check_bets(self) -> None:
        if not self.book.bets:
            raise Refused(C("refusal.no_bets"))

    CHECKS = {"close_betting": (check_bets,)}

    def seat_hands(self) -> None:
        """Two cards each, player first; a new pack first if this one may run short (its cut card)."""
        if self.pack.pack_id is None or self.pack.runs_short(4):
            self.pack.load(self.shoe, f"{self.table_id}-P{self.pack.loads + 1}")
        self.round.order = list(HANDS)
        self.round.cards = {hand: [] for hand in HANDS}
        self.round.targets = [*HANDS, *HANDS]

    def arm_shoe(self) -> None:
        self.arm()
        self.instruct()

    def instruct(self) -> None:
        if self.heard():
            hand = self.round.targets[0]
            self.emit(Instruction(text=WORDS(f"baccarette.next.card_to_{hand}"), to=hand))

    def read_card(self, card: Card, exposed: bool, stale: bool = False) -> None:
        if stale or self.state is not S.DEALING:
            self.open_incident(DRAWN_WHILE_DISARMED, WORDS("baccarette.incident.card_outside_deal"), blocking=False, card=card.code)
            self.set_aside_card(DealtCard(card, exposed))
            self.count_out(card)
            return
        if not self.count_out(card):
            return  # a duplicate: the kit voided the round
        hand = self.round.targets.pop(0)
        self.round.cards[hand].append(dealt(card, exposed))
        if self.heard():
            self.emit(CardDealt(to=hand, card=card.code))
        if self.round.targets:
            self.instruct()
        else:
            self.trigger["settle"]()

    def on_fault(self, event: FaultRaised) -> None:
        self.emit(Fault(device=event.device, code=event.code, severity=event.severity, text=event.text))
        if event.severity in ("E", "C") and self.state in (S.BETS_CLOSED, S.DEALING):
            self.void("misread" if event.code == MISREAD else "shoe_fault")

    def settle_bets(self) -> None:
        hands = {hand: points(self.round.cards[hand]) for hand in HANDS}
        winner = "tie" if hands["player"] == hands["banker"] else max(HANDS, key=hands.__getitem__)
        results = {box: {bet: settle_bet(bet, amount, winner) for bet, amount in bets.items()}
                   for box, bets in self.book.bets.items()}
        outcome = {"winner": winner, **{hand: {"cards": [d.code for d in self.round.cards[hand]], "points": p}
                                        for hand, p in hands.items()}}
        self.result = self.settled_result(outcome, results)

    def stop_shoe(self, note: Void | None = None) -> None:
        """The deal is over, or the round void (``note``: the Void record)."""
        super().stop_shoe(note)
