"""A free local TCP port for a child process to listen on.

The usual trick (bind port 0, read the port, close, hand it on) picks from
the kernel's *ephemeral* range, the same range the kernel then hands out to
every outgoing connection and every other ``bind(0)`` on the machine. In
the moment before the child binds it, any of those may take the port, and
with many processes starting services and connecting (a test suite on six
workers) that happens: the child fails with "address already in use".

So ports are taken *below* the ephemeral range, where the kernel never
hands one out by itself, each process walking its own block of that range
in order (a port is never given twice by one process, and two processes
start far apart), and each candidate is checked free by binding it.
"""
from __future__ import annotations

import itertools
import os
import socket
import threading

_LOWEST = 10_000  # below: the well-known and registered services a machine may run
_BLOCKS = 16  # blocks of the range: the test workers' numbers pick theirs


def _ephemeral_low() -> int:
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32_768  # Linux's default


def _start(low: int, high: int) -> int:
    size = high - low
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    block = size // _BLOCKS
    if worker.startswith("gw") and worker[2:].isdigit():
        # each xdist worker its own block; the pid spreads the processes one worker starts
        return low + (int(worker[2:]) % _BLOCKS) * block + (os.getpid() * 97) % max(1, block // 2)
    return low + (os.getpid() * 7919) % size


_LOW, _HIGH = _LOWEST, max(_LOWEST + 1_000, _ephemeral_low())
_next = itertools.count(_start(_LOW, _HIGH) - _LOW)
_lock = threading.Lock()


def _bindable(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_port() -> int:
    """A port no one listens on or uses now, outside the kernel's own picks."""
    size = _HIGH - _LOW
    with _lock:
        for _ in range(size):
            port = _LOW + next(_next) % size
            if _bindable(port):
                return port
    raise OSError("no free local port below the ephemeral range")
