"""A process's chores that run every few seconds for as long as it runs."""

from __future__ import annotations

import asyncio
import logging
from typing import Awaitable, Callable

log = logging.getLogger("tablesim.platform")


async def repeat(step: Callable[[], Awaitable[object]], every: float, what: str) -> None:
    """``step()``, then every ``every`` seconds again, for ever; a step that
    fails is logged (``what`` failed) and the next one runs all the same."""
    while True:
        try:
            await step()
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.error("platform: %s failed: %s", what, f"{type(exc).__name__}: {exc}")
        await asyncio.sleep(every)
