"""How a spin's turns were obtained is the game's to weigh and the journal's
to keep: a measured count counts only when its lower bound has the full
turns (Art. 4(3)); a controller's own "no spin" is spun again like a short
spin; the source and the error are on the spin's record."""

from __future__ import annotations

from decimal import Decimal as D

from drivers.events import InvalidSpin, SpinResult, SpinStarted
from tablesim.games.wheel.machine import S
from wheel_table_support import make_table


def _closed():
    table, _, events = make_table()
    table.open_round()
    table.place_bet("a", "logo", 1)
    table.close_betting()
    table.handle(SpinStarted(table.round_id, "CW"))
    return table, events


def test_a_measured_spin_within_its_error_of_three_turns_is_spun_again():
    table, events = _closed()
    table.handle(SpinResult(table.round_id, 51, D("3.20"), "CW", "rotor_speed", D("0.25")))
    assert table.state is S.BETS_CLOSED and table.no_spins == 1  # 2.95 to 3.45 turns: maybe fewer than 3
    no_spin = [e for e in events if e.kind == "no_spin"][0].data
    assert no_spin["reason"] == "few_turns" and no_spin["turns_source"] == "rotor_speed"
    assert no_spin["turns_error"] == D("0.25")


def test_a_measured_spin_whose_lower_bound_has_three_turns_counts_and_its_source_is_recorded():
    table, events = _closed()
    table.handle(SpinResult(table.round_id, 51, D("4.00"), "CW", "revolutions", D("1")))
    assert table.state is S.COMPLETE
    record = [e for e in events if e.kind == "spin_result"][0].data
    assert record["turns"] == D("4.00") and record["turns_source"] == "revolutions" and record["turns_error"] == D(1)


def test_an_exact_count_records_its_source_and_no_error():
    table, events = _closed()
    table.handle(SpinResult(table.round_id, 51, D("3"), "CW", "field"))
    record = [e for e in events if e.kind == "spin_result"][0].data
    assert record["turns_source"] == "field" and "turns_error" not in record


def test_the_controllers_no_spin_is_spun_again_with_bets_staying():
    table, events = _closed()
    table.handle(InvalidSpin(table.round_id, D(0), "device_no_spin", "controller"))
    assert table.state is S.BETS_CLOSED and table.no_spins == 1
    no_spin = [e for e in events if e.kind == "no_spin"][0].data
    assert no_spin["reason"] == "device_no_spin" and no_spin["turns_source"] == "controller"
    table.handle(SpinStarted(table.round_id, "CW"))
    table.handle(SpinResult(table.round_id, 51, D(3), "CW", "controller"))
    assert table.result.status == "settled" and table.result.outcome["no_spins"] == 1


def test_a_controllers_no_spin_on_its_emulator_is_spun_again_end_to_end():
    from click.testing import CliRunner

    from tablesim.cli.main import cli

    result = CliRunner().invoke(cli, ["run", "--config", "wheel-line-judged", "--emulated", "--rounds", "1",
                                      "--journal", "none", "--seed", "3", "--time-scale", "0",
                                      "--fault", "wheel:nospin@spin=1"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    (line,) = [x for x in result.stdout.splitlines() if x.startswith("WH-JUDGED-EMU-000001")]
    assert "no spin (device_no_spin, 0 turns), segment" in line and "(3 turns" in line
    assert "1 round(s) played (0 void)" in result.stdout
