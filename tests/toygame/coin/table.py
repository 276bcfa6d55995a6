"""The coin game's round (states, steps, rules) and its table."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from decimal import Decimal

from tablesim.engine.actions import action
from tablesim.engine.betbook import BetBook
from tablesim.engine.inputs import CloseBetting, OpenRound, TableInput
from tablesim.engine.machine import Procedure, rule, step
from tablesim.engine.result import RoundResult
from tablesim.engine.table import GameTable, RoundState

SIDES = ("heads", "tails")
BOXES = ("1", "2", "3")
PAYS = Decimal("0.95")


class S(enum.Enum):
    IDLE = "idle"
    BETTING_OPEN = "betting_open"
    BETS_CLOSED = "bets_closed"
    COMPLETE = "complete"
    VOID = "void"


PROCEDURE = Procedure(
    S, S.IDLE, (S.COMPLETE, S.VOID),
    (
        step("open_betting", (S.IDLE, S.COMPLETE, S.VOID), S.BETTING_OPEN),
        step("close_betting", S.BETTING_OPEN, S.BETS_CLOSED),
        step("toss", S.BETS_CLOSED, S.COMPLETE, before="settle_bets"),
        step("void", (S.BETTING_OPEN, S.BETS_CLOSED), S.VOID, before="announce_void"),
    ),
    (
        rule("open_round", "open betting", trigger="open_betting", refused="the round is {state}"),
        # an action that only fires its step: the table gets it from the rule
        rule("close_betting", "close betting", trigger="close_betting", refused="betting is closed", fires=CloseBetting),
        rule("toss", "toss", trigger="toss", refused="bets are not closed (the round is {state})"),
    ),
)


@dataclass(frozen=True, slots=True)
class Toss(TableInput):
    """The coin lands on ``side`` (the console's default buttons: one a side)."""

    side: str = field(metadata={"choices": SIDES})


@dataclass(slots=True)
class CoinRoundState(RoundState):
    side: str | None = None


class CoinTable(GameTable):
    game = "coin"
    PROCEDURE = PROCEDURE
    BETTING = S.BETTING_OPEN
    POSITIONS = BOXES
    Round = CoinRoundState

    def __init__(self, profile, settings, *, table_id: str = "COIN") -> None:
        self.profile, self.settings = profile, settings
        book = BetBook(SIDES, settings.limits, lambda box: None if box in BOXES else f"no box {box}")
        super().__init__(table_id=table_id, book=book, devices=[])

    @action(OpenRound, opens_round=True)
    def open_round(self, round_id: str | None = None) -> str:
        return self.begin_round(round_id)

    @action(Toss)
    def toss(self, side: str) -> None:
        self.round.side = side
        self.trigger["toss"]()

    def settle_bets(self) -> None:
        results = {box: {bet: (amount * PAYS if bet == self.side else -amount) for bet, amount in bets.items()}
                   for box, bets in self.book.bets.items()}
        self.result = self.settled_result({"side": self.side}, results)
