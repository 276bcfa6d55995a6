"""Table configurations: the shipped examples load; every mistake is one line
naming the file and the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from drivers.emulators.launcher import running_emulators
from drivers.events import CardRead
from drivers.serial import SerialShoe
from drivers.usb.emulated_backend import EmulatedShoeBackend
from tablecore.errors import ConfigError
from tablesim.games.fortune3.profile import Fortune3Settings
from tablesim.harness.tableconfig import load_table_config
from test_serial_support import FAST, no_leaks  # noqa: F401 - fixture

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "config" / "tables").glob("*.toml"))

BASE = """
[table]
id = "T1"
game = "fortune3"

[devices.shoe]
backend = "serial"
url = "/dev/ttyUSB0"
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "t.toml"
    path.write_text(text)
    return path


def error(tmp_path: Path, text: str) -> str:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_table_config(path)
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"{path}: ")
    return message.removeprefix(f"{path}: ")


def test_the_examples_load() -> None:
    names = {p.stem for p in EXAMPLES}
    assert {"fortune3-mock", "fortune3-serial", "fortune3-shuffler-serial", "football-serial",
            "wheel-serial", "fortune3-usb"} <= names
    for path in EXAMPLES:
        config = load_table_config(path)
        assert config.devices


def test_a_config_by_name_and_what_it_holds() -> None:
    config = load_table_config("football-serial")
    assert (config.table_id, config.game, config.settings.decks) == ("FB-01", "football", 6)
    assert set(config.devices) == {"shoe", "display"}
    display = config.devices["display"]
    assert display.backend == "serial" and display.options["baudrate"] == 9600
    assert display.options["timing"].ack_timeout == 0.4
    assert str(config.limits.by_bet["middle"].maximum) == "1000"
    f3 = load_table_config("fortune3-usb")
    assert f3.devices["shoe"].options["vid"] == 0x1209 and isinstance(f3.settings, Fortune3Settings)


@pytest.mark.parametrize(
    "text, expected",
    [
        (BASE.replace('game = "fortune3"', 'game = "poker"'), "table.game: 'poker' is not one of fortune3, football, wheel"),
        (BASE.replace('id = "T1"', 'id = "T 1"'), "table.id: 'T 1' must be 1 to 32 of A-Z a-z 0-9 _ -"),
        (BASE + "\n[settings]\ndealing = \"hand\"\n", "settings.dealing: 'hand' is not one of shoe, shuffler"),
        (BASE + "\n[settings]\ndecks = 2\n", "settings.decks: unknown key"),
        (BASE + "\n[limits]\nante = { min = 10, max = 5 }\n", "limits.ante: needs 0 < min <= max"),
        (BASE + "\n[limits]\nblind = { min = 1, max = 5 }\n", "limits.blind: unknown bet"),
        (BASE.replace('backend = "serial"', 'backend = "can"'), "devices.shoe.backend: 'can' is not one of"),
        (BASE + "baudrate = 12345\n", "devices.shoe.baudrate: 12345 is not one of 9600"),
        (BASE + "bauds = 9600\n", "devices.shoe.bauds: unknown key"),
        (BASE + "timeouts = { ack_timeout = -1 }\n", "devices.shoe.timeouts.ack_timeout:"),
        (BASE + "timeouts = { ack = 1 }\n", "devices.shoe.timeouts.ack: unknown key"),
        (BASE + "\n[devices.display]\nbackend = \"mock\"\n", "devices.display: a fortune3 table has no display"),
        (BASE + "\n[settings]\ndealing = \"shuffler\"\n", "devices.shuffler: missing: a fortune3 table needs a [devices.shuffler]"),
        (BASE.replace('backend = "serial"\nurl = "/dev/ttyUSB0"', 'backend = "usb"\nvid = 0x1209'), "devices.shoe.pid: missing required key"),
        (BASE.replace('url = "/dev/ttyUSB0"', ""), "devices.shoe.url: missing required key"),
        (BASE + "\n[extra]\n", "extra: unknown key"),
        (BASE.replace('game = "fortune3"', 'game = "fortune3"\nprofile = "nowhere"'), "table.profile: no rule profile 'nowhere'"),
        ('[table]\nid = "W"\ngame = "wheel"\n', "devices: missing: a wheel table needs [devices.wheel]"),
    ],
)
def test_errors_name_file_and_field(tmp_path: Path, text: str, expected: str) -> None:
    assert error(tmp_path, text).startswith(expected)


def test_not_toml_and_missing_file(tmp_path: Path) -> None:
    path = write(tmp_path, "[table\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_table_config(path)
    with pytest.raises(ConfigError, match="no table configuration 'nope'"):
        load_table_config("nope")


def test_open_devices_against_emulators(tmp_path: Path) -> None:
    with running_emulators(["shoe"], seed=2, time_scale=0, timing=FAST) as urls:
        config = load_table_config(write(tmp_path, BASE.replace("/dev/ttyUSB0", urls["shoe"])))
        devices = config.open_devices(shoe={"timing": FAST})
        try:
            shoe = devices["shoe"]
            assert isinstance(shoe, SerialShoe)
            shoe.load_shoe("P", 1)
            shoe.arm("R", 1)
            assert isinstance(shoe.next_event(3), CardRead)
        finally:
            shoe.close()


def test_usb_config_with_the_emulated_backend() -> None:
    config = load_table_config("fortune3-usb")
    with EmulatedShoeBackend(timing=FAST, time_scale=0, serial_number="EMU-SHOE-1") as backend:
        devices = config.open_devices(shoe={"usb_backend": backend, "timing": FAST})
        try:
            assert devices["shoe"].identity["model"] == "TDL-SHOE-EMU"
        finally:
            devices["shoe"].close()


def test_shipped_table_configs_need_no_root():
    """The examples keep tokens and journals in the user's data directory:
    no path under /var (only the systemd example uses /var/lib/tablesim)."""
    root = Path(__file__).resolve().parents[2] / "config" / "tables"
    for path in sorted(root.glob("*.toml")):
        config = load_table_config(path)
        assert config.operators is None, f"{path.name}: tokens belong in the data directory"
        assert "/var/" not in "\n".join(line for line in path.read_text().splitlines()
                                        if not line.lstrip().startswith("#")), path.name


@pytest.mark.parametrize("written, expected", [
    ("1e1", "limits.ante.min: '1e1' is written with an exponent"),
    ("1.5E1", "limits.ante.min: '1.5E1' is written with an exponent"),
    ("1_0.0", "limits.ante.min: '1_0.0' has an underscore"),
])
def test_an_amount_written_with_an_exponent_is_refused_in_a_config_too(tmp_path: Path, written, expected) -> None:
    """TOML reads ``1e1`` as a float; the table reads amounts as
    written, and refuses an exponent or an underscore as everywhere else.
    A plain TOML float (10.0, a timeout 0.2) reads as before."""
    assert error(tmp_path, BASE + f"\n[limits]\nante = {{ min = {written}, max = 5000 }}\n").startswith(expected)
    plain = load_table_config(write(tmp_path, BASE + "timeouts = { ack_timeout = 0.2 }\n"
                                    "\n[limits]\nante = { min = 10.0, max = 5000 }\n"))
    assert str(plain.limits.by_bet["ante"].minimum) in ("10", "10.0")
    assert plain.devices["shoe"].options["timing"].ack_timeout == 0.2


def test_a_wheel_table_refuses_a_position_max_it_could_not_apply(tmp_path: Path) -> None:
    """On the wheel a bet's position is its player, so a ``position_max``
    would only repeat the player's own max: a cap meant for all the players
    on a symbol would silently do nothing. Refused with the reason."""
    text = ('[table]\nid = "W"\ngame = "wheel"\n[devices.wheel]\nbackend = "mock"\n'
            '[limits]\njoker = { min = 1, max = 100, position_max = 500 }\n')
    assert error(tmp_path, text).startswith("limits.joker.position_max: the wheel has no position_max")
