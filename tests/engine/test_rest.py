"""``tablecore.rest``: a task resting until an event or a timeout is always
ended by a cancel, even one that comes in the same turn as the event (on
Python 3.11, ``asyncio.wait_for`` drops such a cancel)."""

from __future__ import annotations

import asyncio

from tablecore.rest import rest


def test_a_cancel_that_comes_with_the_event_ends_the_rest():
    async def main() -> str:
        event = asyncio.Event()
        rounds = 0

        async def loop_until_cancelled() -> None:
            nonlocal rounds
            while True:
                event.clear()
                await rest(event, 5.0)
                rounds += 1

        task = asyncio.ensure_future(loop_until_cancelled())
        await asyncio.sleep(0.01)  # (resting)
        event.set()
        task.cancel()
        done, _ = await asyncio.wait([task], timeout=1.0)
        if not done:
            task.cancel()
            await asyncio.wait([task], timeout=1.0)
            return f"still running after the cancel ({rounds} rounds)"
        return "cancelled" if task.cancelled() else "ended otherwise"

    assert asyncio.run(main()) == "cancelled"


def test_it_ends_at_the_event_or_the_time_whichever_first():
    async def main() -> tuple[float, float]:
        loop = asyncio.get_running_loop()
        event = asyncio.Event()
        began = loop.time()
        await rest(event, 0.05)
        timed = loop.time() - began
        event.clear()
        loop.call_later(0.01, event.set)
        began = loop.time()
        await rest(event, 5.0)
        return timed, loop.time() - began

    timed, woken = asyncio.run(main())
    assert 0.04 <= timed < 1.0 and woken < 1.0
