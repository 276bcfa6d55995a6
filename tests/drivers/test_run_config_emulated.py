"""``tablesim run --config FILE --emulated``: every example configuration
with devices plays three rounds with each device on its emulator (TDL/1
over a pty, the emulated USB reader, the line emulators), none void, under
a table id of its own so a live table's journal and round ids are never
touched."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from leakcheck import no_leaks  # noqa: F401 - autouse fixture
from line_support import example_configs
from tablesim.cli.main import cli
from tablesim.harness.tableconfig import load_table_config

CONFIGS = example_configs()


def invoke(*args: str):
    result = CliRunner().invoke(cli, list(args), env={"COLUMNS": "200"})
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def test_every_kind_of_example_is_covered():
    backends = {d.backend for name in CONFIGS for d in load_table_config(name).devices.values()}
    assert {"line", "serial", "usb", "hid", "mock"} <= backends
    assert {"fortune3-line", "wheel-line", "football-line"} <= set(CONFIGS)


@pytest.mark.parametrize("name", CONFIGS)
def test_each_example_plays_three_rounds_emulated(name):
    config = load_table_config(name)
    result = invoke("run", "--config", name, "--emulated", "--rounds", "3", "--journal", "none", "--seed", "11",
                    "--time-scale", "0")
    assert result.exit_code == 0, result.output
    table_id = f"{config.table_id}-EMU"
    assert re.findall(rf"^{table_id}-00000(\d)", result.stdout, re.M) == ["1", "2", "3"], result.stdout
    assert "3 round(s) played (0 void)" in result.stdout, result.stdout
    for kind, device in config.devices.items():
        assert f"{kind} {device.backend}" in result.stdout.splitlines()[0]


def test_a_fault_for_a_line_device_goes_to_its_emulator():
    result = invoke("run", "--config", "fortune3-line", "--emulated", "--rounds", "1", "--journal", "none",
                    "--time-scale", "0", "--fault", "shoe:jam@hand=1")
    assert result.exit_code == 2 and "line emulators take noise@line=N, silent@after=S" in result.output


def test_emulated_config_refuses_a_recording():
    result = invoke("run", "--config", "wheel-line", "--emulated", "--rounds", "1", "--record", "x.jsonl")
    assert result.exit_code == 2 and "--record applies to" in result.output
