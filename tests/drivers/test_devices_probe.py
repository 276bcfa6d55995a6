"""`tablesim devices --probe`: the real probe over real ptys, against the
emulators (which speak the real bytes), a silent line, a line at the wrong
baud rate, a noisy line, a busy port and a missing one; the USB shoe over
the emulated pyusb backend."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
import threading
from pathlib import Path

import serial
from click.testing import CliRunner

from drivers.emulators.launcher import running_emulators
from drivers.tdl import Frame, encode
from drivers.probe import probe_serial, probe_usb_shoe
from drivers.serial import SerialShoe
from drivers.usb.emulated_backend import EmulatedShoeBackend
from tablesim.cli.main import cli
from test_serial_support import FAST, no_leaks  # noqa: F401 - fixture

ROOT = Path(__file__).resolve().parents[2]


class FakeLine:
    """A pty whose far end answers whatever it is sent with ``reply(data)``."""

    def __init__(self, reply=None) -> None:
        self.master, self.slave = pty.openpty()
        self.path = os.ttyname(self.slave)
        self.reply = reply
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        import select

        while not self.stop.is_set():
            ready, _, _ = select.select([self.master], [], [], 0.05)
            if not ready:
                continue
            try:
                data = os.read(self.master, 4096)
            except OSError:
                return
            if self.reply is not None:
                os.write(self.master, self.reply(data))

    def close(self) -> None:
        self.stop.set()
        self.thread.join(2)
        os.close(self.master)
        os.close(self.slave)


def _usb_absent() -> str:
    """What a probe of a USB reader that is not plugged in answers: no such
    reader, or (on a machine without libusb, which .ci/run installs) that
    the USB backend is off, in one line either way."""
    from ctypes.util import find_library

    if find_library("usb-1.0") is None:  # looked up, not loaded: libusb opened here would hold descriptors
        return "usb backend disabled: libusb 1.0 was not found (install libusb-1.0-0)"
    return "no USB shoe reader found"


def probe_cli(*args: str) -> subprocess.CompletedProcess:
    """The real command, in its own process (as a technician runs it)."""
    return subprocess.run([sys.executable, "-m", "tablesim.cli.main", "devices", "--probe", "--timeout", "0.5",
                           *args], capture_output=True, text=True, timeout=60, cwd=ROOT)


def test_probe_names_each_emulated_device_and_why_the_others_did_not_answer(tmp_path):
    silent = FakeLine()
    wrong_baud = FakeLine(lambda data: bytes(b ^ 0x5A for b in data))  # garbled, as at the wrong speed
    noisy = FakeLine(lambda data: encode(Frame(2, 0, "PON", ("IDLE", "0", "1")))[:-6] + b"0000\r\n")
    try:
        with running_emulators(["shoe", "shuffler", "display", "wheel"], seed=4, time_scale=0) as urls:
            ports = [urls["shoe"], urls["shuffler"], urls["display"], urls["wheel"], silent.path,
                     wrong_baud.path, noisy.path, str(tmp_path / "ttyNOPE")]
            res = probe_cli("--json", *[a for p in ports for a in ("--port", p)], "--usb", "dead:beef")
            assert res.returncode == 0, res.stderr
            found = {r["port"]: r for r in json.loads(res.stdout)["probed"]}
            for kind, addr in (("shoe", "02"), ("shuffler", "01"), ("display", "03"), ("wheel", "04")):
                r = found[urls[kind]]
                assert (r["kind"], r["addr"], r["protocol"], r["error"]) == (kind, addr, "TDL/1", None), r
                assert r["model"] == f"TDL-{kind.upper()}-EMU" and r["firmware"] == "1.0.0" and r["serial"]
            assert found[silent.path]["kind"] is None
            assert found[silent.path]["error"].startswith("no answer within 0.5 s")
            assert "wrong baud rate" in found[wrong_baud.path]["error"]
            assert "damaged frame(s)" in found[noisy.path]["error"]
            assert found[str(tmp_path / "ttyNOPE")]["error"].startswith("no such port")
            assert found["usb dead:beef"]["error"].startswith(_usb_absent())

            # the text view: one line per port
            text = probe_cli("--port", urls["wheel"], "--port", silent.path, "--usb", "dead:beef")
            lines = text.stdout.splitlines()
            assert lines[0].startswith(f"{urls['wheel']}: wheel (address 04) TDL-WHEEL-EMU serial ")
            assert lines[1].startswith(f"{silent.path}: no device: no answer")

            # a probed device is left as it was: a table opens it as usual afterwards
            shoe = SerialShoe(urls["shoe"], timing=FAST)
            shoe.open()
            try:
                assert shoe.identity["model"] == "TDL-SHOE-EMU"
            finally:
                shoe.close()
    finally:
        for line in (silent, wrong_baud, noisy):
            line.close()


def test_a_busy_port_is_reported_busy_not_disturbed():
    with running_emulators(["display"], seed=1, time_scale=0) as urls:
        holder = serial.Serial(urls["display"], exclusive=True)
        try:
            result = probe_serial(urls["display"], timeout=0.3)
        finally:
            holder.close()
        assert result.kind is None and result.error.startswith("busy: another program has the port open")


def test_nothing_answering_anywhere_exits_1():
    silent = FakeLine()
    try:
        res = probe_cli("--port", silent.path, "--usb", "dead:beef")
        assert res.returncode == 1 and "no device: no answer" in res.stdout
    finally:
        silent.close()


def test_the_usb_shoe_is_probed_through_pyusb():
    with EmulatedShoeBackend(timing=FAST, time_scale=0, serial_number="EMU-SHOE-7") as backend:
        result = probe_usb_shoe(0x1209, 0x0001, serial_number="EMU-SHOE-7", backend=backend, timeout=0.5)
        assert result.found, result
        assert (result.port, result.kind, result.addr, result.protocol) == (
            "usb 1209:0001 serial EMU-SHOE-7", "shoe", "02", "TDL/1")
        other = probe_usb_shoe(0x1209, 0x0001, serial_number="EMU-SHOE-8", backend=backend, timeout=0.5)
        assert not other.found and "no USB shoe reader found" in other.error


def test_port_and_usb_need_probe():
    res = CliRunner().invoke(cli, ["devices", "--port", "/dev/ttyS0"])
    assert res.exit_code == 2 and res.stderr.startswith("tablesim: error: --port and --usb apply to --probe")


def test_a_probe_of_named_ports_probes_only_those():
    with running_emulators(["shoe"], seed=1, time_scale=0) as urls:
        res = probe_cli("--port", urls["shoe"])
    assert res.returncode == 0, res.stderr
    assert [line.split(":")[0] for line in res.stdout.splitlines()] == [urls["shoe"]]  # no USB reader tried


def test_a_probe_makes_no_device_warn_about_frames_for_other_addresses():
    from structlog.testing import capture_logs

    with running_emulators(["wheel"], seed=1, time_scale=0) as urls:
        with capture_logs() as logs:
            assert probe_serial(urls["wheel"], timeout=0.5).kind == "wheel"
    assert [e for e in logs if e["log_level"] == "warning"] == [], logs  # the PNGs to addresses 01-03 are routine
