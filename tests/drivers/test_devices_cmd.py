"""`tablesim devices`: lists what can be opened, or says why it cannot."""

from __future__ import annotations

import json

import usb.core
from click.testing import CliRunner

from tablesim.cli import devices_cmd
from tablesim.cli.main import cli


class _Port:
    device = "/dev/ttyUSB0"
    description = "USB-serial shoe"
    hwid = "USB VID:PID=0403:6001"
    vid, pid, serial_number = 0x0403, 0x6001, "A1"


def test_lists_serial_ports_and_says_why_usb_cannot_be_listed(monkeypatch):
    from serial.tools import list_ports

    monkeypatch.setattr(list_ports, "comports", lambda: [_Port()])

    def no_backend(**_):
        raise usb.core.NoBackendError("No backend available")

    monkeypatch.setattr(usb.core, "find", no_backend)
    res = CliRunner().invoke(cli, ["devices"])
    assert res.exit_code == 0
    assert "/dev/ttyUSB0  USB-serial shoe [0403:6001]" in res.stdout
    assert "USB devices: cannot list: no libusb backend" in res.stdout


def test_json_lists_usb_devices(monkeypatch):
    class Dev:
        bus, address, idVendor, idProduct = 1, 4, 0x1234, 0xABCD

    monkeypatch.setattr(usb.core, "find", lambda **_: [Dev()])
    monkeypatch.setattr(devices_cmd, "serial_ports", lambda: ([], None))
    data = json.loads(CliRunner().invoke(cli, ["devices", "--json"]).stdout)
    assert data["usb"] == [{"bus": 1, "address": 4, "vid": "1234", "pid": "abcd"}]
    assert data["usb_error"] is None and data["serial"] == []
