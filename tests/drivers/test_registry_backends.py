"""The backend registry: names to lazily imported classes, clear errors."""

from __future__ import annotations

import sys

import pytest

from drivers import registry
from drivers.emulators import make_emulator
from drivers.emulators.server import EmulatorServer
from drivers.events import CardRead, SpinStarted
from drivers.mock import MockShoe
from drivers.registry import BackendUnavailable, backends, open_device, register_backend
from drivers.serial import SerialShoe
from tablecore.errors import ConfigError, TablesimError
from test_serial_support import FAST, no_leaks  # noqa: F401 - fixture


def test_the_built_in_backends() -> None:
    found = backends()
    assert found["mock"] == ("shuffler", "shoe", "display", "wheel")
    assert found["serial"] == ("shuffler", "shoe", "display", "wheel")
    assert found["usb"] == ("shoe",)


def test_unknown_backend_kind_and_combination() -> None:
    with pytest.raises(ConfigError, match="unknown device backend 'can'"):
        open_device("shoe", "can", {})
    with pytest.raises(ConfigError, match="unknown device kind 'roulette'"):
        open_device("roulette", "mock", {})
    with pytest.raises(ConfigError, match="the usb backend has no wheel"):
        open_device("wheel", "usb", {"vid": 1, "pid": 2})


def test_mock_devices() -> None:
    shoe = open_device("shoe", "mock", {"seed": 3})
    assert isinstance(shoe, MockShoe)
    shoe.load_shoe("S", 1)
    shoe.arm("R", 3)
    assert isinstance(shoe.next_event(0), CardRead)
    wheel = open_device("wheel", "mock", {"seed": 3, "segments": 24})
    wheel.arm("R", 3, 60)
    assert isinstance(wheel.next_event(0), SpinStarted)


def test_serial_device_opened_against_its_emulator() -> None:
    with EmulatorServer(make_emulator("shoe", seed=1, time_scale=0, timing=FAST)) as server:
        shoe = open_device("shoe", "serial", {"url": server.url, "baudrate": 115200, "timing": FAST})
        try:
            assert isinstance(shoe, SerialShoe) and shoe.is_open and shoe.identity is not None
        finally:
            shoe.close()


def test_settings_are_checked_with_the_field_named() -> None:
    with pytest.raises(ConfigError) as info:
        open_device("shoe", "serial", {"url": "/dev/ttyUSB0", "baudrate": 9601}, open=False)
    assert str(info.value).startswith("devices.shoe.baudrate: 9601 is not one of")
    with pytest.raises(ConfigError, match="devices.shoe.bauds: unknown key"):
        open_device("shoe", "serial", {"url": "/dev/ttyUSB0", "bauds": 9600}, open=False)
    with pytest.raises(ConfigError, match="devices.shoe.url: missing required key"):
        open_device("shoe", "serial", {}, open=False)
    with pytest.raises(ConfigError, match="devices.shoe.pid: 70000 is outside 0..65535"):
        open_device("shoe", "usb", {"vid": 1, "pid": 70000}, open=False)


def test_a_missing_dependency_disables_only_its_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [m for m in sys.modules if m == "serial" or m.startswith(("serial.", "drivers.serial"))]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "serial", None)  # pyserial "not installed"
    with pytest.raises(BackendUnavailable) as info:
        open_device("shoe", "serial", {"url": "/dev/ttyUSB0"})
    message = str(info.value)
    assert message.startswith("serial backend unavailable:") and "pyserial" in message and "\n" not in message
    assert isinstance(info.value, TablesimError)  # the CLI prints it as one line
    assert isinstance(open_device("shoe", "mock", {}), MockShoe)  # the mock backend still works


def test_register_a_backend() -> None:
    saved = {k: dict(v) for k, v in registry.BACKENDS.items()}
    try:
        register_backend("virtual", "shoe", "drivers.registry:mock_shoe")
        assert isinstance(open_device("shoe", "virtual", {}), MockShoe)
        register_backend("broken", "shoe", "no_such_module_tdl:Thing")
        with pytest.raises(BackendUnavailable, match="broken backend unavailable"):
            open_device("shoe", "broken", {})
    finally:
        registry.BACKENDS.clear()
        registry.BACKENDS.update(saved)


def test_usb_device_through_the_registry_with_an_injected_backend() -> None:
    from drivers.usb.emulated_backend import EmulatedShoeBackend
    from drivers.usb.shoe import UsbShoe

    with EmulatedShoeBackend(timing=FAST, time_scale=0) as usb_backend:
        shoe = open_device("shoe", "usb", {"backend": "usb", "vid": 0x1209, "pid": 0x0001,
                                           "usb_backend": usb_backend, "timing": FAST})
        try:
            assert isinstance(shoe, UsbShoe) and shoe.identity["protocol"] == "TDL/1"
        finally:
            shoe.close()
