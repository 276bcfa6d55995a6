"""Typed records: every table event is a frozen record of its kind, every
action a frozen input record; journaled inputs carry their schema version,
and the one codec reads back what it wrote, from any version it knows."""

from __future__ import annotations

import dataclasses
from decimal import Decimal

import pytest

from drivers.events import CardRead
from tablecore.cards import parse_dealt
from tablecore.codec import SCHEMA_VERSION, decode, encode
from tablecore.errors import IllegalAction
from tablecore.records import RECORDS, BetPlaced, Instruction, table_record
from tablesim.engine.inputs import OpenRound, PlaceBet, Report, Void
import tablesim.journal.codec  # noqa: F401  (registers the device reports)


def test_an_event_is_a_frozen_record_of_its_kind_with_exactly_its_fields():
    rec = table_record("bet", {"position": "3", "bet": "ante", "amount": "10"})
    assert isinstance(rec, BetPlaced) and rec.KIND == "bet"
    assert rec.as_data() == {"position": "3", "bet": "ante", "amount": "10"}  # no "change": not carried
    with pytest.raises(dataclasses.FrozenInstanceError):
        rec.amount = "20"  # type: ignore[misc]
    assert table_record("instruction", {"text": "no more bets"}).as_data() == {"text": "no more bets"}
    assert Instruction("spin", min_turns=3).as_data() == {"text": "spin", "min_turns": 3}


def test_an_event_kind_never_grows_keys():
    with pytest.raises(TypeError):
        table_record("bet", {"position": "3", "bet": "ante", "amount": "10", "plyer": "x"})
    with pytest.raises(TypeError):
        table_record("no_such_kind", {})


def test_every_kind_has_slots_and_is_registered_with_the_codec():
    for kind, cls in RECORDS.items():
        assert cls.KIND == kind and "__slots__" in vars(cls)
        assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen


def test_a_table_hands_out_records(tmp_path):
    from drivers.mock import MockShoe, ScriptedCards
    from tablesim.games.fortune3.profile import load_profile
    from tablesim.games.fortune3.profile import Fortune3Settings
    from tablesim.games.fortune3.table import Fortune3Table

    table = Fortune3Table(load_profile(), Fortune3Settings(dealing="shoe"), shoe=MockShoe(ScriptedCards([])))
    seen = []
    table.bus.subscribe(seen.append)
    table.open_round()
    table.place_bet("1", "ante", 10)
    kinds = [(e.kind, type(e.record).__name__) for e in seen]
    assert ("state", "StateChanged") in kinds and ("bet", "BetPlaced") in kinds
    assert all(e.data == e.record.as_data() for e in seen)


def test_an_input_record_says_its_schema_and_reads_back():
    card = CardRead("R-1", 0, parse_dealt("AS").card, False, device="shoe")
    rec = Report(card, actor="shoe")
    data = rec.to_journal(nested=True)
    assert data["schema"] == SCHEMA_VERSION and data["nested"] is True
    assert data["args"][0]["$event"] == "CardRead"
    assert Report.from_journal(data, "shoe") == rec
    bet = PlaceBet("1", "ante", Decimal("12.50"), actor="dealer:ana")
    assert bet.to_journal() == {"args": ["1", "ante", {"$dec": "12.50"}], "kwargs": {}, "schema": SCHEMA_VERSION}
    assert PlaceBet.from_journal(bet.to_journal(), "dealer:ana") == bet
    void = Void("misdeal", actor="pit boss", why="camera")
    assert void.to_journal()["kwargs"] == {"actor": "pit boss", "why": "camera"}
    assert Void.from_journal(void.to_journal(), "pit boss") == void


def test_a_version_1_input_reads_back_and_a_later_version_is_refused():
    v1 = {"args": ["1", "ante", {"$dec": "10"}], "kwargs": {}}  # as that release wrote it
    assert PlaceBet.from_journal(v1, "player") == PlaceBet("1", "ante", Decimal(10), actor="player")
    with pytest.raises(ValueError, match="schema"):
        PlaceBet.from_journal({**v1, "schema": SCHEMA_VERSION + 1})


def test_an_input_record_is_frozen_names_who_asked_and_is_what_the_table_takes():
    from drivers.mock import MockShoe, ScriptedCards
    from tablesim.games.fortune3.machine import Decide
    from tablesim.games.fortune3.profile import load_profile
    from tablesim.games.fortune3.profile import Fortune3Settings
    from tablesim.games.fortune3.table import Fortune3Table

    rec = Decide("1", "play", actor="ann")
    with pytest.raises(dataclasses.FrozenInstanceError):
        rec.box = "2"  # type: ignore[misc]
    assert rec.arguments() == (("1", "play"), {})
    table = Fortune3Table(load_profile(), Fortune3Settings(dealing="shoe"), shoe=MockShoe(ScriptedCards([])))
    table.act(OpenRound())
    table.act(PlaceBet("1", "ante", Decimal(10), actor="ann"))
    assert table.book.get("1", "ante") == Decimal(10)
    with pytest.raises(IllegalAction, match="decisions are taken once all hands are dealt"):
        table.act(rec)


def test_the_codec_round_trips_records():
    for rec in (BetPlaced("3", "ante", "10", change=True), BetPlaced("3", "ante", "10")):
        assert decode(encode(rec)) == rec
    assert encode(BetPlaced("3", "ante", "10")) == {"$record": "BetPlaced", "position": "3", "bet": "ante", "amount": "10"}


def test_a_game_declares_its_own_events_in_its_folder_and_cannot_take_the_engines_kinds():
    from tablecore.records import TableRecord, table_event
    from tablesim.games.wheel.machine import SpinResult

    assert RECORDS["spin_result"] is SpinResult and SpinResult.__module__ == "tablesim.games.wheel.machine"
    assert encode(SpinResult(3, "x2", Decimal("4.5"), "cw"))["$record"] == "SpinResult"
    with pytest.raises(TypeError, match="'bet'"):
        @table_event("bet")
        @dataclasses.dataclass(frozen=True, slots=True)
        class MyBet(TableRecord):
            amount: str


def test_no_table_emits_an_event_by_its_kind_name():
    from pathlib import Path

    import tablesim

    root = Path(tablesim.__file__).parent
    assert [str(p) for p in root.rglob("*.py") if '.emit("' in p.read_text()] == []
