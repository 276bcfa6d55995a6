"""A line device's description is checked on load: a bad one is one line
naming the file, the field and the value, exit 2, and nothing opened."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from tablesim.cli.main import cli
from tablesim.harness.tableconfig import load_table_config
from tablesim.profiles import config_root

EXAMPLE = config_root() / "tables" / "fortune3-line.toml"
WHEEL = config_root() / "tables" / "wheel-line-turns.toml"
SS2 = config_root() / "tables" / "wheel-line.toml"
INDEX = config_root() / "tables" / "wheel-line-index.toml"
JUDGED = config_root() / "tables" / "wheel-line-judged.toml"
CODES = config_root() / "tables" / "fortune3-line-codes.toml"
FOOTBALL = config_root() / "tables" / "football-line.toml"


def run_config(path) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["run", "--config", str(path), "--emulated", "--rounds", "1", "--journal", "none"])
    return result.exit_code, result.output


@pytest.mark.parametrize("example", ["fortune3-line", "fortune3-line-codes", "wheel-line", "wheel-line-turns",
                                     "wheel-line-index", "wheel-line-judged", "football-line"])
def test_the_examples_load(example):
    config = load_table_config(example)
    assert {d.backend for d in config.devices.values()} == {"line"}


CASES = [
    (EXAMPLE, 'checksum = "xor-8"', 'checksum = "crc-17"', "devices.shoe.checksum: 'crc-17' is not one of"),
    (EXAMPLE, "pattern = 'C,(?P<rank>", "pattern = 'C,(?P<rnk>",
     "devices.shoe.messages[0].pattern: 'C,(?P<rnk>10|[2-9JQKA]),(?P<suit>[SHDC])': a card line needs"),
    (EXAMPLE, "pattern = 'C,(?P<rank>10|", "pattern = 'C,(?P<rank>10|(",
     "devices.shoe.messages[0].pattern: 'C,(?P<rank>10|([2-9JQKA]),(?P<suit>[SHDC])' is not a regular expression"),
    (EXAMPLE, 'event = "card"', 'event = "spin"', "devices.shoe.messages[0].event: 'spin' is not one of card"),
    (EXAMPLE, 'start = "$"', 'start = "$$"', "devices.shoe.start: '$$' must be one character"),
    (EXAMPLE, 'baudrate = 9600', 'baudrate = 9601', "devices.shoe.baudrate: 9601 is not one of"),
    (EXAMPLE, 'severity = "E"', 'severity = "X"', "devices.shoe.messages[1].severity: 'X' is not one of W, E, C"),
    (EXAMPLE, 'checksum_separator = "*"', 'checksum_separator = "*"\nparity = "E"', "devices.shoe.parity: unknown key"),
    (WHEEL, "poll_interval = 0.2", "poll_interval = 0.05", "devices.wheel.poll_interval: 0.05 is outside 0.1..3600"),
    (WHEEL, 'send = "*X"', 'send = "*X{spin}"', "devices.wheel.commands.poll.send: '*X{spin}': unknown field {spin}"),
    (WHEEL, 'result_state = ["1", "4"]', "", "devices.wheel.messages[0].result_state: missing"),
    (WHEEL, "[devices.wheel.commands.poll]", "[devices.wheel.commands.spin]",
     "devices.wheel.commands.spin: a wheel takes no 'spin' command"),
    (SS2, 'source = "rotor_speed"', 'source = "field"',
     "devices.wheel.turns.source: 'field' needs a (?P<turns>...) group on a spin line, which no message has"),
    (SS2, "(?P<speed>", "(?P<rotor>", "devices.wheel.turns.source: 'rotor_speed' needs a (?P<speed>...) group"),
    (SS2, 'no_spin_flags = "0x10"', 'no_spin_flags = "0xZZ"', "devices.wheel.turns.no_spin_flags: '0xZZ' is not a hex"),
    (SS2, '"0x04" = {', '"0x06" = {', "devices.wheel.fault_flags.0x06: '0x06' is not one bit in hex"),
    (SS2, 'source = "rotor_speed"', 'source = "spokes"', "devices.wheel.turns.source: 'spokes' is not one of"),
    (INDEX, 'I = {', 'IX = {', "devices.wheel.fault_codes.IX: no fault line's (?P<code>...) group captures 'IX'"),
    (INDEX, "event = \"revolution\"", "event = \"ignore\"",
     "devices.wheel.turns.source: 'revolutions' needs a message with event = \"revolution\""),
    (JUDGED, 'no_spin_state = ["7"]', "", "devices.wheel.turns.source: 'controller' needs no_spin_state or"),
    (CODES, "duplicate_window = 0.3", "duplicate_window = 0", "devices.shoe.messages[0].duplicate_window: 0 must be more"),
    (CODES, "duplicate_window = 0.3", "duplicate_window = -1", "devices.shoe.messages[0].duplicate_window: -1 must be"),
    (CODES, '"3" = { code = 205', '"3" = { code = 25', "devices.shoe.fault_codes.3.code:"),
    (FOOTBALL, "timeout = 1.0", "timeout = 0", "devices.display.commands.show.timeout: 0 is outside 0.01..3600"),
    (FOOTBALL, "refused = 'ERR .*'", "refused = 'ERR (.*'", "devices.display.commands.show.refused: 'ERR (.*' is not"),
]


@pytest.mark.parametrize("source, old, new, message", CASES, ids=[c[3].split(":")[0] for c in CASES])
def test_a_bad_description_is_one_line_exit_2(tmp_path, source, old, new, message):
    text = source.read_text()
    assert old in text
    path = tmp_path / "table.toml"
    path.write_text(text.replace(old, new, 1))
    code, output = run_config(path)
    assert code == 2, output
    lines = output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"tablesim: error: {path}: ") and message in lines[0], output


def test_a_format_its_own_pattern_refuses_is_said_before_anything_runs(tmp_path):
    path = tmp_path / "table.toml"
    path.write_text(EXAMPLE.read_text().replace('format = "C,{rank},{suit}"', 'format = "C;{rank};{suit}"'))
    code, output = run_config(path)
    assert code == 2 and "devices.shoe: cannot emulate it: message card: its format writes 'C;2;S'" in output, output


def test_the_line_backend_is_registered_and_checks_its_own_settings():
    from drivers.registry import backends, device_settings
    from tablecore.errors import ConfigError
    from tablecore.validate import Reader

    assert backends()["line"] == ("shoe", "display", "wheel")
    with pytest.raises(ConfigError, match=r"the line backend has no shuffler \(it offers: shoe, display, wheel\)"):
        device_settings("shuffler", "line", Reader({"url": "x"}, "devices.shuffler"))
    with pytest.raises(ConfigError, match=r"devices.shoe.messages: missing required key"):
        device_settings("shoe", "line", Reader({"url": "/dev/ttyUSB0"}, "devices.shoe"))
