"""``tablesim emulate``: starts, prints where it listens, answers HEL, exits on SIGTERM."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest

from drivers.serial import LinkTiming, SerialShoe, SerialWheel
from test_serial_support import no_leaks  # noqa: F401 - fixture

PROTOCOL_TIMING = LinkTiming(read_poll=0.02)  # the CLI emulator keeps the protocol's timing


def start(*args: str) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "tablesim.cli.main", "emulate", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    line = proc.stdout.readline().strip()
    return proc, line


def stop(proc: subprocess.Popen) -> int:
    proc.send_signal(signal.SIGTERM)
    try:
        code = proc.wait(timeout=5)
    finally:
        proc.stdout.close()
        proc.stderr.close()
    return code


@pytest.mark.parametrize("mode", ["pty", "tcp"])
def test_emulate_prints_its_line_answers_hel_and_exits_on_sigterm(mode: str) -> None:
    args = ["shoe", "--seed", "3", "--time-scale", "0"] + (["--pty"] if mode == "pty" else ["--tcp", "0"])
    proc, line = start(*args)
    try:
        prefix = "shoe emulator listening on "
        assert line.startswith(prefix), (line, proc.stderr.read() if proc.poll() is not None else "")
        where = line.removeprefix(prefix)
        url = where if mode == "pty" else f"socket://{where}"
        assert where.startswith("/dev/pts/" if mode == "pty" else "127.0.0.1:")
        shoe = SerialShoe(url, timing=PROTOCOL_TIMING)
        shoe.open()  # HEL -> ACK, IDN
        try:
            assert shoe.identity["protocol"] == "TDL/1" and shoe.identity["model"] == "TDL-SHOE-EMU"
            shoe.load_shoe("P", 1)
            shoe.arm("R", 2)
            assert [shoe.next_event(3).index for _ in range(2)] == [0, 1]
        finally:
            shoe.close()
    finally:
        started = time.monotonic()
        code = stop(proc)
    assert code == 0
    assert time.monotonic() - started < 3


def test_emulate_wheel_with_a_fault() -> None:
    proc, line = start("wheel", "--time-scale", "0", "--fault", "peg")
    try:
        wheel = SerialWheel(line.split()[-1], timing=PROTOCOL_TIMING)
        wheel.open()
        try:
            wheel.arm("R1", 3, 60)
            events = []
            while not events or type(events[-1]).__name__ != "InvalidSpin":
                event = wheel.next_event(3)
                assert event is not None
                events.append(event)
            assert events[-1].reason == "peg"
        finally:
            wheel.close()
    finally:
        assert stop(proc) == 0


@pytest.mark.parametrize(
    "args, message",
    [
        (["shoe", "--fault", "jam@hand=2"], "tablesim: error: --fault: fault 'jam' does not apply to the shoe"),
        (["shoe", "--fault", "misread@card=x"], "tablesim: error: --fault: fault 'misread@card=x': card must be a whole number"),
        (["display", "--decks", "2"], "tablesim: error: --decks applies to the shoe and the shuffler, not the display"),
        (["shoe", "--pty", "--tcp", "7000"], "tablesim: error: choose one of --pty and --tcp"),
    ],
)
def test_bad_arguments_are_one_line(args: list[str], message: str) -> None:
    from click.testing import CliRunner

    from tablesim.cli.main import cli

    result = CliRunner().invoke(cli, ["emulate", *args])
    assert result.exit_code == 2
    assert result.stderr.strip().startswith(message) and result.stderr.count("\n") == 1
