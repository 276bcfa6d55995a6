"""Resting in a task until an event is set or some seconds pass.

``asyncio.wait_for(event.wait(), seconds)`` is the obvious way, and on
Python 3.11 it is wrong for a task that is stopped by cancelling it: a
cancel that arrives in the same turn of the loop as the event being set is
dropped (``wait_for`` sees its inner wait done and returns its result), so
the task goes on as if never cancelled. A served table told to stop went on
pumping its devices for ever so, and its process never ended.
"""

from __future__ import annotations

import asyncio


async def rest(event: asyncio.Event, seconds: float) -> None:
    """Wait until ``event`` is set or ``seconds`` passed; when the time is up
    the event is set, as if woken (the callers clear it before they look
    again). A cancel always ends the wait (CancelledError)."""
    timer = asyncio.get_running_loop().call_later(seconds, event.set)
    try:
        await event.wait()
    finally:
        timer.cancel()
