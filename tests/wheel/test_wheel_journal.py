"""The wheel table with a journal: power loss mid-round, recovery, invariants."""

from __future__ import annotations

from decimal import Decimal

from drivers.mock.wheel import MockWheelSensor, ScriptedSpins, Spin
from tablesim.journal.invariants import check
from tablesim.journal.recovery import recover
from tablesim.journal.journal import Journal
from tablesim.games.wheel.machine import S
from tablesim.games.wheel.profile import load_profile
from tablesim.games.wheel.profile import WheelSettings
from tablesim.games.wheel.table import WheelTable

PROFILE = load_profile()


def new_table(journal, spins=()):
    sensor = MockWheelSensor(ScriptedSpins(spins))
    table = WheelTable(PROFILE, WheelSettings.for_profile(PROFILE), sensor=sensor, table_id="WJ")
    table.attach_journal(journal)
    return table, sensor


def spin_out(table, sensor):
    while table.state in (S.BETS_CLOSED, S.SPINNING):
        table.handle(sensor.next_event(0))


def test_power_loss_while_spinning_calls_no_spin_and_keeps_the_bets(tmp_path):
    journal = Journal(tmp_path / "wj.sqlite", durable=False)
    table, sensor = new_table(journal, [Spin(27, 6.0)])
    table.open_round()
    table.place_bet("alice", "joker", 2)
    table.place_bet("bob", "1", 10)
    table.change_bet("bob", "1", 4)
    table.close_betting()
    for _ in range(3):  # spin started, two revolutions ... then the power goes
        table.handle(sensor.next_event(0))
    assert table.state is S.SPINNING
    del table

    table, sensor = new_table(journal, [Spin(1, 4.5)])
    report = recover(table, journal)
    assert report is not None and report.action == "resume" and report.state == "spinning"
    assert table.state is S.BETS_CLOSED and sensor.armed
    assert table.no_spins == 1 and table.spins[-1]["reason"] == "power_loss"
    assert table.book.snapshot() == {"alice": {"joker": "2"}, "bob": {"1": "4"}}
    spin_out(table, sensor)
    assert table.result.outcome == {"segment": 1, "symbol": "3", "no_spins": 1}
    assert table.result.results == {"alice": {"joker": Decimal(-2)}, "bob": {"1": Decimal(-4)}}
    assert check(journal, allow_open_last=False) == []


def test_power_loss_after_no_more_bets_rearms_the_sensor(tmp_path):
    journal = Journal(tmp_path / "wj.sqlite", durable=False)
    table, _ = new_table(journal)
    table.open_round()
    table.place_bet("carol", "20", 5)
    table.close_betting()
    table, sensor = new_table(journal, [Spin(13, 3.2)])
    report = recover(table, journal)
    assert report.state == "bets_closed" and sensor.armed
    spin_out(table, sensor)
    assert table.result.results == {"carol": {"20": Decimal(100)}}
    assert check(journal, allow_open_last=False) == []


def test_a_voided_round_returns_exactly_what_was_accepted(tmp_path):
    journal = Journal(tmp_path / "wj.sqlite", durable=False)
    table, _ = new_table(journal)
    table.open_round()
    table.place_bet("dave", "5", 5)
    table.place_bet("dave", "5", 5)
    table.change_bet("dave", "5", 3)
    table.place_bet("erin", "logo", 1)
    table.withdraw_bet("erin", "logo")
    table.close_betting()
    result = table.void("dealer_error")
    assert result.bets == {"dave": {"5": Decimal(3)}}
    assert check(journal, allow_open_last=False) == []
