"""A keyboard-wedge card reader through the Linux input layer (``backend =
"evdev"``), without hardware: recorded input events written into a named
pipe that the driver reads with the same code as a real event device."""

from __future__ import annotations

import os

import pytest

from drivers.events import CardRead, FaultRaised, LinkLost, LinkRestored
from drivers.evdev.keys import EVENT, EV_KEY, KeyDecoder, typed
from drivers.evdev.shoe import EvdevShoe
from line_support import until
from tablecore.errors import ConfigError
from tablesim.harness.tableconfig import load_table_config


def press(key: int, value: int = 1) -> bytes:
    return EVENT.pack(0, 0, EV_KEY, key, value) + EVENT.pack(0, 0, 0, 0, 0)


def test_key_events_decode_with_shift_and_enter_across_any_cut():
    # "Qh" then Enter: left shift held over q; an auto-repeat (2) and releases type nothing
    events = press(42) + press(16) + press(16, 2) + press(16, 0) + press(42, 0) + press(35) + press(35, 0) \
        + press(28) + press(28, 0) + typed("7S")
    decoder = KeyDecoder()
    codes = []
    for i in range(0, len(events), 7):  # cut anywhere, even inside an event
        codes += decoder.feed(events[i:i + 7])
    assert codes == ["Qh", "7S"]


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "event-kbd"
    os.mkfifo(path)
    return path


def test_the_reader_deals_from_recorded_events_and_survives_an_unplug(fifo):
    writer = os.open(fifo, os.O_RDWR)  # the reader's end of the cable
    shoe = EvdevShoe(str(fifo), cards={"42": "QH", "11": "AS"}, reconnect_interval=0.05)
    shoe.open()
    try:
        os.write(writer, typed("42"))
        disarmed = until(shoe, lambda e: isinstance(e, FaultRaised))
        assert disarmed[-1].code == 204 and str(disarmed[-1].card) == "QH"
        shoe.arm("R1", 3)
        os.write(writer, typed("99") + typed("11"))  # 99 is no card: logged, never an event
        assert [(e.index, e.card.code) for e in until(shoe, lambda e: isinstance(e, CardRead))] == [(0, "AS")]
        os.close(writer)  # unplugged: the device is gone
        os.unlink(fifo)
        assert isinstance(until(shoe, lambda e: isinstance(e, LinkLost))[-1], LinkLost)
        assert not shoe.health.link_up
        os.mkfifo(fifo)  # plugged in again
        writer = os.open(fifo, os.O_RDWR)
        until(shoe, lambda e: isinstance(e, LinkRestored))
        os.write(writer, typed("42"))
        assert [(e.index, e.card.code) for e in until(shoe, lambda e: isinstance(e, CardRead))] == [(1, "QH")]
    finally:
        shoe.close()
        os.close(writer)


def test_a_missing_device_is_one_line_naming_it(tmp_path):
    from drivers.serial.link_device import DeviceUnavailable

    with pytest.raises(DeviceUnavailable, match="no input device .*nothing-here"):
        EvdevShoe(str(tmp_path / "nothing-here")).open()


def test_the_configuration_is_checked_on_load(tmp_path):
    config = load_table_config("fortune3-keyboard")
    assert config.devices["shoe"].backend == "evdev"
    text = (tmp_path / "k.toml")
    source = open(config.path).read()
    text.write_text(source.replace('path = "/dev/tablesim/shoe-kbd"', 'path = "event-kbd"'))
    with pytest.raises(ConfigError, match="devices.shoe.path: 'event-kbd' must be a device path"):
        load_table_config(text).open_device("shoe")
    text.write_text(source.replace('"83" = "KC"', '"83" = "KX"'))
    with pytest.raises(ConfigError, match=r"devices.shoe.cards.83: 'KX' is not a card code"):
        load_table_config(text).open_device("shoe")
