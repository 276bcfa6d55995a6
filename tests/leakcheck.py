"""The leak check the device tests share: threads and file descriptors must
be as a test found them. (tests/ is on sys.path through its conftest.py.)"""

from __future__ import annotations

import os
import threading
import time
from typing import Iterator

import pytest

import forkserver


def open_fds() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


@pytest.fixture(autouse=True)
def no_leaks() -> Iterator[None]:
    """Every test must leave threads and descriptors as it found them."""
    threads, fds = set(threading.enumerate()), open_fds()
    yield
    deadline = time.monotonic() + 10  # pure waiting: a thread that is ending may be slow to be scheduled
    while time.monotonic() < deadline and (set(threading.enumerate()) - threads or _new_fds(fds)):
        time.sleep(0.01)
    assert {t.name for t in set(threading.enumerate()) - threads} == set()
    leaked = _new_fds(fds)
    assert not leaked, f"descriptors left open: {sorted(_target(fd) for fd in leaked)}"


def _new_fds(before: set[str]) -> set[str]:
    """Descriptors open now that were not ``before``, but the fork helper's
    (a test may start it; it lives on for the process's later tests)."""
    return open_fds() - before - forkserver.helper_fds()


def _target(fd: str) -> str:
    try:
        return f"{fd} -> {os.readlink(f'/proc/self/fd/{fd}')}"
    except OSError:  # (closed meanwhile)
        return fd
