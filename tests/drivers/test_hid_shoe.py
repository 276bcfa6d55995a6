"""The USB HID card reader (a keyboard typing each card's code) through
pyusb's own backend interface, with an emulated reader: boot reports
decoded with the keymap, codes mapped by the configuration's table, the
kernel's keyboard driver detached while the table holds the reader and
given back on close, unplug and replug survived."""

from __future__ import annotations

import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivers.events import DRAWN_WHILE_DISARMED, CardRead, FaultRaised, LinkLost, LinkRestored
from drivers.registry import open_device
from drivers.serial import DeviceUnavailable
from drivers.usb.hid import ENTER, KeyboardDecoder
from drivers.usb.hid_backend import EmulatedHidReader
from leakcheck import no_leaks  # noqa: F401 - autouse fixture
from tablesim.harness.tableconfig import load_table_config

SETTINGS = dict(load_table_config("fortune3-hid").devices["shoe"].settings)
CARDS = SETTINGS["cards"]


def key(usage: int, shift: bool = False) -> bytes:
    return bytes([0x02 if shift else 0, 0, usage, 0, 0, 0, 0, 0])


def test_boot_reports_decode_with_shift_held_keys_and_rollover():
    decoder = KeyboardDecoder()
    reports = [key(0x14, True), key(0x14, True), bytes(8),  # Q held over two reports: typed once
               key(0x0B, True), bytes([0, 0, 1, 1, 1, 1, 1, 1]), bytes(8),  # H, then an ErrorRollOver report
               key(0x1F), bytes(8), key(ENTER), bytes(8)]
    codes = [c for r in reports for c in decoder.feed(r)]
    assert codes == ["QH2"]


@given(st.lists(st.binary(min_size=0, max_size=8), max_size=50))
def test_random_reports_never_crash_the_decoder(reports):
    decoder = KeyboardDecoder()
    for report in reports:
        for code in decoder.feed(report):
            assert isinstance(code, str) and code and len(code) <= 64


def events(shoe, n, seconds=10.0):  # pure waiting
    out, deadline = [], time.monotonic() + seconds
    while len(out) < n and time.monotonic() < deadline:
        event = shoe.next_event(0.2)
        if event is not None:
            out.append(event)
    assert len(out) == n, out
    return out


@pytest.fixture
def reader():
    backend = EmulatedHidReader(serial_number="EMU-HID-1", cards=CARDS, seed=3, time_scale=0)
    yield backend
    backend.close()


def test_codes_become_cards_only_while_armed_and_the_keyboard_is_given_back(reader):
    assert reader.kernel_driver_attached
    shoe = open_device("shoe", "hid", {**SETTINGS, "usb_backend": reader})
    try:
        assert not reader.kernel_driver_attached  # taken from the kernel while the table holds it
        reader.type_code("42")
        (fault,) = events(shoe, 1)
        assert isinstance(fault, FaultRaised) and fault.code == DRAWN_WHILE_DISARMED and fault.card.code == "QH"
        shoe.arm("R1", 3)
        reader.type_code("99")  # a code that is no card: logged, never an event
        reader.type_code("20")
        reader.type_code("71")
        cards = events(shoe, 2)
        assert [(c.round_id, c.index, c.card.code) for c in cards] == [("R1", 0, "TS"), ("R1", 1, "AC")]
        assert all(isinstance(c, CardRead) for c in cards)
    finally:
        shoe.close()
    assert reader.kernel_driver_attached  # the keyboard is the system's again


def test_an_unplugged_reader_is_a_lost_link_and_comes_back_when_plugged_in(reader):
    shoe = open_device("shoe", "hid", {**SETTINGS, "usb_backend": reader, "reconnect": 0.1})
    try:
        shoe.arm("R1", 5)
        reader.type_code("11")
        assert events(shoe, 1)[0].card.code == "AS"
        reader.unplug()
        (lost,) = events(shoe, 1)
        assert isinstance(lost, LinkLost) and "unplugged" in lost.reason and not shoe.health.link_up
        reader.replug()
        (back,) = events(shoe, 1)
        assert isinstance(back, LinkRestored) and shoe.health.link_up and not reader.kernel_driver_attached
        reader.type_code("12")
        (card,) = events(shoe, 1)
        assert (card.index, card.card.code) == (1, "2S")  # the round goes on, no card lost or twice
    finally:
        shoe.close()


def test_a_reader_that_is_not_there_fails_to_open_in_one_line(reader):
    with pytest.raises(DeviceUnavailable, match="no HID card reader found at usb 1209:0002 serial OTHER"):
        open_device("shoe", "hid", {**SETTINGS, "serial_number": "OTHER", "usb_backend": reader})


@pytest.mark.parametrize("key, value, message", [
    ("keymap", "de", "devices.shoe.keymap: 'de' is not one of us"),
    ("vid", 0x10000, "devices.shoe.vid: 65536 is outside 0..65535"),
    ("cards", {"11": "ZZ"}, "devices.shoe.cards.11: 'ZZ' is not a card code"),
    ("parity", "E", "devices.shoe.parity: unknown key"),
])
def test_bad_settings_are_one_located_line(tmp_path, key, value, message):
    from click.testing import CliRunner

    from tablesim.cli.main import cli
    from tablesim.profiles import config_root

    text = (config_root() / "tables" / "fortune3-hid.toml").read_text()
    line = {"keymap": 'keymap = "de"', "vid": "vid = 0x10000", "parity": 'parity = "E"'}.get(key)
    text = text.replace('keymap = "us"', line) if key == "keymap" else \
        text.replace("vid = 0x1209", line) if key == "vid" else \
        text.replace('"11" = "AS"', '"11" = "ZZ"') if key == "cards" else text.replace("interface = 0", f"interface = 0\n{line}")
    path = tmp_path / "hid.toml"
    path.write_text(text)
    result = CliRunner().invoke(cli, ["run", "--config", str(path), "--rounds", "1", "--journal", "none"])
    assert result.exit_code == 2 and message in result.output and result.output.count("\n") == 1, result.output
