"""Fault modes of the reference wallet (``tablesim wallet serve --fault
...``): a wallet that answers slowly, fails with a temporary error, or
commits a write and never delivers its answer. For fault runs and tests of
what a caller does with an unreliable operator's wallet; never on by
default.

- ``slow:SECONDS``: every answer waits a random time between 0 and
  SECONDS before it leaves (after the write was committed);
- ``error:P``: with probability P a request is answered ``temporary_error``
  (HTTP 503, signed like any answer) before the wallet looks at it:
  nothing is done, the same request will be answered later;
- ``drop-after-commit:P``: with probability P a write's (debit, credit,
  cancel) answer is dropped once the write is committed: the answer's
  headers go out, its body never, and the connection is closed. The caller
  cannot know whether the write was done; its retry with the same id gets
  the answer the wallet kept.

The draws come from one generator seeded with ``--fault-seed``, so a run
with the same seed and the same order of requests faults the same ones.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass

from tablecore.errors import InputError
from tablesim.wallet import protocol as p
from tablesim.wallet import signing

MODES = ("slow", "error", "drop-after-commit")
WRITES = tuple(f"{p.PREFIX}/{call}" for call in ("debit", "credit", "cancel"))


@dataclass(frozen=True, slots=True)
class Faults:
    slow: float = 0.0  # the longest delay of an answer, seconds
    error: float = 0.0  # the chance of a temporary error
    drop: float = 0.0  # the chance a committed write's answer is dropped
    seed: int = 0

    @property
    def any(self) -> bool:
        return bool(self.slow or self.error or self.drop)

    def shown(self) -> str:
        parts = [f"slow:{self.slow:g}" if self.slow else "", f"error:{self.error:g}" if self.error else "",
                 f"drop-after-commit:{self.drop:g}" if self.drop else ""]
        return ", ".join(x for x in parts if x) or "none"


def parse(specs: tuple[str, ...] | list[str], seed: int = 0) -> Faults:
    """``MODE:VALUE`` each (bad input: one line naming the spec)."""
    values: dict[str, float] = {}
    for spec in specs:
        mode, _, text = spec.partition(":")
        if mode not in MODES:
            raise InputError(f"{spec!r}: the fault modes are {', '.join(m + ':VALUE' for m in MODES)}",
                             where="--fault")
        try:
            value = float(text)
        except ValueError:
            value = -1.0
        top = 60.0 if mode == "slow" else 1.0
        if not 0 <= value <= top:  # (also NaN)
            what = "seconds, 0 to 60" if mode == "slow" else "a probability, 0 to 1"
            raise InputError(f"{spec!r}: {text!r} is not {what}", where="--fault")
        values[mode] = value
    return Faults(values.get("slow", 0.0), values.get("error", 0.0), values.get("drop-after-commit", 0.0), seed)


def wrap(app, wallet, faults: Faults):
    """``app`` (the wallet's ASGI application) with ``faults`` in front of it.
    ``wallet`` signs the injected temporary errors."""
    rng = random.Random(faults.seed)

    async def faulty(scope, receive, send) -> None:
        if scope["type"] != "http":
            return await app(scope, receive, send)
        if faults.error and rng.random() < faults.error:
            return await _temporary_error(wallet, scope, send)
        delay = rng.uniform(0, faults.slow) if faults.slow else 0.0
        drop = bool(faults.drop and scope["path"] in WRITES and rng.random() < faults.drop)
        await app(scope, receive, _Answer(send, delay, drop))
        # a dropped answer: its start went out, its body never; returning now makes
        # the server close the connection (it logs an incomplete response)

    return faulty


class _Answer:
    """The ``send`` of one request: delayed, or its body dropped."""

    def __init__(self, send, delay: float, drop: bool) -> None:
        self.send, self.delay, self.drop = send, delay, drop

    async def __call__(self, message: dict) -> None:
        if message["type"] == "http.response.start" and self.delay:
            await asyncio.sleep(self.delay)
        if message["type"] == "http.response.body" and self.drop:
            return
        await self.send(message)


async def _temporary_error(wallet, scope, send) -> None:
    headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
    nonce = headers.get(signing.NONCE.lower(), "")
    nonce = nonce if signing.NONCE_FORMAT.fullmatch(nonce) else ""
    answer = p.error_answer(p.Status.TEMPORARY_ERROR, "the wallet is unavailable (a fault of the fault run): retry")
    ts, sig = wallet.sign(nonce, answer)
    await send({"type": "http.response.start", "status": 503, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(answer)).encode()),
        (signing.TIMESTAMP.lower().encode(), ts.encode()), (signing.SIGNATURE.lower().encode(), sig.encode())]})
    await send({"type": "http.response.body", "body": answer})
