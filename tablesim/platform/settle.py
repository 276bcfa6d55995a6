"""Settlement exactly once: the tables' results through one durable
JetStream pull consumer (``tablesim-platform``), shared by every platform
process, each result acknowledged only once the wallet confirmed all of it.

For a settled round, each player gets one credit naming the debits of the
bets the table's journal holds for them (the stream's ``bet_refs`` and
``decision`` records: what the table took, nothing else) and paying the
whole return (0 for a lost round), in parts of at most ``MAX_DEBITS``
debits for a player with more bets than that (``credit_parts``). Any other
debit of the round (never sent, refused, lost on the way) is no part of the
credit: the orphan sweep cancels it on its own. A void round cancels every
debit; a withdrawn bet's debit is cancelled. The ids are derived from the
round and the player (``ids``), so a result read twice (a process killed
before its ack, the result redelivered to another process) sends the same
requests, and the wallet answers them as the first time: nothing is paid
twice.

A wallet that does not answer is asked again with backoff without limit
(tenacity); a round that is still unpaid after ``alert_after`` seconds is
logged at error and counted (``/api/health``) while the retries go on. A
write the wallet refused for good (``final_error`` and the like: the same
answer at every retry) is held for an operator at once (``held``), never
retried silently.
Only a result the table signed is acted on (the follower's picture holds
nothing else): a forged result is acknowledged, counted, and pays nothing.
"""

from __future__ import annotations

import asyncio
import logging
import time
from decimal import Decimal
from typing import Callable

import tenacity
from nats.js import api

from tablecore.money import ZERO
from tablesim.platform import ids
from tablesim.platform.faults import BEFORE_ACK, HAND_RESULTS, NO_FAULTS, Faults
from tablesim.platform.follow import Follower, signed_record
from tablesim.platform.pull import Pull, make_consumer
from tablesim.platform.roundcredits import PlayerPart, parts
from tablesim.platform.rounds import Round
from tablesim.platform.tables import Offer
from tablesim.studio import wire
from tablesim.wallet.batching import Batcher
from tablesim.platform.held import HeldWrites
from tablesim.wallet.client import WalletClient, WalletError, WalletRefused, WalletUnavailable, cancel_request, credit_request
from tablesim.wallet.protocol import MAX_DEBITS

log = logging.getLogger("tablesim.platform")

DURABLE = "tablesim-platform"
#: how long the broker waits for an ack before giving the result to another process
ACK_WAIT = 30.0
#: credits and cancels under way at once, per process (they reach the wallet in batches:
#: enough for every player of a few large rounds to share a few requests)
CONCURRENCY = 4000
FETCH = 500


class Settler:
    def __init__(self, *, js_source, nc_source, wallet: WalletClient, follower: Follower, offers: dict[str, Offer],
                 held: HeldWrites, alert_after: float = 30.0, durable: str = DURABLE,
                 ack_wait: float = ACK_WAIT, faults: Faults = NO_FAULTS) -> None:
        self.js_source = js_source
        self.faults = faults
        self.nc_source = nc_source  # () -> the connection of that context
        self.working: set[asyncio.Task] = set()  # the results being settled
        self.wallet = wallet  # gives up after ``alert_after``: the retry below never does
        self.batcher = Batcher(wallet, name="settle")  # each credit its own id and answer, many a request
        self.follower = follower
        self.offers = offers
        self.held = held
        self.alert_after = alert_after
        self.durable = durable
        self.ack_wait = ack_wait
        self.gate = asyncio.Semaphore(CONCURRENCY)
        self.stats = {"rounds_settled": 0, "rounds_void": 0, "credits": 0, "cancels": 0, "alerts": 0,
                      "not_signed": 0, "refused": 0, "mismatches": 0, "held": 0}
        self.last_alert: str | None = None
        #: told (player, currency, balance) of each credit and cancel the wallet confirmed: the
        #: players' pages learn their balance at once (``balances``)
        self.on_balance: Callable[[str, str, Decimal], None] | None = None

    async def run(self) -> None:
        while True:
            try:
                await self._consume(self.js_source())
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.info("platform: settlement consumer: %s", f"{type(exc).__name__}: {exc}")
                await asyncio.sleep(0.5)

    async def _consume(self, js) -> None:
        config = api.ConsumerConfig(durable_name=self.durable, ack_policy=api.AckPolicy.EXPLICIT,
                                    deliver_policy=api.DeliverPolicy.ALL, ack_wait=self.ack_wait, max_deliver=-1,
                                    max_ack_pending=-1, filter_subject="tablesim.*.event")
        name = await make_consumer(js, wire.STREAM, config)
        await Pull(self.nc_source(), wire.STREAM, name, self._batch, batch=FETCH).run()

    async def _batch(self, msgs: list) -> None:
        for msg in msgs:
            if b'"name":"result"' not in msg.data:  # (canonical JSON: any other event needs nothing)
                await msg.ack()
                continue
            task = asyncio.ensure_future(self._result(msg))
            self.working.add(task)
            task.add_done_callback(self._done)
            task.add_done_callback(self.working.discard)

    def _done(self, task: asyncio.Task) -> None:
        if not task.cancelled() and task.exception() is not None:  # a bug: the result is redelivered after ack_wait
            exc = task.exception()
            self.stats["failures"] = self.stats.get("failures", 0) + 1
            log.error("platform: settling a result failed: %s", f"{type(exc).__name__}: {exc}")

    async def _result(self, msg) -> None:
        """A result message: settled once the picture holds it (the round is
        found by its table and id, never by the stream seq, which a stream
        numbered anew can give another message)."""
        rec = signed_record(self.follower.trust, msg.subject, msg.headers, msg.data, ("result",))
        if not isinstance(rec, wire.WireRecord):  # not signed by its table (or no result): acted on never
            self.stats["not_signed"] += 1
            await msg.ack()
            return
        await self.follower.wait_for_record(rec.table_id, rec.seq)
        rnd = self.follower.rounds.rounds.get((rec.table_id, rec.round_id))
        if rnd is None or rnd.result is None or self.faults.skips(HAND_RESULTS):  # (a result closing nothing)
            self.stats["not_signed"] += 1
            await msg.ack()
            return
        beat = asyncio.ensure_future(_keep_alive(msg, self.ack_wait))
        # (a result handed out again, a process having died before its ack, may find its credits made
        # already: the wallet then answers each as it did, with the balance of back then, which the
        # players' pages are not told: they ask, ``balances``)
        try:
            await self.settle(rnd, tell=_first_delivery(msg))
        finally:
            beat.cancel()
        self.faults.at(BEFORE_ACK)
        await msg.ack()

    async def settle(self, rnd: Round, tell: bool = False) -> None:
        """Every player's part of a closed round, confirmed by the wallet; ``tell``: each
        balance a credit or cancel left goes to ``on_balance`` (a round settled for the
        first time: the balances the wallet answers are of now)."""
        offer = self.offers.get(rnd.table)
        if offer is None:
            log.error("platform: round %s of table %s: the table is not in the tables file: not settled",
                      rnd.round_id, rnd.table)
            self.stats["refused"] += 1
            return
        rnd.settled_here = True
        void = rnd.result.get("status") == "void"
        await asyncio.gather(*(self._player(rnd, offer, part, void, tell) for part in parts(rnd).values()))
        self.stats["rounds_void" if void else "rounds_settled"] += 1

    async def _player(self, rnd: Round, offer: Offer, part: PlayerPart, void: bool, tell: bool = False) -> None:
        for debit in part.to_cancel(void):
            await self._retried(self._cancel, rnd, part.player, debit, tell)
        if void or not part.debits:
            return
        why = part.mismatch
        if why is not None:
            self.stats["mismatches"] += 1
            log.error("platform: round %s of %s: %s", rnd.round_id, rnd.table, why)
        if part.credited(void):
            for request in credit_parts(rnd, offer, part):
                await self._retried(self._write, rnd, request, tell)

    async def _retried(self, call, *args) -> None:
        """``call`` until the wallet answers, however long; alerted after ``alert_after``."""
        started = time.monotonic()
        retrying = tenacity.AsyncRetrying(stop=tenacity.stop_never, reraise=True,
                                          wait=tenacity.wait_random_exponential(multiplier=0.2, max=5.0),
                                          retry=tenacity.retry_if_exception_type(WalletUnavailable))
        async for attempt in retrying:
            with attempt:
                try:
                    async with self.gate:
                        return await call(*args)
                except WalletUnavailable as exc:
                    self._alert(started, args[0], exc)
                    raise

    def _alert(self, started: float, rnd: Round, exc: Exception) -> None:
        if time.monotonic() - started < self.alert_after:
            return
        self.stats["alerts"] += 1
        self.last_alert = (f"round {rnd.round_id} of {rnd.table} unpaid for {time.monotonic() - started:.0f} s: "
                           f"{exc}")
        log.error("platform: %s (retrying)", self.last_alert)

    async def _cancel(self, rnd: Round, player: str, debit: str, tell: bool = False) -> None:
        await self._write(rnd, cancel_request(ids.cancel_of(debit), player=player, table=rnd.table,
                                              round=rnd.round_id, debit=debit), tell)

    async def _write(self, rnd: Round, request: tuple[str, dict], tell: bool = False) -> None:
        """One credit or cancel; a final refusal is held for an operator at once (``held``);
        ``tell``: the balance it left goes to ``on_balance``."""
        call, body = request
        try:
            out = await self.batcher.write(request)
        except WalletUnavailable:
            raise  # (retried by ``_retried`` until the wallet answers)
        except WalletError as exc:  # the request itself refused: never done, whatever the retries
            status = exc.status.value if isinstance(exc, WalletRefused) else "invalid_request"
            self._hold(rnd, call, body, status, str(exc))
            return
        self.stats["credits" if call == "credit" else "cancels"] += 1
        if tell and out.ok and out.balance is not None and self.on_balance is not None \
                and (offer := self.offers.get(rnd.table)) is not None:
            self.on_balance(body["player"], offer.currency, out.balance)
        if out.ok or (call == "cancel" and out.status.value == "already_cancelled"):
            return
        self.stats["refused"] += 1
        self._hold(rnd, call, body, out.status.value, out.message)

    def _hold(self, rnd: Round, call: str, body: dict, status: str, message: str | None) -> None:
        first = self.held.hold(call, body, status, message)
        self.last_alert = (f"the {call} {body['transaction_id']} of {body['player']} in round {rnd.round_id} of "
                           f"{rnd.table} was answered {status}: held for an operator (tablesim platform held)")
        if first:
            self.stats["held"] += 1
        log.error("platform: %s: %s", self.last_alert, message)


def credit_parts(rnd: Round, offer: Offer, part: PlayerPart) -> list[tuple[str, dict]]:
    """A player's credit of a round, in parts of at most ``MAX_DEBITS`` debits
    each (a player may place more bets in a round than one credit names):
    the first part pays the whole return, the others 0, each naming its own
    debits; the ids are derived from the round, the player and the part's
    number, so every retry and every process sends the same parts."""
    debits = sorted(part.debits)
    chunks = [debits[at:at + MAX_DEBITS] for at in range(0, len(debits), MAX_DEBITS)]
    return [credit_request(ids.credit_of(rnd.table, rnd.round_id, part.player, n), player=part.player,
                           currency=offer.currency, amount=part.credit if n == 0 else ZERO, table=rnd.table,
                           round=rnd.round_id, debits=chunk)
            for n, chunk in enumerate(chunks)]


def _first_delivery(msg) -> bool:
    """Whether the broker hands this result out for the first time (unknown: no)."""
    try:
        return msg.metadata.num_delivered == 1
    except Exception:
        return False


async def _keep_alive(msg, ack_wait: float) -> None:
    """Tell the broker the result is being worked on (a long wallet outage
    must not hand it to another process mid-way: that would be safe, only
    double work)."""
    while True:
        await asyncio.sleep(ack_wait / 3)
        try:
            await msg.in_progress()
        except Exception:
            pass
