"""What a driver logs from its own threads (reader, heartbeat) carries the
table's round: ``table``, ``game`` and ``round_id``, as every other line of
a round does."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def logged(*args: str) -> list[dict]:
    run = subprocess.run([sys.executable, "-m", "tablesim.cli.main", "--log-json", "run", *args, "--journal", "none",
                          "--time-scale", "0", "--seed", "4"], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    return [json.loads(line) for line in run.stderr.splitlines() if line.startswith("{")]


def test_a_serial_drivers_reader_logs_with_the_round():
    lines = [e for e in logged("--game", "football", "--emulated", "--fault", "display:readback", "--rounds", "1")
             if e["event"] == "read-back mismatch"]
    assert lines and all((e["table"], e["game"], e["round_id"]) == ("FB-EMU", "football", "FB-EMU-000001")
                         for e in lines), lines


def test_a_line_drivers_reader_logs_with_the_round():
    import structlog
    from structlog.testing import capture_logs

    from leakcheck import no_leaks  # noqa: F401 - autouse fixture
    from line_support import emulated, quiet, settings_of

    with emulated("wheel", settings_of("wheel-line", "wheel")) as (wheel, emu, _):
        structlog.contextvars.bind_contextvars(table="WH-LINE", game="wheel", round_id="WH-LINE-000042")
        wheel.arm("WH-LINE-000042", 3, 60)  # the table's thread, in its round
        structlog.contextvars.clear_contextvars()
        with capture_logs() as logs:
            with emu.lock:
                emu.plan.specs.append(f"noise@line={emu.count['line'] + 1}")  # the next status line is damaged
            deadline = time.monotonic() + 10  # pure waiting: polls come every 0.2 s
            while not any(e["event"] == "malformed line" for e in logs) and time.monotonic() < deadline:
                quiet(wheel, 0.1)
    (line,) = [e for e in logs if e["event"] == "malformed line"]
    assert (line["table"], line["game"], line["round_id"]) == ("WH-LINE", "wheel", "WH-LINE-000042")
    assert line["why"] == "not printable ASCII" and line["device"] == "wheel"
