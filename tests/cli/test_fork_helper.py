"""The tests' fork helper shared by the workers of a run (tests/forkserver.py,
``share``): each worker holds a session open, and when a worker goes (its
session closes) the commands it started are killed, the other workers'
left running, as a helper of a worker's own kills its commands when that
worker goes."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

import forkserver
from reaper import alive

HERE = Path(__file__).resolve().parents[1]


def test_a_workers_commands_end_with_its_session_and_no_others(tmp_path):
    # (a helper of the CLI only, 0.7 s of CPU to start: any folder of the tests' own packages makes one)
    helper = forkserver._Helper(str(HERE / "toygame"))
    sleeper = tmp_path / "sleeper.py"
    sleeper.write_text("import sys, time\nprint('up', flush=True)\ntime.sleep(120)\n")
    first, second = forkserver._Shared(helper.path), forkserver._Shared(helper.path)
    try:
        procs = [forkserver.Forked([], stdout=subprocess.PIPE, text=True, script=str(sleeper), helper=session)
                 for session in (first, first, second)]
        for proc in procs:
            assert proc.stdout.readline() == "up\n" and proc.poll() is None and alive(proc.pid)
        assert first.alive() and second.alive()
        first.session.close()  # (the first worker is gone)
        assert procs[0].wait(30) == procs[1].wait(30) == -9
        time.sleep(0.2)
        assert procs[2].poll() is None and alive(procs[2].pid)
        second.session.close()
        assert procs[2].wait(30) == -9
    finally:
        for proc in procs:
            proc.kill()
            proc.stdout.close()
        for session in (first, second):
            session.session.close()
        helper.proc.stdin.close()
        helper.proc.wait(30)


def test_the_workers_of_a_run_share_one_helper(tmp_path):
    """Under xdist the run's first process started the helper (``share``): a worker's
    commands are that helper's children, not a helper's of the worker's own."""
    if not os.environ.get("PYTEST_XDIST_WORKER") or not forkserver.ENABLED:
        pytest.skip("one process (-n 0) or forking off: nothing shared")
    helper = forkserver._helper_process("")
    assert isinstance(helper, forkserver._Shared) and helper.path == os.environ[forkserver.SHARED]
    sleeper = tmp_path / "sleeper.py"
    sleeper.write_text("import time\nprint('up', flush=True)\ntime.sleep(120)\n")
    proc = forkserver.Forked([], stdout=subprocess.PIPE, text=True, script=str(sleeper))
    try:
        assert proc.stdout.readline() == "up\n"
        helper_pid = int(Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        assert helper_pid != os.getpid() and helper_pid not in _children_of(os.getpid())
    finally:
        proc.kill()
        proc.wait(30)
        proc.stdout.close()


def _children_of(pid: int) -> list[int]:
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(stat.parent.name))
        except (OSError, ValueError):
            continue
    return out
