"""A player's bet: checked, debited, sent to the table, cancelled if it does
not stand.

1. Checked before anything is debited: the table is offered, in the
   player's currency, its round takes bets (the stream says), the amount is
   a plain decimal at the table's unit and within its largest stake.
2. Written to the intent log (on disk), then debited under a new id.
3. Sent to the table over the bus with that id as its ref and the round it
   was debited for (the table refuses it in any other round).
4. Accepted: done (settled with the round). Refused by the table: the debit
   is cancelled, and the player gets the table's own reason. No answer from
   the wallet: the debit is cancelled (retried until the wallet answers). No
   answer from the table: the ref is sent again (the table answers a ref it
   holds ``duplicate``); still none, the bet is left to the sweep, which
   decides it from the stream once the round closes.
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import nats

from tablecore.money import fmt
from tablesim.platform import ids
from tablesim.platform.faults import die_at
from tablesim.platform.amounts import BadBet, stake
from tablesim.platform.intents import Intent, Intents
from tablesim.platform.tablereason import table_reason
from tablesim.platform.rounds import Rounds
from tablesim.platform.sessions import Session
from tablesim.platform.tables import Offer
from tablesim.studio import wire
from tablesim.wallet.batching import Batcher as WalletBatcher
from tablesim.wallet.client import WalletClient, WalletError, WalletUnavailable, debit_request

log = logging.getLogger("tablesim.platform")

#: how often a bet with no answer from the table is sent again (same ref)
BUS_TRIES = 3
#: bet requests in flight to one table at once; the bets that come meanwhile go together in the next
IN_FLIGHT = 4
#: bets waiting that send a request while another is at the table (fewer wait for it to come back:
#: a request's own cost at the table, its commit and its records' publishing, is most of a small one's)
FULL = 32
#: the most bets in one request (the table takes up to 1,000)
BATCH = 500


@dataclass
class Answer:
    """What the player is told: an HTTP status and the body."""

    http: int
    body: dict[str, Any]


def refused(http: int, status: str, message: str, **more: Any) -> Answer:
    """A refusal: ``message`` in English (logs, API clients) and ``reason``, the
    table's own words by id when it gave them, else the platform's by its status
    (``player.refusal.<status>``), so the player's page words it in their language."""
    more.setdefault("reason", {"id": f"player.refusal.{status}", "args": {}})
    return Answer(http, {"ok": False, "status": status, "message": message, **more})


class Desk:
    def __init__(self, *, wallet: WalletClient, patient: WalletClient, nc_source, rounds: Rounds, intents: Intents,
                 offers: dict[str, Offer], bus_timeout: float = 10.0) -> None:
        self.wallet = wallet  # the player waits on this one: a few attempts
        self.patient = patient  # cancels: retried until the wallet answers
        # The debits of bets placed at once go to the wallet together, each with its own id
        # and answer: one HTTP exchange and one commit for many bets. (Cancels are few: alone.)
        self.debits = WalletBatcher(wallet, name="debits")
        self.nc_source = nc_source
        self.rounds = rounds
        self.intents = intents
        self.offers = offers
        self.bus_timeout = bus_timeout
        self.cancelling: set[asyncio.Task] = set()
        self.batchers: dict[str, Batcher] = {}
        #: bets on their way from this process, by (table, round, player): the per-round limit counts them
        self.in_flight: dict[tuple[str, str, str], int] = {}
        #: bets this process was told the table took, by (table, round, player): the picture may not
        #: have read their record yet when the same player bets again
        self.placed_here: dict[tuple[str, str, str], int] = {}
        self.counts = {"placed": 0, "refused_by_wallet": 0, "refused_by_table": 0, "cancelled": 0, "unknown": 0}

    def check(self, session: Session, body: dict) -> tuple[Offer, str, str, Decimal] | Answer:
        """The bet asked, or its refusal (before anything is debited)."""
        unknown = sorted(set(body) - {"table", "bet", "amount", "position"})
        if unknown:
            return refused(400, "bad_input", f"{unknown[0]}: not a field of a bet (table, bet, amount, position)")
        table, bet = body.get("table"), body.get("bet")
        offer = self.offers.get(table) if isinstance(table, str) else None
        if offer is None:
            return refused(404, "unknown_table", f"table: {str(table)[:64]!r} is not a table of this platform")
        if not isinstance(bet, str) or not 1 <= len(bet) <= 40 or not bet.isprintable():
            return refused(400, "bad_input", "bet: 1 to 40 printable characters (the bet or spot)")
        if offer.position == "player":
            position = session.player
        else:
            position = body.get("position")
            if isinstance(position, int) and not isinstance(position, bool):
                position = str(position)
            if not isinstance(position, str) or not 1 <= len(position) <= 40 or not position.isprintable():
                return refused(400, "bad_input", f"position: table {offer.table} needs the box you bet on")
        try:
            amount = stake(body.get("amount"), offer, session.currency)
        except BadBet as exc:
            return refused(400, "bad_input", str(exc))
        return offer, position, bet, amount

    async def place(self, session: Session, body: dict) -> Answer:
        checked = self.check(session, body)
        if isinstance(checked, Answer):
            return checked
        offer, position, bet, amount = checked
        t = self.rounds.tables.get(offer.table)
        if t is None or not t.betting:
            state = "not heard from" if t is None else f"{t.state or 'idle'}"
            return refused(409, "betting_closed", f"table {offer.table} is not taking bets (its round is {state})")
        key = (offer.table, t.round_id, session.player)
        if self.bets_of(*key) >= offer.max_bets:
            return refused(409, "too_many_bets", f"at most {offer.max_bets} bets a player in one round of table "
                           f"{offer.table}", reason={"id": "player.refusal.too_many_bets",
                                                     "args": {"max": offer.max_bets}})
        self.in_flight[key] = self.in_flight.get(key, 0) + 1
        try:
            answer = await self._place(session, offer, t.round_id, position, bet, amount)
        finally:
            if (left := self.in_flight[key] - 1) > 0:
                self.in_flight[key] = left
            else:
                del self.in_flight[key]
        if answer.body.get("status") == "placed":
            if len(self.placed_here) > 100_000:  # (the rounds gone by: their counts are done with)
                self.placed_here = {k: n for k, n in self.placed_here.items()
                                    if (t := self.rounds.tables.get(k[0])) is not None and t.round_id == k[1]}
            self.placed_here[key] = self.placed_here.get(key, 0) + 1
        return answer

    def bets_of(self, table: str, round_id: str, player: str) -> int:
        """A player's bets in a round: those the table journaled (whichever process
        sent them: the picture; at least those this process was told were placed,
        whose record the picture may not have read yet) and those still on their
        way from this process."""
        key = (table, round_id, player)
        rnd = self.rounds.rounds.get((table, round_id))
        seen = len(rnd.of(player)) if rnd is not None else 0
        return max(seen, self.placed_here.get(key, 0)) + self.in_flight.get(key, 0)

    async def _place(self, session: Session, offer: Offer, round_id: str, position: str, bet: str,
                     amount: Decimal) -> Answer:
        it = Intent(ids.new_debit(), "bet", session.player, session.currency, amount, offer.table, round_id,
                    position, bet, "debiting")
        await self.intents.add(it)
        try:
            debit = await self.debits.write(debit_request(it.debit, player=it.player, currency=it.currency,
                                                          amount=amount, table=it.table, round=it.round))
        except WalletError as exc:
            self.counts["unknown"] += 1
            cancelled = await self.cancel(it, why=f"no answer to the debit: {exc}")
            return refused(503, "wallet_unavailable", "the wallet did not answer: your stake was not taken"
                           + ("" if cancelled else " (its cancel is being retried)"))
        if not debit.ok:
            self.counts["refused_by_wallet"] += 1
            await self.intents.move(it.debit, "refused", debit.status.value)
            return refused(409, debit.status.value, debit.message or debit.status.value,
                           balance=_text(debit.balance))
        die_at("exit_after_debit")
        return await self._to_table(it, session, offer, debit.balance)

    async def _to_table(self, it: Intent, session: Session, offer: Offer, balance: Decimal | None) -> Answer:
        item = {"ref": it.debit, "position": it.position, "bet": it.bet, "amount": fmt(it.amount), "round": it.round}
        if offer.position != "player":
            item["player"] = session.player
        batcher = self.batchers.get(it.table)
        if batcher is None:
            batcher = self.batchers[it.table] = Batcher(it.table, self._send)
        reply = await batcher.submit(item)
        if reply is None:  # the table may or may not hold it: the stream decides once the round closes
            self.counts["unknown"] += 1
            return refused(503, "table_unavailable", f"table {it.table} did not answer: if the bet does not stand, "
                           "its stake is returned when the round closes", bet_id=it.debit)
        result = reply
        if result.get("ok"):
            self.counts["placed"] += 1
            self.intents.note(it.debit, "placed")  # (not awaited: see Intents.note)
            return Answer(200, {"ok": True, "status": "placed", "bet_id": it.debit, "table": it.table,
                                "round": result.get("round_id") or it.round, "amount": fmt(it.amount),
                                "balance": _text(balance), "receipt": result.get("receipt")})
        self.counts["refused_by_table"] += 1
        reason = result.get("reason") or result.get("detail") or "refused by the table"
        cancelled = await self.cancel(it, why=f"refused by the table: {reason}")
        answer = refused(409, "refused_by_table", str(reason), **table_reason(result))  # (the table's words, by id)
        if cancelled is not None:
            answer.body["balance"] = _text(cancelled.balance)
        return answer

    async def _send(self, table: str, request: dict) -> dict | None:
        data = json.dumps(request, separators=(",", ":")).encode()
        for _ in range(BUS_TRIES):
            try:
                msg = await self.nc_source().request(wire.bets_subject(table), data, timeout=self.bus_timeout)
                reply = json.loads(msg.data)
                if isinstance(reply, dict):
                    return reply
            except (nats.errors.Error, asyncio.TimeoutError, ValueError) as exc:
                log.info("platform: bet to %s: %s", table, f"{type(exc).__name__}: {exc}")
                await asyncio.sleep(0.2)
        return None

    def batches(self) -> dict[str, int]:
        """Requests sent so far: debit batches to the wallet, bet requests to the tables."""
        return {"debits": self.debits.batches, "to_tables": sum(b.requests for b in self.batchers.values())}

    async def cancel(self, it: Intent, why: str, wait: float = 10.0):
        """Cancel ``it``'s debit (retried until the wallet answers); the
        outcome if it came within ``wait`` seconds, else None (it goes on)."""
        task = asyncio.ensure_future(self._cancel(it, why))
        self.cancelling.add(task)
        task.add_done_callback(self.cancelling.discard)
        try:
            return await asyncio.wait_for(asyncio.shield(task), wait)
        except asyncio.TimeoutError:
            return None

    async def _cancel(self, it: Intent, why: str):
        await self.intents.move(it.debit, "cancelling", why[:300])
        out = await self.patient.cancel(ids.cancel_of(it.debit), player=it.player, table=it.table, round=it.round,
                                        debit=it.debit)
        self.counts["cancelled"] += 1
        await self.intents.move(it.debit, "cancelled", out.status.value)
        if not out.ok:
            log.error("platform: cancel of %s answered %s: %s", it.debit, out.status.value, out.message)
        return out


class Batcher:
    """The bets for one table that come while its requests are in flight,
    sent together in the next request: the table commits them in one group
    and answers each, in order; a bet's own result is handed to its sender."""

    def __init__(self, table: str, send) -> None:
        self.table = table
        self.send = send
        self.waiting: list[tuple[dict, asyncio.Future]] = []
        self.in_flight = 0
        self.requests = 0  # sent (for the health page: bets per request)

    async def submit(self, item: dict) -> dict | None:
        """The table's result for this bet (or its answer to the whole
        request, if it refused the request), None if it never answered."""
        future = asyncio.get_running_loop().create_future()
        self.waiting.append((item, future))
        self._next()
        return await future

    def _next(self) -> None:
        while self.waiting and (self.in_flight == 0 or self.in_flight < IN_FLIGHT and len(self.waiting) >= FULL):
            batch, self.waiting = self.waiting[:BATCH], self.waiting[BATCH:]
            self.in_flight += 1
            asyncio.ensure_future(self._go(batch))

    async def _go(self, batch: list[tuple[dict, asyncio.Future]]) -> None:
        self.requests += 1
        try:
            reply = await self.send(self.table, {"v": 1, "bets": [item for item, _ in batch]})
            results = reply.get("results") if isinstance(reply, dict) else None
            if not isinstance(results, list) or len(results) != len(batch):
                results = [reply if isinstance(reply, dict) and "error" in reply else None] * len(batch)
            for (_, future), result in zip(batch, results):
                if not future.done():
                    future.set_result(result if isinstance(result, dict) else None)
        except Exception as exc:  # (never leave a sender waiting)
            log.error("platform: bets to %s: %s", self.table, f"{type(exc).__name__}: {exc}")
            for _, future in batch:
                if not future.done():
                    future.set_result(None)
        finally:
            self.in_flight -= 1
            self._next()


def _text(amount: Decimal | None) -> str | None:
    return None if amount is None else format(amount, "f")
