"""``tablesim run --emulated`` and ``tablesim run --config``: whole sessions
on the emulators behind the real serial drivers, and on a table
configuration's devices, run in this process with click's CliRunner (so the
leak check sees every thread and descriptor they used).

The emulators run at time scale 0: as fast as the link allows."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from tablesim.cli.main import cli
from test_serial_support import no_leaks  # noqa: F401 - fixture (autouse): no thread or fd left behind

ROOT = Path(__file__).resolve().parents[2]
TABLES = ROOT / "config" / "tables"
FAST = ["--time-scale", "0"]


def run(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["run", *args], env={"COLUMNS": "200", **(env or {})})
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.output


def summary(output: str) -> tuple[int, int]:
    """(rounds played, rounds void) from the closing summary."""
    found = re.search(r"(\d+) round\(s\) played \((\d+) void\)", output)
    assert found, output
    return int(found.group(1)), int(found.group(2))


def round_lines(output: str, prefix: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith(prefix)]


@pytest.mark.parametrize("game, options, head", [
    ("fortune3", [], "F3-EMU-"),
    ("fortune3", ["--dealing", "shuffler"], "F3-EMU-"),
    ("football", [], "FB-EMU-"),
    ("football", ["--decks", "6"], "FB-EMU-"),
    ("wheel", [], "WHEEL-EMU-"),
], ids=["fortune3-shoe", "fortune3-shuffler", "football-1deck", "football-6decks", "wheel"])
def test_run_emulated_settles_every_round(game, options, head):
    code, output = run("--game", game, *options, "--emulated", "--rounds", "3", "--seed", "5", "--journal", "none",
                       *FAST)
    assert code == 0, output
    assert summary(output) == (3, 0)
    assert "emulated devices over the serial drivers" in output
    rounds = round_lines(output, head)
    assert [line.split()[0].rstrip(":") for line in rounds] == [f"{head}{n:06d}" for n in (1, 2, 3)]
    assert not any("void" in line for line in rounds)
    if game == "football":
        decks = "one deck" if not options else "6 decks"
        assert decks in output and "seeded draws" in output
    if game == "wheel":
        assert "no spins called: 0" in output


def test_the_same_seed_gives_the_same_session():
    first = run("--game", "football", "--emulated", "--rounds", "2", "--seed", "9", "--journal", "none", *FAST)
    again = run("--game", "football", "--emulated", "--rounds", "2", "--seed", "9", "--journal", "none", *FAST)
    assert first[0] == again[0] == 0
    draws = [round_lines(out, "FB-EMU-") for _, out in (first, again)]
    assert draws[0] == draws[1] and len(draws[0]) == 2


@pytest.mark.parametrize("args, expect", [
    (["--game", "fortune3", "--fault", "shoe:misread@card=3"], "F3-EMU-000001: void (misread); every bet returned"),
    (["--game", "fortune3", "--dealing", "shuffler", "--fault", "shuffler:jam@hand=2"],
     "F3-EMU-000001: void (shuffler_fault); every bet returned"),
    (["--game", "football", "--fault", "display:readback"],
     "FB-EMU-000001: void (display_fault); every bet returned"),
], ids=["shoe-misread", "shuffler-jam", "display-readback"])
def test_an_emulator_fault_voids_the_first_round_by_the_rules(args, expect):
    code, output = run(*args, "--emulated", "--rounds", "2", "--seed", "5", "--journal", "none", *FAST)
    assert code == 0, output
    head = expect.split(":")[0][:-6]
    assert round_lines(output, head)[0] == expect, output
    assert summary(output) == (2, 1), output  # the next round is played as usual


def test_a_short_spin_is_a_no_spin_and_the_wheel_is_spun_again():
    code, output = run("--game", "wheel", "--fault", "wheel:short-spin@spin=1", "--emulated", "--rounds", "2",
                       "--seed", "5", "--journal", "none", *FAST)
    assert code == 0, output
    first = round_lines(output, "WHEEL-EMU-000001")[0]
    assert re.match(r"WHEEL-EMU-000001  no spin \(\d\.\d+ turns\), segment \d+ -> ", first), first
    assert "no spin" not in round_lines(output, "WHEEL-EMU-000002")[0]
    assert "no spins called: 1" in output
    assert summary(output) == (2, 0)


def test_run_config_with_the_mock_table_configuration():
    code, output = run("--config", str(TABLES / "fortune3-mock.toml"), "--rounds", "3", "--seed", "2",
                       "--journal", "none")
    assert code == 0, output
    assert f"table F3-MOCK from {TABLES / 'fortune3-mock.toml'} (shoe mock)" in output
    assert summary(output) == (3, 0)
    assert len(round_lines(output, "F3-MOCK-")) == 3
    code, by_name = run("--config", "fortune3-mock", "--rounds", "1", "--journal", "none", "--quiet")
    assert code == 0 and summary(by_name) == (1, 0)


def test_run_config_with_a_serial_port_that_does_not_exist(tmp_path):
    config = tmp_path / "f3.toml"
    config.write_text((TABLES / "fortune3-serial.toml").read_text().replace("/dev/ttyUSB0", str(tmp_path / "ttyNOPE")))
    journal = tmp_path / "j.sqlite"
    code, output = run("--config", str(config), "--rounds", "1", "--journal", str(journal))
    assert code == 2
    assert output.count("\n") == 1, output
    assert output.startswith(f"tablesim: error: {config}: devices.shoe.url: shoe: cannot open "), output
    assert output.rstrip().endswith("(which device answers on which port: tablesim devices --probe)")
    assert str(tmp_path / "ttyNOPE") in output
    assert not journal.exists()


@pytest.mark.parametrize("args, message", [
    (["--game", "fortune3"], "choose one device mode: --mock, --emulated or --config FILE"),
    (["--game", "fortune3", "--mock", "--emulated"], "(not --mock and --emulated)"),
    (["--game", "fortune3", "--mock", "--config", "fortune3-mock"], "(not --mock and --config)"),
    (["--game", "fortune3", "--mock", "--fault", "shoe:misread"], "--fault applies to --emulated"),
    (["--config", "fortune3-mock", "--fault", "shoe:misread"], "--fault applies to --emulated"),
    (["--emulated"], "--game is required"),
    (["--game", "wheel", "--emulated", "--fault", "shoe:misread"],
     "--fault: fault 'misread' is for the shoe, which is not emulated here (wheel)"),
    (["--game", "wheel", "--emulated", "--fault", "wheel:bogus"], "--fault: unknown fault 'bogus'"),
    (["--game", "wheel", "--emulated", "--fault", "misread"], "--fault: fault 'misread' must name its device"),
    (["--config", "fortune3-mock", "--game", "wheel"], "table.game: the table runs fortune3, not wheel"),
], ids=["no-mode", "two-modes", "mock-and-config", "fault-mock", "fault-config", "no-game", "fault-kind",
        "fault-spec", "fault-no-kind", "config-game"])
def test_mode_errors_are_one_line_exit_2(tmp_path, args, message):
    journal = tmp_path / "j.sqlite"
    code, output = run(*args, "--journal", str(journal))
    assert code == 2, output
    assert output.startswith("tablesim: error: ") and output.count("\n") == 1, output
    assert message in output, output
    assert not journal.exists()


def test_an_emulated_run_with_a_journal_passes_the_audit(tmp_path):
    journal = tmp_path / "emu.journal.sqlite"
    code, output = run("--game", "fortune3", "--emulated", "--fault", "shoe:misread@card=4", "--rounds", "3",
                       "--seed", "8", "--journal", str(journal), *FAST)
    assert code == 0, output
    assert f"journal: {journal}" in output and summary(output) == (3, 1)
    audit = CliRunner().invoke(cli, ["audit", "verify", "--journal", str(journal)])
    assert audit.exit_code == 0, audit.output
    history = CliRunner().invoke(cli, ["history", "--journal", str(journal), "--last", "3", "--json"])
    assert history.exit_code == 0 and history.output.count('"round_id"') >= 3
    # the same journal again: the table goes on from round 4
    code, again = run("--game", "fortune3", "--emulated", "--rounds", "1", "--seed", "8", "--journal", str(journal),
                      *FAST)
    assert code == 0 and round_lines(again, "F3-EMU-000004"), again
    assert CliRunner().invoke(cli, ["audit", "verify", "--journal", str(journal)]).exit_code == 0


# --- idle faults in a run: they fire, or the run says they did not -----------------

def test_a_card_drawn_while_disarmed_fires_in_an_emulated_run(tmp_path):
    import json

    journal = tmp_path / "f3.sqlite"
    code, output = run("--game", "fortune3", "--fault", "shoe:disarmed@card=3", "--emulated", "--rounds", "2",
                       "--seed", "2", "--journal", str(journal), "--time-scale", "0.02")
    assert code == 0, output
    assert "did not fire" not in output
    assert summary(output) == (2, 0)  # flagged and set aside: no round is void for it
    res = CliRunner().invoke(cli, ["history", "--journal", str(journal), "--json"])
    events = [e for line in res.stdout.splitlines() for e in json.loads(line)["events"]]
    assert any(e["kind"] == "incident" and e.get("code") == 204 for e in events), events


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_idle_motion_fires_in_an_emulated_wheel_run(seed):
    code, output = run("--game", "wheel", "--fault", "wheel:idle-motion@spin=1", "--emulated", "--rounds", "2",
                       "--seed", str(seed), "--journal", "none", "--time-scale", "0.02")
    assert code == 0, output
    assert output.count("incident: wheel moved while the sensor was idle") == 1, output
    assert "did not fire" not in output


def test_a_fault_whose_position_never_comes_is_reported():
    code, output = run("--game", "wheel", "--fault", "wheel:idle-motion@spin=50", "--emulated", "--rounds", "1",
                       "--seed", "1", "--journal", "none", *FAST)
    assert code == 0, output
    assert ("fault wheel:idle-motion@spin=50 did not fire: the run ended before it was due" in output), output
