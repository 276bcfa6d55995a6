"""The engine's shared parts: bet book, limits, transition tables, results, stats, readers."""

from __future__ import annotations

import enum
from decimal import Decimal as D

import pytest

from tablesim.engine.betbook import BetBook
from tablesim.engine.events import EventBus
from tablesim.engine.limits import Limit, Limits
from tablesim.engine.machine import Procedure, mermaid, steps
from tablesim.engine.result import RoundResult
from tablesim.engine.stats import SessionStats
from tablecore.errors import ConfigError, IllegalAction, InputError
from tablecore.validate import Reader
from tablecore.records import Instruction
from tablesim.games.wheel.machine import Revolution

# --- BetBook ------------------------------------------------------------------------


def book(limits: Limits | None = None) -> BetBook:
    def position_ok(p: str) -> str | None:
        return None if p in {"1", "2", "3"} else f"no position {p!r}"

    return BetBook(("a", "b"), limits or Limits({"a": Limit(D(1), D(100))}, unit=D("0.1")), position_ok)


def test_bets_accumulate_exactly():
    b = book()
    b.place("1", "a", "2.5")
    b.place("1", "a", 0.1)
    b.place("2", "b", 7)
    assert b.get("1", "a") == D("2.6")
    assert b.total() == D("9.6")
    assert b.snapshot() == {"1": {"a": "2.6"}, "2": {"b": "7"}}
    assert list(b.items()) == [("1", "a", D("2.6")), ("2", "b", D(7))]
    assert b.positions() == ["1", "2"]


@pytest.mark.parametrize(
    "position, bet, amount, why",
    [("9", "a", 5, "no position"), ("1", "c", 5, "unknown bet"), ("1", "a", 0, "amount"),
     ("1", "a", -1, "amount"), ("1", "a", "x", "amount"), ("2", "a", "0.5", "minimum"), ("1", "a", 101, "limit"),
     ("1", "a", "2.55", "whole multiple of the table's betting unit 0.1")],
)
def test_bad_bets_change_nothing(position, bet, amount, why):
    b = book()
    b.place("1", "a", 50)
    before = b.snapshot()
    with pytest.raises(IllegalAction) as info:
        b.place(position, bet, amount)
    assert why in info.value.reason
    assert b.snapshot() == before


def test_limit_applies_to_the_total_on_a_spot():
    b = book()
    b.place("1", "a", 60)
    with pytest.raises(IllegalAction):
        b.place("1", "a", 41)
    b.place("1", "a", 40)
    b.place("2", "a", 100)  # another position has its own limit
    assert b.total() == D(200)


def test_withdraw():
    b = book()
    b.place("1", "a", 5)
    b.place("1", "b", 5)
    assert b.withdraw("1", "a") == D(5)
    assert b.snapshot() == {"1": {"b": "5"}}
    assert b.withdraw("1", "b") == D(5)
    assert b.bets == {}  # an emptied position disappears
    with pytest.raises(IllegalAction):
        b.withdraw("1", "b")


def test_check_does_not_place():
    b = book()
    assert b.check("1", "a", "12.50") == D("12.5")
    assert b.bets == {}


# --- Limits -----------------------------------------------------------------------------


def test_limits_parse_with_default():
    r = Reader({"default": {"min": 1, "max": 500}, "b": {"min": "0.5", "max": 50}, "unit": "0.01"},
               "limits", file="t.toml")
    lim = Limits.parse(r, ("a", "b"))
    assert lim.by_bet["a"] == Limit(D(1), D(500))
    assert lim.by_bet["b"] == Limit(D("0.5"), D(50))
    assert lim.check("a", D(500)) is None and lim.check("a", D("500.01"))
    assert lim.check("b", D("0.4"))
    assert lim.unit == D("0.01") and lim.payout_unit == D("0.01")


def test_limits_unit_defaults_to_one_and_refuses_fractions():
    lim = Limits.parse(Reader({"a": {"min": 5, "max": 500}}, "limits"), ("a",))
    assert lim.unit == D(1)
    assert lim.check("a", D(10)) is None
    assert "whole multiple of the table's betting unit 1" in lim.check("a", D("10.5"))
    assert "whole multiple" in lim.check("a", D("10.0000000000001"))


@pytest.mark.parametrize(
    "data, field, why",
    [({"unit": 0}, "limits.unit", "more than 0"),
     ({"unit": "0.001"}, "limits.unit", "payout units"),
     ({"unit": 5, "a": {"min": 1, "max": 100}}, "limits.a.min", "multiple of the betting unit 5"),
     ({"unit": "1e2"}, "limits.unit", "exponent"),
     ({"payout_unit": "-1"}, "limits.payout_unit", "positive")],
)
def test_limits_units_checked(data, field, why):
    with pytest.raises(ConfigError) as info:
        Limits.parse(Reader(data, "limits"), ("a",))
    assert info.value.where == field and why in info.value.message


@pytest.mark.parametrize(
    "data, field",
    [({"c": {"min": 1, "max": 2}}, "limits.c"), ({"a": {"min": 0, "max": 2}}, "limits.a"),
     ({"a": {"min": 3, "max": 2}}, "limits.a"), ({"a": {"min": 1}}, "limits.a.max"),
     ({"a": {"min": 1, "max": 2, "mx": 3}}, "limits.a.mx"), ({"a": {"min": "one", "max": 2}}, "limits.a.min")],
)
def test_limits_parse_errors_are_located(data, field):
    with pytest.raises(ConfigError) as info:
        Limits.parse(Reader(data, "limits", file="t.toml"), ("a", "b"))
    assert info.value.where == f"t.toml: {field}"


# --- Reader ------------------------------------------------------------------------------


def test_reader_locates_every_error():
    r = Reader({"n": "x", "s": 3, "l": {}, "t": [], "b": "yes", "sub": {"k": 1}}, file="f.yaml", error=InputError)
    for call, field in ((lambda: r.int("n"), "n"), (lambda: r.str("s"), "s"), (lambda: r.list("l"), "l"),
                        (lambda: r.sub("t"), "t"), (lambda: r.bool("b"), "b"), (lambda: r.raw("missing"), "missing"),
                        (lambda: r.sub("sub").str("k"), "sub.k")):
        with pytest.raises(InputError) as info:
            call()
        assert info.value.where == f"f.yaml: {field}"
    with pytest.raises(InputError):
        Reader([1, 2], file="f.yaml")


def test_reader_rejects_unknown_keys():
    r = Reader({"a": 1, "typo": 2}, file="f.toml")
    r.int("a")
    with pytest.raises(ConfigError) as info:
        r.reject_unknown()
    assert info.value.where == "f.toml: typo" and "unknown key" in info.value.message


def test_reader_int_refuses_bool_and_range():
    r = Reader({"a": True, "b": 9}, file="f")
    with pytest.raises(ConfigError):
        r.int("a")
    with pytest.raises(ConfigError, match="outside 1..7"):
        r.int("b", lo=1, hi=7)


def test_input_error_located():
    e = InputError("bad", where="bets.1").located("f.yaml: round 2")
    assert str(e) == "f.yaml: round 2: bets.1: bad"
    assert str(InputError("bad").located("f.yaml")) == "f.yaml: bad"


# --- transitions as data -------------------------------------------------------------------


class St(enum.Enum):
    A = "a"
    B = "b"
    C = "c"


def test_steps_and_mermaid():
    table = steps([("go", St.A, St.B), ("stop", (St.A, St.B), St.C)])
    assert [s.sources for s in table] == [(St.A,), (St.A, St.B)]
    text = mermaid(Procedure(St, St.A, (St.C,), table))
    assert text.splitlines() == [
        "stateDiagram-v2",
        "    [*] --> a",
        "    a --> b: go",
        "    a --> c: stop",
        "    b --> c: stop",
        "    c --> [*]",
    ]


# --- results and stats -------------------------------------------------------------------------


def test_round_result_json_and_net():
    r = RoundResult("fortune3", "T-1", "settled", results={
        "1": {"ante": D("2.50"), "play": D("2.5"), "ante_bonus": D("12.50"), "pair_plus": D("-1.5")},
        "2": {"ante": D(0), "play": D("-0")},
    })
    j = r.as_json()
    assert j["results"]["1"] == {"ante": "2.5", "play": "2.5", "ante_bonus": "12.5", "pair_plus": "-1.5"}
    assert j["results"]["2"] == {"ante": "0", "play": "0"}
    assert j["net"] == {"1": "16", "2": "0"}
    assert r.house_result() == D(-16)
    assert set(j) == {"game", "status", "void_reason", "outcome", "results", "net"}


def test_void_result_json():
    r = RoundResult("fortune3", "T-1", "void", void_reason="misdeal", bets={"1": {"ante": D(10)}})
    assert r.as_json() == {"game": "fortune3", "status": "void", "void_reason": "misdeal", "outcome": {},
                           "results": {}, "net": {}}


def test_session_stats():
    s = SessionStats()
    won = RoundResult("fortune3", "1", "settled", results={"1": {"ante": D(10), "play": D(10), "ante_bonus": D(40)}},
                      bets={"1": {"ante": D(10)}}, stakes={"1": {"ante": D(10), "play": D(10)}})
    s.add(won, fold_into={"ante_bonus": "ante"})
    s.add(RoundResult("fortune3", "2", "void", void_reason="misdeal", bets={"1": {"ante": D(10)}}))
    assert s.rounds == 2 and s.void == 1
    assert s.by_bet["ante"].wagered == D(10) and s.by_bet["ante"].player_net == D(50)
    assert s.wagered == D(20) and s.house_result == D(-60)
    assert s.by_bet["play"].hold == D(-1)


def test_event_bus_numbers_events_and_feeds_subscribers():
    bus = EventBus()
    got = []
    bus.subscribe(got.append)
    bus.publish(Revolution(1), "R-1")
    bus.publish(Instruction("spin"), "R-1")
    assert [(e.seq, e.kind, e.round_id, e.data) for e in got] == [(1, "revolution", "R-1", {"n": 1}),
                                                                  (2, "instruction", "R-1", {"text": "spin"})]
    assert got[0].as_dict() == {"seq": 1, "kind": "revolution", "round_id": "R-1", "n": 1}


def test_a_published_event_is_the_table_event_its_fields_say():
    from dataclasses import fields

    from tablecore.records import BetPlaced
    from tablesim.engine.events import EventBus, TableEvent

    bus = EventBus()
    seen = []
    bus.subscribe(seen.append)
    record = BetPlaced("3", "ante", "10")
    bus.publish(record, "T-000001")
    assert seen == [TableEvent(1, "bet", "T-000001", {"position": "3", "bet": "ante", "amount": "10"}, record)]
    assert list(vars(seen[0])) == [f.name for f in fields(TableEvent)]
