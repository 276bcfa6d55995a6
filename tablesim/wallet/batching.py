"""Single writes gathered into ``batch`` calls, for a caller with many at once.

Each caller sends one write (``await batcher.write(debit_request(...))``)
and gets its own answer, exactly as ``WalletClient.debit`` would give it:
its ``Outcome``, or the ``WalletError`` raised. The writes that come while
a batch is at the wallet wait and go together in the next (another goes
beside it once ``full`` wait, up to ``in_flight`` at once), so a quiet
caller's write goes at once, alone, and a busy one's writes share one HTTP
exchange, one signature and, at the reference wallet, one commit. Every write keeps its own transaction id, so what the protocol
says of a repeat, a lost answer or a cancel holds for each as if it had
been sent alone.
"""

from __future__ import annotations

import asyncio
import itertools
import logging

from tablesim.wallet.client import Outcome, WalletClient, WalletError

log = logging.getLogger("tablesim.wallet")

#: the most writes in one batch (the protocol takes up to 500)
MAX_BATCH = 200
#: batches at the wallet at once (the writes meanwhile wait for the next)
IN_FLIGHT = 4
#: writes waiting that send a batch while another is at the wallet (fewer wait for it to come back):
#: a batch's own cost (the exchange, the signatures, the commit) is most of a small batch's
FULL = 32


class Batcher:
    def __init__(self, client: WalletClient, *, max_batch: int = MAX_BATCH, in_flight: int = IN_FLIGHT,
                 full: int = FULL, name: str = "b") -> None:
        self.client = client
        self.max_batch = max_batch
        self.in_flight = in_flight
        self.full = full
        self.busy = 0
        self.waiting: list[tuple[tuple[str, dict], asyncio.Future]] = []
        self._ids = (f"{name}-{i}" for i in itertools.count(1))
        self._soon = False  # a send is scheduled for the loop's next turn
        self.batches = 0  # sent (for the health page and the tests)

    async def write(self, request: tuple[str, dict]) -> Outcome:
        """The answer to one write (``debit_request(...)`` and the like); raises as the single call would."""
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self.waiting.append((request, future))
        if not self._soon:  # (on the loop's next turn: the writes of callers woken together go together)
            self._soon = True
            loop.call_soon(self._go)
        got = await future
        if isinstance(got, WalletError):
            raise got
        return got

    def _go(self) -> None:
        self._soon = False
        self._next()

    def _next(self) -> None:
        while self.waiting and (self.busy == 0 or self.busy < self.in_flight and len(self.waiting) >= self.full):
            batch, self.waiting = self.waiting[:self.max_batch], self.waiting[self.max_batch:]
            self.busy += 1
            asyncio.ensure_future(self._send(batch))

    async def _send(self, batch: list[tuple[tuple[str, dict], asyncio.Future]]) -> None:
        try:
            self.batches += 1
            results = await self.client.batch([request for request, _ in batch], request_id=next(self._ids))
            for (_, future), result in zip(batch, results):
                if not future.done():
                    future.set_result(result)
        except BaseException as exc:  # (never leave a writer waiting: a protocol error is each one's)
            if not isinstance(exc, WalletError):
                log.error("wallet batch failed: %s", f"{type(exc).__name__}: {exc}")
            for _, future in batch:
                if not future.done():
                    future.set_exception(exc if isinstance(exc, Exception) else WalletError(str(exc)))
            if not isinstance(exc, Exception):
                raise
        finally:
            self.busy -= 1
            self._next()
