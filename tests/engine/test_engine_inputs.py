"""A game's actions as the engine makes them: an action that only fires its
trigger comes from the procedure's rule; a check is a plain method raising
``Refused``, asked by the action and by ``can``/``refusal`` alike; every
action is also taken as its input record, under who asked."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from decimal import Decimal

import pytest

from tablecore.errors import IllegalAction
from tablesim.engine.actions import action
from tablesim.engine.betbook import BetBook
from tablesim.engine.inputs import CloseBetting, OpenRound, PlaceBet, TableInput
from tablesim.engine.limits import Limit, Limits
from tablesim.engine.machine import Procedure, Refused, rule, step
from tablesim.engine.table import GameTable


class S(enum.Enum):
    IDLE = "idle"
    OPEN = "open"
    CLOSED = "closed"
    DONE = "done"
    VOID = "void"


@dataclass(frozen=True, slots=True)
class Call(TableInput):
    side: str


PROCEDURE = Procedure(S, S.IDLE, (S.DONE, S.VOID), (
    step("open_betting", (S.IDLE, S.DONE, S.VOID), S.OPEN),
    step("close_betting", S.OPEN, S.CLOSED),
    step("call", S.CLOSED, S.DONE),
    step("void", (S.OPEN, S.CLOSED), S.VOID, before="announce_void"),
), (
    rule("open_round", "open", trigger="open_betting"),
    rule("close_betting", "close betting", trigger="close_betting", refused="betting is closed", fires=CloseBetting),
    rule("call", "call", trigger="call", refused="bets are not closed"),
))


class Table(GameTable):
    game = "toy"
    PROCEDURE = PROCEDURE
    BETTING = S.OPEN

    def __init__(self) -> None:
        book = BetBook(("heads", "tails"), Limits({s: Limit(Decimal(1), Decimal(10)) for s in ("heads", "tails")}),
                       lambda box: None if box in ("1", "2") else f"no box {box}")
        super().__init__(table_id="T", book=book, devices=[])

    @action(OpenRound, opens_round=True)
    def open_round(self, round_id: str | None = None) -> str:
        return self.begin_round(round_id)

    def check_side(self, side: str) -> None:
        if side not in ("heads", "tails"):
            raise Refused(f"no side {side!r}")

    CHECKS = {"call": (check_side,)}

    @action(Call)
    def call(self, side: str) -> None:
        self.trigger["call"]()


class Journal:
    """What a table needs of a journal: append and a transaction."""

    def __init__(self) -> None:
        self.rows: list[tuple] = []

    def append(self, table_id, round_id, kind, name, data, actor):
        self.rows.append((kind, name, data, actor))

    def transaction(self):
        import contextlib

        return contextlib.nullcontext()


def test_an_action_that_only_fires_its_trigger_comes_from_its_rule():
    t = Table()
    assert Table.action_specs["close_betting"].record is CloseBetting
    with pytest.raises(IllegalAction, match="close betting refused: betting is closed"):
        t.close_betting()
    t.open_round()
    t.close_betting()
    assert t.state is S.CLOSED


def test_a_check_refuses_the_action_and_can_asks_the_same_check():
    t = Table()
    t.open_round()
    t.close_betting()
    assert t.refusal("call", "edge") == "no side 'edge'" and not t.can("call", "edge")
    assert t.can("call")  # asked without its argument: may any call be made now?
    with pytest.raises(IllegalAction, match="no side 'edge'"):
        t.call("edge")
    assert t.state is S.CLOSED
    t.act(Call("heads"))
    assert t.state is S.DONE


def test_an_input_is_journaled_as_its_record_under_who_asked():
    t = Table()
    t.attach_journal(journal := Journal())
    t.open_round()
    t.act(PlaceBet("1", "heads", Decimal("2.00"), actor="ann"))
    with t.acting("dealer:rui"):
        t.place_bet("2", "tails", "3")
    t.close_betting()
    inputs = [(name, data["args"], actor) for kind, name, data, actor in journal.rows if kind == "input"]
    assert inputs == [("open_round", ["T-000001"], "dealer"),
                      ("place_bet", ["1", "heads", {"$dec": "2.00"}], "ann"),
                      ("place_bet", ["2", "tails", "3"], "dealer:rui"),
                      ("close_betting", [], "dealer")]
    assert t.input_from_journal("place_bet", journal.rows[2][2], "ann") == PlaceBet("1", "heads", Decimal("2.00"),
                                                                                    actor="ann")
