"""The backstop behind settlement: a round whose result the picture holds,
but that settlement never handed to this process, is looked up in the
wallet once it is ``after`` seconds old; if the wallet lacks any credit or
cancel the round calls for, the round is settled from the picture.

Settlement's durable consumer is the broker's, and its bookkeeping is by
stream seq: a replicated stream numbered anew under it (a new leader that
lacked the last messages, numbering the next ones in their place) can leave
a result below what the consumer had acknowledged, never handed out
again. The picture reads it again (``follow``); this sees that it is paid.
The ids are settlement's own (``ids``), so a round settled meanwhile by
another process is answered as before by the wallet: nothing is paid twice.

Only results read live are looked at (after the picture first caught up):
the rounds of the stream read at start went through settlement's consumer
before, or still will. A few rounds a pass, one wallet query each (none
for a round no player of the platform's bet in).
"""

from __future__ import annotations

import logging
import time

from tablesim.platform import ids
from tablesim.platform.periodic import repeat
from tablesim.platform.roundcredits import parts
from tablesim.platform.rounds import Round
from tablesim.platform.settle import credit_parts
from tablesim.wallet.client import WalletUnavailable

log = logging.getLogger("tablesim.platform")

#: seconds a round's result must be old before the wallet is asked about it
AFTER = 120.0
#: seconds between two passes; rounds looked at in one
EVERY, PER_PASS = 5.0, 20


def wanted(rnd: Round, offer) -> set[str]:
    """The ids of every credit (each part) and cancel settlement sends for the round."""
    void = rnd.result is not None and rnd.result.get("status") == "void"
    out: set[str] = set()
    for part in parts(rnd).values():
        out.update(ids.cancel_of(d) for d in part.to_cancel(void))
        if part.credited(void):
            out.update(body["transaction_id"] for _, body in credit_parts(rnd, offer, part))
    return out


class Backstop:
    def __init__(self, settler, follower, wallet, *, after: float = AFTER, every: float = EVERY) -> None:
        self.settler = settler
        self.follower = follower
        self.wallet = wallet
        self.after = after
        self.every = every
        self.checked = 0  # rounds looked up in the wallet
        self.settled = 0  # ... of them settled from the picture (the wallet lacked part of them)
        self.passes = 0  # looks at the rounds due (the metrics: the backstop runs)
        self._live_since: float | None = None

    async def run(self) -> None:
        await self.follower.caught_up.wait()
        self._live_since = time.monotonic()
        await repeat(self.once, self.every, "the settlement backstop")

    def due(self) -> list[Round]:
        """The live rounds old enough, settled by no task of this process, not looked at yet."""
        if self._live_since is None:
            return []
        now, out = time.monotonic(), []
        for rnd in self.follower.rounds.rounds.values():
            if (rnd.closed_at is not None and rnd.closed_at >= self._live_since and now - rnd.closed_at >= self.after
                    and not rnd.settled_here and not rnd.backstopped):
                out.append(rnd)
                if len(out) == PER_PASS:
                    break
        return out

    async def once(self) -> int:
        """Look at the rounds due; how many were settled from the picture."""
        settled = 0
        self.passes += 1
        for rnd in self.due():
            offer = self.settler.offers.get(rnd.table)
            want = wanted(rnd, offer) if offer is not None else set()
            if not want:  # (no player of the platform's in it: nothing to pay)
                rnd.backstopped = True
                continue
            try:
                found = await self.wallet.transactions(request_id=f"backstop-{rnd.table}-{rnd.round_id}",
                                                       table=rnd.table, round=rnd.round_id)
            except WalletUnavailable:
                return settled  # (the next pass asks again)
            rnd.backstopped = True
            self.checked += 1
            missing = want - {t.transaction_id for t in found}
            if rnd.settled_here or not missing:
                continue
            log.error("platform: round %s of %s: the wallet has no %d of its credits and cancels (e.g. %s) though "
                      "its result is in the stream: settled from the picture", rnd.round_id, rnd.table,
                      len(missing), sorted(missing)[0])
            await self.settler.settle(rnd)
            settled += 1
        self.settled += settled
        return settled
