"""Closing a broker connection never ends the loop that reconnects: a close
that ends in a ``CancelledError`` of its own (nats-py's transport's close
waiter cancelled under it, seen with a cluster's leader killed on a full
machine) is swallowed, which once stopped the floor from following the
stream for good; a stop (the caller's own task cancelled) still ends it."""

from __future__ import annotations

import asyncio

import pytest

from tablesim.studio import natsio


class _Conn:
    def __init__(self, close) -> None:
        self.close = close


async def _cancelled_under_it() -> None:
    waiter = asyncio.get_running_loop().create_future()
    waiter.cancel()
    await waiter  # (a CancelledError that is the close's own, not its caller's)


async def _hangs() -> None:
    await asyncio.sleep(60)


def test_a_close_cancelled_under_it_does_not_end_the_reconnecting_loop():
    async def loop() -> int:
        rounds = 0
        for _ in range(3):  # (the consumer's loop: a session, then its connection closed in ``finally``)
            try:
                rounds += 1
            finally:
                await natsio.close(_Conn(_cancelled_under_it))
        return rounds

    assert asyncio.run(loop()) == 3


def test_a_close_that_hangs_is_given_up_after_its_time():
    async def go() -> float:
        loop = asyncio.get_running_loop()
        start = loop.time()
        await natsio.close(_Conn(_hangs), timeout=0.05)
        return loop.time() - start

    assert asyncio.run(go()) < 1.0


def test_a_stop_while_closing_still_ends_the_loop():
    async def go() -> None:
        task = asyncio.ensure_future(natsio.close(_Conn(_hangs), timeout=30))
        await asyncio.sleep(0.01)
        task.cancel()
        await task

    with pytest.raises(asyncio.CancelledError):
        asyncio.run(go())
