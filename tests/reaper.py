"""Server processes the tests start: whatever a failing test left running is
killed at its teardown (the ``reap`` fixture in ``conftest.py``), so no
``tablesim serve`` outlives its test."""

from __future__ import annotations

import subprocess
from pathlib import Path

_STARTED: list[subprocess.Popen] = []


def track(proc: subprocess.Popen) -> subprocess.Popen:
    _STARTED.append(proc)
    return proc


def reap() -> None:
    while _STARTED:
        proc = _STARTED.pop()
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, ended and not yet waited for, does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"
