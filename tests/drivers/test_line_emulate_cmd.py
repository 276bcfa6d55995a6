"""``tablesim emulate KIND --config FILE``: a configuration's line device
played on its own, in its own process, over TCP; a driver in this process
takes its lines."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

from drivers.events import SpinResult
from drivers.registry import open_device
from leakcheck import no_leaks  # noqa: F401 - autouse fixture
from line_support import settings_of, until

ROOT = Path(__file__).resolve().parents[2]


def test_a_polled_wheel_played_alone_spins_on_its_own_and_is_taken_once_armed():
    proc = subprocess.Popen([sys.executable, "-m", "tablesim.cli.main", "emulate", "wheel", "--config", "wheel-line",
                             "--tcp", "0", "--time-scale", "0.02", "--every", "40", "--seed", "5"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT)
    try:
        first = proc.stdout.readline()
        assert first.startswith("wheel emulator listening on 127.0.0.1:"), first
        url = "socket://" + first.rsplit(" ", 1)[1].strip()
        wheel = open_device("wheel", "line", {**settings_of("wheel-line", "wheel"), "url": url})
        try:
            wheel.arm("R1", 3, 60)
            result = until(wheel, lambda e: isinstance(e, SpinResult), timeout=60)[-1]  # pure waiting
            assert result.round_id == "R1" and 0 <= result.segment < 52
        finally:
            wheel.close()
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
        proc.stdout.close()


def test_emulate_names_a_device_the_configuration_lacks():
    run = subprocess.run([sys.executable, "-m", "tablesim.cli.main", "emulate", "display", "--config", "wheel-line"],
                         capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert run.returncode == 2 and run.stderr.startswith("tablesim: error: ") and "no line device 'display'" in run.stderr
