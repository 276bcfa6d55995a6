"""A player's bet: checked, debited, sent to the table, cancelled if it does
not stand; the bets that come together go each step together.

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

A bet's own work is its parse and check (the session and the table's
limits, in memory) and its place in a batch; what costs, a batch pays once:
its intents in one transaction of the intent log (on disk before its debits
are sent), its debits in one ``batch`` call to the wallet, its bets in one
request to each table (one journal record there), their answers handed
back in the turn of the event loop that read the table's reply. Under load
a batch starts at most once every ``SPACING`` (40 ms) and holds every bet
that came meanwhile, so batches grow with the load; a bet after a quiet
spell goes at once. No task, future or coroutine is
made per bet: the socket hands a callback (``submit``); an HTTP request,
which has its own task already, awaits one future (``place``).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Callable

import nats

from tablesim.platform import ids
from tablesim.platform.faults import AFTER_DEBIT, NO_FAULTS, Faults
from tablesim.platform.amounts import BadBet, known_stake
from tablesim.platform.intents import Intent, Intents
from tablesim.platform.tablereason import table_reason
from tablesim.platform.rounds import Rounds
from tablesim.platform.sessions import Session
from tablesim.platform.tables import Offer
from tablesim.studio import wire
from tablesim.wallet.client import (Outcome, WalletClient, WalletError, WalletUnavailable, cancel_request,
                                    debit_request)
from tablesim.wallet.protocol import Status

log = logging.getLogger("tablesim.platform")

#: how often a bet with no answer from the table is sent again (same ref)
BUS_TRIES = 3
#: batches under way at once (log, wallet, tables); the bets that come meanwhile go together in the next
IN_FLIGHT = 4
#: seconds between the starts of two batches under load: the bets that come meanwhile go together.
#: A batch's own cost (its intents' commit, a wallet exchange and its commit, a table's record with
#: its commit, signature and message, read back here) is paid once a batch, whatever its size, and
#: is most of a small batch's: at 2,000 bets a second, batches started as soon as the last ended
#: held about 24 bets. A bet after a quiet spell (no batch started within it) goes at once.
SPACING = 0.04
#: bets waiting that start a batch before its spacing ran out (a batch as large as is worth waiting for)
FULL = 250
#: the most bets in one batch (a wallet ``batch`` takes up to 500 writes, a table's request 1,000)
BATCH = 500
#: seconds a bet's answer waits for its debit's cancel (it goes on after, retried until answered)
CANCEL_WAIT = 10.0


@dataclass
class Answer:
    """What the player is told: an HTTP status and the body."""

    http: int
    body: dict[str, Any]
    #: ``body``'s JSON when it was made already (a placed bet's: its receipt's shared part spliced in)
    text: str | None = None


def refused(http: int, status: str, message: str, **more: Any) -> Answer:
    """A refusal: ``message`` in English (logs, API clients) and ``reason``, the
    table's own words by id when it gave them, else the platform's by its status
    (``player.refusal.<status>``), so the player's page words it in their language."""
    more.setdefault("reason", {"id": f"player.refusal.{status}", "args": {}})
    return Answer(http, {"ok": False, "status": status, "message": message, **more})


#: the fields of a bet
_FIELDS = frozenset(("table", "bet", "amount", "position"))


class _Bet:
    """A bet on its way: its intent, its part of the table's request, who is told."""

    __slots__ = ("it", "key", "item", "done", "balance", "said")

    def __init__(self, it: Intent, key: tuple[str, str, str], item: dict, done: Callable[[Answer], None]) -> None:
        self.it, self.key, self.item, self.done = it, key, item, done
        self.balance: Decimal | None = None  # after its debit
        self.said: dict = {}  # the table's refusal


class Desk:
    def __init__(self, *, wallet: WalletClient, patient: WalletClient, nc_source, rounds: Rounds, intents: Intents,
                 offers: dict[str, Offer], bus_timeout: float = 10.0, faults: Faults = NO_FAULTS) -> None:
        self.wallet = wallet  # the player waits on this one: a few attempts
        self.patient = patient  # cancels: retried until the wallet answers
        self.nc_source = nc_source
        self.rounds = rounds
        self.intents = intents
        self.offers = offers
        self.bus_timeout = bus_timeout
        self.faults = faults
        self.cancelling: set[asyncio.Task] = set()
        self.working: set[asyncio.Task] = set()  # the batches under way (a reference each, until done)
        self._gathered: list[_Bet] = []  # bets checked, waiting for the next batch
        self._soon = False  # a batch is due on the loop's next turn
        self._busy = 0
        self._started = float("-inf")  # when the last batch started (the loop's clock)
        self._timer: asyncio.TimerHandle | None = None  # the next batch's start, when its spacing runs out
        self.spacing = SPACING
        self._ids = (f"bets-{i}" for i in itertools.count(1))
        #: bets on their way from this process, by (table, round, player): the per-round limit counts them
        self.in_flight: dict[tuple[str, str, str], int] = {}
        #: bets this process was told the table took, by (table, round, player): the picture may not
        #: have read their record yet when the same player bets again
        self.placed_here: dict[tuple[str, str, str], int] = {}
        #: a context the answers of a table's reply are handed out in (the player's hub holds a
        #: batch's answers to each socket and writes them in one write when it ends)
        self.answering: Callable[[], Any] = contextlib.nullcontext
        self.counts = {"placed": 0, "refused_by_wallet": 0, "refused_by_table": 0, "cancelled": 0, "unknown": 0}
        self.requests = {"debits": 0, "to_tables": 0}  # sent (for the health page: bets per request)

    def check(self, session: Session, body: dict) -> tuple[Offer, str, str, Decimal, str] | Answer:
        """The bet asked (the offer, position, bet, amount and the amount's
        text), or its refusal (before anything is debited)."""
        if not _FIELDS.issuperset(body):
            unknown = sorted(set(body) - _FIELDS)
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
            amount, text = known_stake(body.get("amount"), offer, session.currency)
        except BadBet as exc:
            return refused(400, "bad_input", str(exc))
        return offer, position, bet, amount, text

    async def place(self, session: Session, body: dict) -> Answer:
        """A bet's answer, awaited (``submit`` with a future)."""
        future = asyncio.get_running_loop().create_future()
        self.submit(session, body, lambda answer: future.done() or future.set_result(answer))
        return await future

    def submit(self, session: Session, body: dict, done: Callable[[Answer], None]) -> str | None:
        """A bet: checked now (a refusal is handed to ``done`` at once: None), then
        placed with the next batch under the id returned; ``done`` gets its answer
        in the turn of the loop that has it."""
        checked = self.check(session, body)
        if isinstance(checked, Answer):
            done(checked)
            return None
        offer, position, bet, amount, text = checked
        t = self.rounds.tables.get(offer.table)
        if t is None or not t.betting:
            state = "not heard from" if t is None else f"{t.state or 'idle'}"
            done(refused(409, "betting_closed", f"table {offer.table} is not taking bets (its round is {state})"))
            return None
        key = (offer.table, t.round_id, session.player)
        if self.bets_of(*key) >= offer.max_bets:
            done(refused(409, "too_many_bets", f"at most {offer.max_bets} bets a player in one round of table "
                         f"{offer.table}", reason={"id": "player.refusal.too_many_bets",
                                                   "args": {"max": offer.max_bets}}))
            return None
        self.in_flight[key] = self.in_flight.get(key, 0) + 1
        it = Intent(ids.new_debit(), "bet", session.player, session.currency, amount, offer.table, t.round_id,
                    position, bet, "debiting")
        item = {"ref": it.debit, "position": position, "bet": bet, "amount": text, "round": it.round}
        if offer.position != "player":
            item["player"] = session.player
        self._gathered.append(_Bet(it, key, item, done))
        if not self._soon:  # (on the loop's next turn: the bets read together go together)
            self._soon = True
            asyncio.get_running_loop().call_soon(self._next)
        return it.debit

    def bets_of(self, table: str, round_id: str, player: str) -> int:
        """A player's bets in a round: those the table journaled (whichever process
        sent them: the picture; at least those this process was told were placed,
        whose record the picture may not have read yet) and those still on their
        way from this process."""
        key = (table, round_id, player)
        rnd = self.rounds.rounds.get((table, round_id))
        seen = len(rnd.of(player)) if rnd is not None else 0
        return max(seen, self.placed_here.get(key, 0)) + self.in_flight.get(key, 0)

    def batches(self) -> dict[str, int]:
        """Requests sent so far: debit batches to the wallet, bet requests to the tables."""
        return dict(self.requests)

    # --- a batch ----------------------------------------------------------------------

    def _next(self) -> None:
        """Start the batches that are due: the bets gathered go once ``spacing``
        has passed since the last batch started (at once after a quiet spell),
        or sooner when ``FULL`` are waiting; at most ``IN_FLIGHT`` under way."""
        self._soon = False
        loop = asyncio.get_running_loop()
        while self._gathered and self._busy < IN_FLIGHT:
            due = self._started + self.spacing
            if loop.time() < due and len(self._gathered) < FULL:
                if self._timer is None:
                    self._timer = loop.call_at(due, self._due)
                return
            batch, self._gathered = self._gathered[:BATCH], self._gathered[BATCH:]
            self._started = loop.time()
            self._busy += 1
            task = asyncio.ensure_future(self._batch(batch))
            self.working.add(task)
            task.add_done_callback(self.working.discard)

    def _due(self) -> None:
        self._timer = None
        self._next()

    async def _batch(self, batch: list[_Bet]) -> None:
        try:
            await self._place(batch)
        except Exception as exc:  # (a bug or a broken log: never leave a bettor waiting)
            log.error("platform: a batch of %d bets: %s", len(batch), f"{type(exc).__name__}: {exc}")
            for b in batch:
                if b.key is not None:
                    self._answer(b, refused(503, "temporary_error", "the platform could not take the bet now: if "
                                            "its stake was taken, it is returned when the round closes"))
        finally:
            self._busy -= 1
            self._next()

    async def _place(self, batch: list[_Bet]) -> None:
        await self.intents.add_many([b.it for b in batch])  # on disk before any of their debits is sent
        self.requests["debits"] += 1
        try:
            results = await self.wallet.batch([debit_request(b.it.debit, player=b.it.player, currency=b.it.currency,
                                                             amount=b.it.amount, table=b.it.table, round=b.it.round)
                                               for b in batch], request_id=next(self._ids))
        except WalletError as exc:
            results = [exc] * len(batch)
        debited: dict[str, list[_Bet]] = {}
        lost: list[tuple[_Bet, str]] = []
        wallet_no: list[tuple[str, str, str | None]] = []
        ok = Status.OK  # (``got.ok`` without its property's call, the member looked up once a batch)
        for b, got in zip(batch, results):
            if isinstance(got, WalletError):
                self.counts["unknown"] += 1
                lost.append((b, f"no answer to the debit: {got}"))
            elif got.status is not ok:
                self.counts["refused_by_wallet"] += 1
                wallet_no.append(("refused", got.status.value, b.it.debit))
                self._answer(b, refused(409, got.status.value, got.message or got.status.value,
                                        balance=_text(got.balance)))
            else:
                b.balance = got.balance
                debited.setdefault(b.it.table, []).append(b)
        if wallet_no:  # (not awaited: a debit the wallet refused took nothing; left open, the sweep's cancel is a no-op)
            self.intents.note_many(wallet_no)
        if lost:
            self._cancel_then_answer(lost, lambda b, out: refused(
                503, "wallet_unavailable", "the wallet did not answer: your stake was not taken"
                + ("" if out is not None else " (its cancel is being retried)")))
        if not debited:
            return
        self.faults.at(AFTER_DEBIT)
        if len(debited) == 1:
            await self._to_table(*next(iter(debited.items())))
        else:
            await asyncio.gather(*(self._to_table(table, bets) for table, bets in debited.items()))

    async def _to_table(self, table: str, bets: list[_Bet]) -> None:
        self.requests["to_tables"] += 1
        # (the receipts' shared part once a record: half the reply's bytes to read, its encoding spliced in)
        reply = await self._send(table, {"v": 1, "bets": [b.item for b in bets], "shared": True})
        results = reply.get("results") if isinstance(reply, dict) else None
        parts = reply.get("shared") if isinstance(reply, dict) else None
        if not isinstance(results, list) or len(results) != len(bets):
            results = [reply if isinstance(reply, dict) and "error" in reply else None] * len(bets)
        no: list[tuple[_Bet, str]] = []
        shared: dict[tuple, str] = {}  # (the receipts' shared part, encoded once a group)
        with self.answering():
            for b, result in zip(bets, results):
                it = b.it
                if not isinstance(result, dict):  # the table may or may not hold it: the stream decides at the close
                    self.counts["unknown"] += 1
                    self._answer(b, refused(503, "table_unavailable", f"table {table} did not answer: if the bet "
                                            "does not stand, its stake is returned when the round closes",
                                            bet_id=it.debit))
                elif result.get("ok"):
                    # (its intent is left as written, ``debiting``, not moved to ``placed``: that row
                    # write a bet, and its commit, decided nothing; the stream moves it to ``stood``)
                    self.counts["placed"] += 1
                    head = {"ok": True, "status": "placed", "bet_id": it.debit, "table": table,
                            "round": result.get("round_id") or it.round, "amount": b.item["amount"],
                            "balance": _text(b.balance)}
                    receipt = result.get("receipt")
                    if parts and type(receipt) is dict and "sig" not in receipt:  # (its record's part, given once)
                        self._answer(b, placed_apart(head, receipt, parts, shared))
                    else:
                        self._answer(b, placed_answer(head, receipt, shared))
                else:
                    self.counts["refused_by_table"] += 1
                    b.said = result
                    no.append((b, f"refused by the table: {result.get('reason') or result.get('detail') or 'refused'}"))
        if no:
            self._cancel_then_answer(no, _refused_by_table)

    def _answer(self, b: _Bet, answer: Answer) -> None:
        """``b``'s answer to its sender, its place in the per-round counts moved on."""
        key, b.key = b.key, None
        if key is None:  # (answered already)
            return
        if (left := self.in_flight[key] - 1) > 0:
            self.in_flight[key] = left
        else:
            del self.in_flight[key]
        if answer.body.get("status") == "placed":
            if len(self.placed_here) > 100_000:  # (the rounds gone by: their counts are done with)
                self.placed_here = {k: n for k, n in self.placed_here.items()
                                    if (t := self.rounds.tables.get(k[0])) is not None and t.round_id == k[1]}
            self.placed_here[key] = self.placed_here.get(key, 0) + 1
        try:
            b.done(answer)
        except Exception as exc:  # (a sender gone: the others are answered all the same)
            log.error("platform: answering a bet: %s", f"{type(exc).__name__}: {exc}")

    def _cancel_then_answer(self, items: list[tuple[_Bet, str]], answer) -> None:
        """Cancel these bets' debits together; each answered (``answer(bet, outcome)``)
        once its cancel came back or ``CANCEL_WAIT`` passed (None: it goes on)."""
        async def go() -> None:
            outs = await self.cancel_many([(b.it, why) for b, why in items])
            for (b, _), out in zip(items, outs):
                self._answer(b, answer(b, out))

        task = asyncio.ensure_future(go())
        self.working.add(task)
        task.add_done_callback(self.working.discard)

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

    # --- cancels ----------------------------------------------------------------------

    async def cancel(self, it: Intent, why: str, wait: float = CANCEL_WAIT) -> Outcome | None:
        """Cancel ``it``'s debit (retried until the wallet answers); the
        outcome if it came within ``wait`` seconds, else None (it goes on)."""
        return (await self.cancel_many([(it, why)], wait))[0]

    async def cancel_many(self, items: list[tuple[Intent, str]], wait: float = CANCEL_WAIT) -> list[Outcome | None]:
        """Cancel these debits together (one log write, one wallet batch, each
        retried until the wallet answers); each one's outcome if it came within
        ``wait`` seconds, else None (it goes on)."""
        task = asyncio.ensure_future(self._cancel_all(items))
        self.cancelling.add(task)
        task.add_done_callback(self.cancelling.discard)
        try:
            return await asyncio.wait_for(asyncio.shield(task), wait)
        except asyncio.TimeoutError:
            return [None] * len(items)

    async def _cancel(self, it: Intent, why: str) -> Outcome | None:
        return (await self._cancel_all([(it, why)]))[0]

    async def _cancel_all(self, items: list[tuple[Intent, str]]) -> list[Outcome | None]:
        """Each debit's cancel as the wallet answered it; None for a cancel the
        wallet refused as a request (logged; left ``cancelling``, so the sweep
        tries it again)."""
        await self.intents.move_many([("cancelling", why[:300], it.debit) for it, why in items])
        requests = [cancel_request(ids.cancel_of(it.debit), player=it.player, table=it.table, round=it.round,
                                   debit=it.debit) for it, _ in items]
        outs: list = [None] * len(items)
        todo = list(range(len(items)))
        while todo:  # (the patient client retries a lost batch for ever; a write without an answer goes again)
            got = await self.patient.batch([requests[i] for i in todo], request_id=next(self._ids))
            again = []
            for i, out in zip(todo, got):
                if isinstance(out, WalletUnavailable):
                    again.append(i)
                elif isinstance(out, WalletError):
                    log.error("platform: cancel of %s: %s", items[i][0].debit, out)
                else:
                    outs[i] = out
            if again:
                await asyncio.sleep(1.0)
            todo = again
        done = [(it, out) for (it, _), out in zip(items, outs) if out is not None]
        self.counts["cancelled"] += len(done)
        await self.intents.move_many([("cancelled", out.status.value, it.debit) for it, out in done])
        for it, out in done:
            if not out.ok:
                log.error("platform: cancel of %s answered %s: %s", it.debit, out.status.value, out.message)
        return outs


#: an answer's JSON (compact, as the HTTP route and the socket write it), the encoder made once
_encode = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode
#: a group's receipt: the bet's own fields, then those every bet of its record shares, in this order
_OWN = ("v", "table_id", "seq", "ref", "at", "bet", "path")
_SHARED = wire.RECEIPT_SHARED
_ORDER = _OWN + _SHARED


def placed_answer(head: dict[str, Any], receipt: Any, shared: dict[tuple, str]) -> Answer:
    """A placed bet's answer (``head`` and its ``receipt`` last), with its JSON:
    the receipt's shared part (its record's signed root: the same for every bet
    of the group) encoded once per group through ``shared``, the same bytes as
    the whole body encoded at once."""
    body = {**head, "receipt": receipt}
    if type(receipt) is not dict or tuple(receipt) != _ORDER:
        return Answer(200, body, _encode(body))
    key = tuple(receipt[k] for k in _SHARED)
    tail = shared.get(key)
    if tail is None:
        tail = shared[key] = _encode(dict(zip(_SHARED, key)))[1:]
    return _spliced(head, {k: receipt[k] for k in _OWN}, tail, body)


def placed_apart(head: dict[str, Any], own: dict[str, Any], parts: Any, shared: dict) -> Answer:
    """``placed_answer`` for a receipt the table gave apart from its record's
    shared part (``parts``, by seq): the receipt whole again in the body, and
    the text made from the two as they came (the part's text once a record,
    kept in ``shared`` under its seq)."""
    seq = str(own.get("seq"))
    part = parts.get(seq) if type(parts) is dict else None
    if type(part) is not dict:
        return placed_answer(head, own, shared)
    body = {**head, "receipt": {**own, **part}}
    if tuple(own) != _OWN or tuple(part) != _SHARED:
        return Answer(200, body, _encode(body))
    tail = shared.get(seq)
    if tail is None:
        tail = shared[seq] = _encode(part)[1:]
    return _spliced(head, own, tail, body)


def _spliced(head: dict[str, Any], own: dict[str, Any], tail: str, body: dict[str, Any]) -> Answer:
    """``body``'s answer with its JSON: ``head``, then the receipt's own fields and
    the shared part's text ``tail`` (made once a group), the same bytes as ``body`` encoded."""
    text = _placed_text(head, own, tail)
    if text is None:
        text = f"{_encode(head)[:-1]},\"receipt\":{_encode(own)[:-1]},{tail}}}"
    return Answer(200, body, text)


#: a placed bet's answer's fields, in their order (``Desk._to_table``)
_HEAD = ("ok", "status", "bet_id", "table", "round", "amount", "balance")
#: each byte of a text's UTF-8: 0 where JSON escapes it, else 1. The encoder (``ensure_ascii``
#: off) escapes only the control characters, the quote and the backslash, each a byte under
#: 0x80, and writes every other character as it is (every byte of one past ASCII is 0x80 or
#: more): a text whose bytes are all 1 here is written as it is. (``str.isprintable``, asked
#: before, looked each character up in the Unicode tables: half of an answer's making.)
_AS_IS = bytes(0 if c < 0x20 or c in b'"\\' else 1 for c in range(256))


def _placed_text(head: dict[str, Any], own: dict[str, Any], tail: str) -> str | None:
    """``_spliced``'s text put together field by field (a bet's texts are ids,
    spots, amounts and hex: written in JSON as they are), without the encoder's
    two passes over the dicts (most of a bet's answer's cost); None for one
    with a text JSON escapes (the encoder writes it)."""
    if tuple(head) != _HEAD or head["ok"] is not True or head["status"] != "placed":
        return None
    bet, path, balance = own["bet"], own["path"], head["balance"]
    v, seq, at = own["v"], own["seq"], own["at"]
    if type(bet) is not list or type(path) is not list or type(v) is not int or type(seq) is not int \
            or type(at) is not int:
        return None
    # (a bet's entry ends in its player, null for the position's own seat: the usual entry holds a null)
    nulls = None in bet
    try:
        texts = ",".join((head["bet_id"], head["table"], head["round"], head["amount"], own["table_id"], own["ref"],
                          "" if balance is None else balance, *([b for b in bet if b is not None] if nulls else bet),
                          *path))
    except TypeError:  # (one of them no text)
        return None
    if b"\x00" in texts.encode("utf-8", "surrogatepass").translate(_AS_IS):
        return None
    shown = "null" if balance is None else f'"{balance}"'
    if nulls:
        bets = ",".join(["null" if b is None else f'"{b}"' for b in bet])
    else:
        bets = '"' + '","'.join(bet) + '"' if bet else ""
    paths = '"' + '","'.join(path) + '"' if path else ""
    return (f'{{"ok":true,"status":"placed","bet_id":"{head["bet_id"]}","table":"{head["table"]}",'
            f'"round":"{head["round"]}","amount":"{head["amount"]}","balance":{shown},"receipt":{{"v":{v},'
            f'"table_id":"{own["table_id"]}","seq":{seq},"ref":"{own["ref"]}","at":{at},"bet":[{bets}],'
            f'"path":[{paths}],{tail}}}')


def _refused_by_table(b: _Bet, out: Outcome | None) -> Answer:
    result = b.said
    answer = refused(409, "refused_by_table", str(result.get("reason") or result.get("detail")
                                                  or "refused by the table"), **table_reason(result))
    if out is not None:
        answer.body["balance"] = _text(out.balance)
    return answer


def _text(amount: Decimal | None) -> str | None:
    return None if amount is None else format(amount, "f")
