"""The wheel table's round: betting, no more bets, spins, no-spins, incidents, faults, void."""

from __future__ import annotations

from dataclasses import replace

from decimal import Decimal

import pytest

from drivers.events import FaultRaised, InvalidSpin, Revolution, SpinResult, SpinStarted
from drivers.mock.wheel import MockWheelSensor, ScriptedSpins, Spin, WheelFault
from tablecore.errors import IllegalAction
from tablesim.games.wheel.machine import S
from tablesim.games.wheel.profile import load_profile
from tablesim.games.wheel.profile import WheelSettings, default_limits
from tablesim.games.wheel.table import WheelTable

PROFILE = load_profile()
# a segment of each symbol in the default layout
SEGMENT_OF = {"1": 0, "3": 1, "5": 3, "10": 7, "20": 13, "joker": 27, "logo": 51}


def make_table(spins=(), faults=()):
    source = ScriptedSpins(spins)
    sensor = MockWheelSensor(source, faults)
    # stakes in cents (the default table's unit is 1)
    limits = replace(default_limits(PROFILE.spots), unit=Decimal("0.01"))
    table = WheelTable(PROFILE, WheelSettings.for_profile(PROFILE, limits=limits), sensor=sensor, table_id="T")
    events = []
    table.bus.subscribe(events.append)
    return table, sensor, events


def spin_out(table, sensor):
    """Let the sensor report until the round settles or voids."""
    while table.state in (S.BETS_CLOSED, S.SPINNING):
        event = sensor.next_event(0)
        assert event is not None, "the sensor ran out of spins"
        table.handle(event)


@pytest.mark.parametrize("symbol", list(SEGMENT_OF))
def test_each_symbol_wins_at_its_pay_and_every_other_bet_loses(symbol):
    table, sensor, _ = make_table([Spin(SEGMENT_OF[symbol], 4.2)])
    table.open_round()
    for spot in PROFILE.spots:
        table.place_bet("p", spot, 10)
    table.place_bet("q", symbol, "2.5")
    table.close_betting()
    spin_out(table, sensor)
    result = table.result
    assert result.status == "settled"
    assert result.outcome == {"segment": SEGMENT_OF[symbol], "symbol": symbol, "no_spins": 0}
    pays = PROFILE.pays(symbol)
    for spot in PROFILE.spots:
        assert result.results["p"][spot] == (10 * pays if spot == symbol else -10)
    assert result.results["q"] == {symbol: Decimal("2.5") * pays}
    assert result.net["p"] == 10 * pays - 60
    assert table.state is S.COMPLETE


def test_a_short_spin_is_a_no_spin_bets_stay_and_it_is_counted():
    table, sensor, events = make_table([Spin(27, 2.99), Spin(51, 0.4), Spin(1, 3.0)])
    table.open_round()
    table.place_bet("alice", "joker", 5)
    table.place_bet("bob", "3", 10)
    table.close_betting()
    spin_out(table, sensor)
    result = table.result
    # segment 27 (joker) turned 2.99 times: not a result, the joker bet did not win
    assert result.outcome == {"segment": 1, "symbol": "3", "no_spins": 2}
    assert result.results == {"alice": {"joker": Decimal(-5)}, "bob": {"3": Decimal(30)}}
    no_spins = [e for e in events if e.kind == "no_spin"]
    assert [(e.data["reason"], e.data["count"]) for e in no_spins] == [("few_turns", 1), ("few_turns", 2)]
    assert [s["counts"] for s in table.spins] == [False, False, True]


@pytest.mark.parametrize("reason", ["peg", "reversed", "early_motion", "timeout", "few_turns"])
def test_an_invalid_spin_reported_by_the_sensor_is_a_no_spin(reason):
    table, sensor, _ = make_table([Spin(None, 5.0, "CCW", reason), Spin(3, 5.5)])
    table.open_round()
    table.place_bet("a", "5", 1)
    table.close_betting()
    spin_out(table, sensor)
    assert table.result.outcome["no_spins"] == 1
    assert table.result.results == {"a": {"5": Decimal(5)}}
    assert table.spins[0]["reason"] == reason


def test_the_table_decides_no_spin_even_when_the_sensor_calls_it_a_result():
    table, _, _ = make_table()
    table.open_round()
    table.place_bet("a", "logo", 1)
    table.close_betting()
    table.handle(SpinStarted(table.round_id, "CW"))
    table.handle(Revolution(table.round_id, 1))
    table.handle(Revolution(table.round_id, 2))
    table.handle(SpinResult(table.round_id, 51, 2.999, "CW"))  # a RES with too few turns
    assert table.state is S.BETS_CLOSED
    assert table.no_spins == 1 and table.result is None


def test_the_minimum_comes_from_the_profile():
    from dataclasses import replace

    strict = replace(PROFILE, min_turns=5)
    sensor = MockWheelSensor(ScriptedSpins([Spin(3, 4.9), Spin(7, 5.0)]))
    table = WheelTable(strict, WheelSettings.for_profile(strict), sensor=sensor)
    table.open_round()
    table.place_bet("a", "10", 1)
    table.close_betting()
    spin_out(table, sensor)
    assert table.result.outcome == {"segment": 7, "symbol": "10", "no_spins": 1}
    assert sensor.min_turns == 5


def _closed_table():
    table, sensor, _ = make_table([Spin(3, 1.0), Spin(3, 4.0)])
    table.open_round()
    table.place_bet("alice", "5", 10)
    table.close_betting()
    return table, sensor


@pytest.mark.parametrize("when", ["bets_closed", "spinning", "after_a_no_spin"])
def test_no_bet_is_accepted_changed_or_withdrawn_after_no_more_bets(when):
    table, sensor = _closed_table()
    if when == "spinning":
        table.handle(sensor.next_event(0))  # SpinStarted
        assert table.state is S.SPINNING
    elif when == "after_a_no_spin":
        while table.no_spins == 0:
            table.handle(sensor.next_event(0))
        assert table.state is S.BETS_CLOSED
    before = table.book.snapshot()
    with pytest.raises(IllegalAction, match="betting is closed"):
        table.place_bet("bob", "1", 5)
    with pytest.raises(IllegalAction, match="betting is closed"):
        table.place_bet("alice", "5", 5)
    with pytest.raises(IllegalAction, match="betting is closed") as info:
        table.change_bet("alice", "5", 20)
    assert info.value.action == "change"
    with pytest.raises(IllegalAction, match="betting is closed") as info:
        table.withdraw_bet("alice", "5")
    assert info.value.action == "withdraw"
    assert table.book.snapshot() == before
    spin_out(table, sensor)
    assert table.result.results == {"alice": {"5": Decimal(50)}}


def test_while_betting_is_open_bets_can_be_changed_and_withdrawn():
    table, sensor, _ = make_table([Spin(3, 4.0)])
    table.open_round()
    table.place_bet("alice", "5", 10)
    table.place_bet("alice", "5", 5)  # adds up
    table.place_bet("bob", "1", 5)
    assert table.book.get("alice", "5") == 15
    table.change_bet("alice", "5", 2)
    assert table.book.get("alice", "5") == 2
    table.withdraw_bet("bob", "1")
    with pytest.raises(IllegalAction, match="no bet on 1"):
        table.change_bet("bob", "1", 3)
    with pytest.raises(IllegalAction, match="unknown spot 'tiger'"):
        table.place_bet("bob", "tiger", 3)
    with pytest.raises(IllegalAction, match="must be positive"):
        table.place_bet("bob", "1", 0)
    with pytest.raises(IllegalAction, match="must be positive"):
        table.change_bet("alice", "5", -1)
    assert table.book.snapshot() == {"alice": {"5": "2"}}
    table.close_betting()
    spin_out(table, sensor)
    assert table.result.results == {"alice": {"5": Decimal(10)}}


def test_a_spin_result_before_bets_closed_is_an_incident_not_a_result():
    table, sensor, events = make_table([Spin(1, 4.0)])
    table.open_round()
    table.place_bet("alice", "joker", 10)
    table.handle(SpinStarted(table.round_id, "CW"))
    table.handle(SpinResult(table.round_id, 27, 5.0, "CW"))  # joker, while betting is open
    table.handle(InvalidSpin(table.round_id, 1.0, "peg"))
    assert table.state is S.BETTING_OPEN
    assert table.result is None and table.no_spins == 0
    assert len(table.incidents) == 3
    assert all("while bets were open" in i["what"] for i in table.incidents)
    assert [e.kind for e in events].count("incident") == 3
    table.place_bet("bob", "3", 1)  # betting goes on
    table.close_betting()
    spin_out(table, sensor)
    assert table.result.outcome["symbol"] == "3"
    assert table.result.results == {"alice": {"joker": Decimal(-10)}, "bob": {"3": Decimal(3)}}
    assert len(table.result.outcome["incidents"]) == 3


def test_motion_while_idle_reported_by_the_sensor_is_an_incident():
    table, sensor, events = make_table(
        [Spin(51, 4.0)], faults=[WheelFault("motion_while_idle", segment=27)]
    )
    table.open_round()
    table.place_bet("alice", "joker", 10)
    table.close_betting()  # takes the reports made while betting was open first
    spin_out(table, sensor)
    assert table.result.status == "settled"
    assert table.result.outcome["symbol"] == "logo"
    assert table.result.results == {"alice": {"joker": Decimal(-10)}}
    whats = [i["what"] for i in table.incidents]
    assert whats[0] == "wheel moved while the sensor was idle"
    assert any("spin result while bets were open" in w for w in whats)
    assert any(e.kind == "fault" and e.data["code"] == 506 for e in events)


def test_a_report_for_another_round_is_not_taken():
    table, sensor, _ = make_table([Spin(3, 4.0)])
    table.open_round("R1")
    table.place_bet("a", "20", 1)
    table.close_betting()
    table.handle(SpinResult("R0", 13, 6.0, "CW"))
    assert table.state is S.BETS_CLOSED and table.incidents
    spin_out(table, sensor)
    assert table.result.outcome["symbol"] == "5"


@pytest.mark.parametrize("kind,after", [("sensors_disagree", 0), ("encoder", 1), ("index_sensor", 0)])
def test_a_sensor_fault_voids_the_round_and_returns_every_bet(kind, after):
    table, sensor, events = make_table([Spin(3, 1.0), Spin(3, 4.0)], faults=[WheelFault(kind, after)])
    table.open_round()
    table.place_bet("alice", "5", 10)
    table.place_bet("bob", "logo", 2)
    table.close_betting()
    spin_out(table, sensor)
    result = table.result
    assert result.status == "void" and result.void_reason == "sensor_fault"
    assert result.results == {} and result.net == {}
    assert result.bets == {"alice": {"5": Decimal(10)}, "bob": {"logo": Decimal(2)}}
    assert result.outcome == {"no_spins": after}
    void = [e for e in events if e.kind == "void"][0]
    assert void.data["returned"] == {"alice": {"5": "10"}, "bob": {"logo": "2"}}
    assert not sensor.armed


def test_an_impossible_segment_from_the_sensor_is_a_fault_not_a_result():
    table, _, _ = make_table()
    table.open_round()
    table.place_bet("a", "1", 1)
    table.close_betting()
    table.handle(SpinResult(table.round_id, 52, 4.0, "CW"))
    assert table.result.status == "void"


def test_void_is_allowed_before_settlement_only():
    for steps in range(4):
        table, sensor, _ = make_table([Spin(0, 1.0), Spin(0, 4.0)])
        table.open_round()
        table.place_bet("a", "1", 3)
        if steps >= 1:
            table.close_betting()
        for _ in range(steps - 1):
            table.handle(sensor.next_event(0))
        assert table.state in (S.BETTING_OPEN, S.BETS_CLOSED, S.SPINNING)
        result = table.void("dealer_error")
        assert result.status == "void" and result.results == {}
        assert result.bets == {"a": {"1": Decimal(3)}}
    table, sensor, _ = make_table([Spin(0, 4.0)])
    table.open_round()
    table.place_bet("a", "1", 3)
    table.close_betting()
    spin_out(table, sensor)
    with pytest.raises(IllegalAction, match="cannot be voided"):
        table.void("late")
    assert table.result.status == "settled"


def test_a_round_cannot_start_while_one_is_in_play():
    table, _, _ = make_table()
    table.open_round()
    with pytest.raises(IllegalAction):
        table.open_round()
    table.close_betting()
    with pytest.raises(IllegalAction, match="betting is closed"):
        table.close_betting()


def test_a_sensor_error_while_betting_is_open_voids_the_round():
    table, sensor, _ = make_table()
    table.open_round()
    table.place_bet("a", "1", 3)
    table.handle(FaultRaised(503, "E", "position sensors disagree"))
    assert table.result.status == "void" and table.state is S.VOID
    table.open_round()  # the next round can start
    assert table.state is S.BETTING_OPEN and table.book.bets == {}


def test_the_machine_diagram_names_every_state():
    text = WheelTable.diagram()
    for state in S:
        assert state.value in text
    assert "bets_closed --> bets_closed: no_spin" in text
