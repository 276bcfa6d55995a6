"""The ports the tests and load runs give their child services: never one
the kernel hands out itself (where an outgoing connection or another
``bind(0)`` may take it before the child binds), never the same twice in
one process, never one in use."""
from __future__ import annotations

import socket

from tablesim.harness import ports


def test_a_free_port_is_below_the_kernels_own_range_and_never_given_twice():
    low = ports._ephemeral_low()
    given = [ports.free_port() for _ in range(200)]
    assert len(set(given)) == len(given)
    assert all(10_000 <= p < low for p in given), (low, given[:5])


def test_a_port_someone_listens_on_is_passed_over():
    held, last = socket.socket(), ports.free_port()
    for nxt in range(last + 1, last + 100):  # the next this process would give
        try:
            held.bind(("127.0.0.1", nxt))
            break
        except OSError:
            continue
    with held:
        held.listen()
        assert ports.free_port() != nxt


def test_a_port_given_binds():
    with socket.socket() as s:
        s.bind(("127.0.0.1", ports.free_port()))
