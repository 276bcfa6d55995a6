"""The wallet client the platform uses: signed requests, verified answers,
retries with the same transaction id, typed results.

A write's body is built once and sent again, byte for byte, on every retry
(each attempt signed afresh: a new timestamp and nonce), so a wallet that
committed a debit and lost its answer gives the first answer to the retry,
never a second debit. What is retried: a temporary error, and an answer
that never came or cannot be trusted (no connection, a timeout, a body
without a valid signature, e.g. a proxy's error page), and a request
refused as stale while the wallet's clock agrees with ours (it waited in a
queue past the replay window: nothing was done). What is never retried:
any answer the wallet signed with another status.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from decimal import Decimal
from typing import Callable, NamedTuple

import tenacity

from tablecore.errors import InputError, TablesimError
from tablecore.money import MAX_FRACTION_DIGITS, MAX_WHOLE_DIGITS, read_amount
from tablesim.wallet import protocol as p
from tablesim.wallet import signing
from tablesim.wallet.http import Pool, StaleConnection, TransportError
from tablesim.wallet.protocol import Status

#: the wallet's answers that say the request itself is wrong: raised, never retried
_REFUSED = {Status.INVALID_REQUEST, Status.ID_REUSED, Status.BAD_SIGNATURE, Status.STALE_REQUEST,
            Status.REPLAYED_REQUEST}


#: the answer's signature headers, as ``Pool`` gives header names (lower case)
_TS, _SIG = signing.TIMESTAMP.lower(), signing.SIGNATURE.lower()

#: a status by its text (a dict lookup: calling the enum is several times that, once a write)
_STATUS = {s.value: s for s in Status}

#: seconds within which the wallet's answer time and ours count as one clock (below any replay window)
CLOCKS_AGREE = 2.5


class WalletError(TablesimError):
    """Base of the client's errors."""


class WalletUnavailable(WalletError):
    """No trustworthy answer within the attempts: the outcome is unknown;
    the same call with the same transaction id may be made again later."""


class WalletRefused(WalletError):
    """The wallet refused the request itself (bad field, reused id, bad
    signature, clock off): retrying it would get the same."""

    def __init__(self, status: Status, message: str) -> None:
        self.status = status
        super().__init__(f"the wallet refused the request: {status.value}: {message}")


class WalletProtocolError(WalletError):
    """A signed answer that breaks the protocol (a bug of the wallet's)."""


class _Lost(Exception):
    """An attempt without a trustworthy answer (retried)."""


class _Tried:
    """What tenacity's stop and wait read of a call's attempts so far (the first
    one made before its retry loop began: ``WalletClient._retried``)."""

    __slots__ = ("attempt_number", "seconds_since_start")

    def __init__(self, attempt_number: int, seconds_since_start: float) -> None:
        self.attempt_number, self.seconds_since_start = attempt_number, seconds_since_start

    @classmethod
    def after_first(cls, state, started: float) -> "_Tried":
        return cls(state.attempt_number + 1, time.monotonic() - started)


@dataclass(frozen=True, slots=True)
class Account:
    status: Status
    player: str | None
    currency: str | None
    unit: Decimal | None
    balance: Decimal | None
    message: str | None

    @property
    def ok(self) -> bool:
        return self.status is Status.OK


class Outcome(NamedTuple):
    """The answer to a debit, credit or cancel (``cancelled``: what a cancel returned).
    A named tuple, as immutable as the frozen dataclass it was, made at a fifth of
    its cost (one a write of a batch: a frozen dataclass sets each field through
    ``object.__setattr__``)."""

    status: Status
    transaction_id: str
    balance: Decimal | None
    message: str | None
    cancelled: Decimal | None = None

    @property
    def ok(self) -> bool:
        return self.status is Status.OK


@dataclass(frozen=True, slots=True)
class Transaction:
    seq: int
    transaction_id: str
    kind: str
    player: str
    currency: str | None
    table: str
    round: str
    amount: Decimal
    debits: tuple[str, ...] | None
    debit: str | None
    status: Status
    at: str


#: an amount as the wallet writes it (plain digits, an optional point) within ``read_amount``'s bounds:
#: ``read_amount`` reads such a text as ``Decimal(text)`` exactly, its checks and its cache of texts
#: at four times the cost; and an answer's balance is a text not seen before at nearly every write
#: (it pushed the bets' own amounts out of that cache)
_PLAIN_AMOUNT = re.compile(rf"[0-9]{{1,{MAX_WHOLE_DIGITS}}}(?:\.[0-9]{{1,{MAX_FRACTION_DIGITS}}})?", re.ASCII)


#: an ``Outcome`` made from its fields' tuple (its class's ``__new__`` is a Python function around this)
_made = tuple.__new__


def _amount(value) -> Decimal | None:
    if value is None:
        return None
    if type(value) is str and _PLAIN_AMOUNT.fullmatch(value):
        return Decimal(value)
    return read_amount(value)


def _text(amount: Decimal) -> str:
    if type(amount) is Decimal:  # (the usual amount: its text at once)
        return format(amount, "f")
    if not isinstance(amount, (Decimal, int)) or isinstance(amount, bool):
        raise TypeError(f"an amount is a Decimal, not {type(amount).__name__}")
    return format(Decimal(amount), "f")


class WalletClient:
    """``async with WalletClient(url, secret) as wallet: await wallet.debit(...)``.

    ``attempts``/``give_up_after``: when to stop retrying (None: never, for
    settlement, which must be paid however long the wallet is away).
    """

    def __init__(self, url: str, secret: bytes, *, timeout: float = 5.0, attempts: int | None = 8,
                 give_up_after: float | None = 30.0, max_wait: float = 2.0,
                 max_in_flight: int | None = None) -> None:
        self.url = url.rstrip("/")
        self._secret = secret
        try:
            self._http = Pool(self.url, timeout=timeout)
        except ValueError as exc:
            raise InputError(str(exc), where="the wallet's URL") from None
        stops = [tenacity.stop_after_attempt(attempts)] if attempts else []
        stops += [tenacity.stop_after_delay(give_up_after)] if give_up_after else []
        self._stop = tenacity.stop_any(*stops) if stops else tenacity.stop_never
        self._wait = tenacity.wait_random_exponential(multiplier=0.05, max=max_wait)  # full jitter
        self.attempts_made = 0  # every attempt, for tests and the platform's metrics
        #: told ``(call, result, seconds, count)`` of every call (``seconds`` None for the writes
        #: answered inside a batch, whose time is the batch's: ``count`` of them answered ``result``
        #: told at once): the platform's metrics; None: nobody
        self.observer: Callable[..., None] | None = None
        # At most this many requests at the wallet at once (None: no bound): the
        # others wait here, unsigned, so a busy wallet never finds a request
        # that waited in its queue past the replay window.
        self._in_flight = asyncio.Semaphore(max_in_flight) if max_in_flight else None

    async def __aenter__(self) -> "WalletClient":
        return self

    async def __aexit__(self, *exc) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    # --- the calls ----------------------------------------------------------------

    async def authenticate(self, token: str, *, request_id: str) -> Account:
        return self._account(await self._call("authenticate", {"request_id": request_id, "token": token}))

    async def balance(self, player: str, currency: str, *, request_id: str) -> Account:
        return self._account(await self._call("balance", {"request_id": request_id, "player": player,
                                                          "currency": currency}))

    async def debit(self, transaction_id: str, **fields) -> Outcome:
        return self._outcome(await self._call(*debit_request(transaction_id, **fields)))

    async def credit(self, transaction_id: str, **fields) -> Outcome:
        return self._outcome(await self._call(*credit_request(transaction_id, **fields)))

    async def cancel(self, transaction_id: str, **fields) -> Outcome:
        return self._outcome(await self._call(*cancel_request(transaction_id, **fields)))

    async def batch(self, writes: list[tuple[str, dict]], *, request_id: str = "batch") -> list[Outcome | WalletError]:
        """Many writes (``debit_request(...)`` and the like) in one ``batch``
        request, each answered as if sent alone: its ``Outcome``, or the
        ``WalletError`` it would raise alone. A write answered
        ``temporary_error`` is sent again in the next attempt, the others
        are not; a wallet that refuses the batch itself (one without the
        call) gets the writes one by one instead, the same ids."""
        started = time.perf_counter()
        results = await self._batch(writes, request_id)
        if self.observer is not None:
            told: dict[tuple, int] = {}  # (each kind of answer told once, with its count)
            for (name, _), got in zip(writes, results):
                # (an outcome counted by its status, whose text is asked once a kind, not once a write)
                key = (name, _result_of(got) if isinstance(got, WalletError) else got.status)
                told[key] = told.get(key, 0) + 1
            # (a write without an answer is counted "unavailable": the kinds say it, not another pass a write)
            gone = any(result == "unavailable" for _, result in told)
            self.observer("batch", "unavailable" if gone else "ok", time.perf_counter() - started)
            for (name, result), count in told.items():
                self.observer(name, result if type(result) is str else result.value, None, count)
        return results

    async def _batch(self, writes: list[tuple[str, dict]], request_id: str) -> list[Outcome | WalletError]:
        results: list = [None] * len(writes)
        pending = list(range(len(writes)))
        try:
            await self._retried(lambda: self._batch_attempt(writes, pending, results, request_id))
        except _Lost as lost:
            gone = WalletUnavailable(f"no trustworthy answer from the wallet to batch after {lost}")
            for i in pending:
                results[i] = gone
        except WalletRefused as refused:
            if refused.status is not Status.INVALID_REQUEST:
                for i in pending:
                    results[i] = refused
            else:  # (no batch call at this wallet, or it reads ours otherwise): each write alone
                singles = await asyncio.gather(*(self._alone(*writes[i]) for i in pending))
                for i, got in zip(pending, singles):
                    results[i] = got
        return results

    async def _batch_attempt(self, writes, pending: list[int], results: list, request_id: str) -> None:
        """Send the pending writes; fill in their results; leave in ``pending``
        the ones still to send (answered ``temporary_error``)."""
        body = batch_body(request_id, writes, pending)
        answer = await self._attempt(f"{p.PREFIX}/batch", body)
        answers = answer.get("answers")
        if not isinstance(answers, list) or len(answers) != len(pending):
            raise WalletProtocolError(f"the answer to a batch of {len(pending)} holds {_count(answers)} answers")
        again = []
        temporary = Status.TEMPORARY_ERROR  # (looked up once: an enum's member is a class attribute lookup)
        for i, a in zip(pending, answers):
            tid = writes[i][1]["transaction_id"]
            try:
                status = _STATUS[a["status"]]
            except (TypeError, KeyError):
                raise WalletProtocolError(f"a batch answer that is not the protocol's: {str(a)[:80]}") from None
            if a.get("transaction_id", tid) != tid:  # (a refusal of the request itself names none)
                raise WalletProtocolError(f"the batch's answer to {tid!r} names {a.get('transaction_id')!r}")
            if status is temporary:
                again.append(i)
            elif status in _REFUSED:
                results[i] = WalletRefused(status, str(a.get("message")))
            else:  # (``_outcome``, its status read already)
                results[i] = _made(Outcome, (status, a["transaction_id"], _amount(a.get("balance")), a.get("message"),
                                             _amount(a.get("cancelled"))))
        pending[:] = again
        if again:
            raise _Lost(f"temporary error for {len(again)} of the batch's writes")

    async def _alone(self, name: str, payload: dict) -> Outcome | WalletError:
        try:
            return self._outcome(await self._call(name, payload))
        except WalletError as exc:
            return exc

    async def transactions(self, *, request_id: str, table: str | None = None, round: str | None = None,
                           since: datetime | str | None = None, until: datetime | str | None = None,
                           limit: int = 1000) -> list[Transaction]:
        """Every transaction of a round, or of a time window (all pages)."""
        query = {"request_id": request_id, "limit": limit}
        if table is not None or round is not None:
            query.update(table=table, round=round)
        else:
            query.update(since=_time(since), until=_time(until))
        found: list[Transaction] = []
        while True:
            answer = await self._call("transactions", query)
            found += [_transaction(row) for row in answer["transactions"]]
            if answer.get("next") is None:
                return found
            query = {**query, "after": answer["next"]}

    # --- the exchange -------------------------------------------------------------

    async def _call(self, name: str, payload: dict) -> dict:
        if self.observer is None:
            return await self._exchange(name, payload)
        started = time.perf_counter()
        result = "ok"
        try:
            answer = await self._exchange(name, payload)
            result = str(answer.get("status", "ok"))
            return answer
        except WalletError as exc:
            result = _result_of(exc)
            raise
        finally:
            self.observer(name, result, time.perf_counter() - started)

    async def _exchange(self, name: str, payload: dict) -> dict:
        body = json.dumps(payload, separators=(",", ":")).encode()
        path = f"{p.PREFIX}/{name}"
        try:
            answer = await self._retried(lambda: self._attempt(path, body))
        except _Lost as lost:
            raise WalletUnavailable(f"no trustworthy answer from the wallet to {name} after {lost}") from None
        key = "transaction_id" if "transaction_id" in payload else "request_id"
        if answer.get(key, payload[key]) != payload[key]:
            raise WalletProtocolError(f"the answer to {name} {payload[key]!r} names {answer.get(key)!r}")
        return answer

    async def _retried(self, once):
        """``once()``'s result, tried again while it raises ``_Lost`` (backoff with
        full jitter, until the client's attempts or time run out: then ``_Lost``,
        saying after how many attempts). The first attempt goes without the retry
        machinery, whose set-up per call costs more than a small call itself."""
        started = time.monotonic()
        try:
            return await once()
        except _Lost as lost:
            first = _Tried(1, time.monotonic() - started)
            if self._stop(first):
                raise _Lost(f"1 attempt: {lost}") from None
            await asyncio.sleep(self._wait(first))
        retrying = tenacity.AsyncRetrying(stop=lambda state: self._stop(_Tried.after_first(state, started)),
                                          wait=lambda state: self._wait(_Tried.after_first(state, started)),
                                          reraise=True, retry=tenacity.retry_if_exception_type(_Lost))
        try:
            async for attempt in retrying:
                with attempt:
                    result = await once()
        except _Lost as lost:
            raise _Lost(f"{retrying.statistics.get('attempt_number', 0) + 1} attempts: {lost}") from None
        return result

    async def _attempt(self, path: str, body: bytes) -> dict:
        if self._in_flight is None:
            return await self._signed_attempt(path, body)
        async with self._in_flight:
            return await self._signed_attempt(path, body)

    async def _signed_attempt(self, path: str, body: bytes) -> dict:
        for fresh in (False, True):
            self.attempts_made += 1
            nonce = signing.new_nonce()
            headers = signing.request_headers(self._secret, path, body, timestamp=int(time.time()), nonce=nonce)
            try:
                response = await self._http.post(path.removeprefix(p.PREFIX), body, headers)
                break
            except StaleConnection as exc:  # (a kept connection the wallet had closed: sent again, signed afresh)
                if fresh:
                    raise _Lost(str(exc)) from None
            except TransportError as exc:  # no answer (it may have been committed: the retry says)
                raise _Lost(str(exc)) from None
        return self._verified(response, nonce)

    def _verified(self, response, nonce: str) -> dict:
        """The signed answer's body, or why it cannot be taken."""
        ts, sig = response.headers.get(_TS, ""), response.headers.get(_SIG, "")
        if not (signing.SIGNATURE_FORMAT.fullmatch(sig) and signing.TIMESTAMP_FORMAT.fullmatch(ts)
                and signing.verify(self._secret, signing.answer_message(ts, nonce, response.content), sig)):
            raise _Lost(f"HTTP {response.status} without a valid signature")
        try:
            answer = p.decode(response.content)
            status = Status(answer["status"])
        except (p.Refused, KeyError, ValueError):
            raise WalletProtocolError(f"a signed answer that is not the protocol's: {response.content[:80]!r}")
        if status is Status.TEMPORARY_ERROR:
            raise _Lost(f"temporary error: {answer.get('message')}")
        if status is Status.STALE_REQUEST and abs(int(ts) - time.time()) <= CLOCKS_AGREE:
            # The wallet's clock agrees with ours, so the request itself waited (in a queue of
            # the client's or the network's) past the window: refused before anything was done,
            # it is sent again, signed afresh. Clocks that disagree are refused (WalletRefused).
            raise _Lost(f"the request reached the wallet too late: {answer.get('message')}")
        if status in _REFUSED:
            raise WalletRefused(status, str(answer.get("message")))
        return answer

    def _account(self, a: dict) -> Account:
        return Account(Status(a["status"]), a.get("player"), a.get("currency"), _amount(a.get("unit")),
                       _amount(a.get("balance")), a.get("message"))

    def _outcome(self, a: dict) -> Outcome:
        return Outcome(_STATUS.get(a["status"]) or Status(a["status"]), a["transaction_id"], _amount(a.get("balance")), a.get("message"),
                       _amount(a.get("cancelled")))


def debit_request(transaction_id: str, *, player: str, currency: str, amount: Decimal, table: str,
                  round: str) -> tuple[str, dict]:
    """A debit as ``WalletClient.batch`` takes it (and ``debit`` sends it)."""
    return "debit", {"transaction_id": transaction_id, "player": player, "currency": currency,
                     "amount": _text(amount), "table": table, "round": round}


#: a debit's fields, in the order ``debit_request`` writes them
_DEBIT = ("transaction_id", "player", "currency", "amount", "table", "round")
#: a batch of debits' JSON around its texts: the head and its request id, each debit's pieces
#: around its six fields, the calls' separator and the tail
_HEAD = ('{"request_id":"', '","calls":[')
_PIECES = ('{"call":"debit","request":{"transaction_id":"', '","player":"', '","currency":"', '","amount":"',
           '","table":"', '","round":"', '"}}')
#: the bytes JSON writes as they are (printable ASCII but the quote and the backslash): deleted from
#: a body written by hand, what is left must be its own quotes (a text's quote or any byte the
#: encoder escapes leaves one more)
_AS_IS = bytes(c for c in range(0x20, 0x7F) if c not in b'"\\')
_HEAD_QUOTES, _DEBIT_QUOTES = "".join(_HEAD).count('"'), "".join(_PIECES).count('"')
_encode = json.JSONEncoder(separators=(",", ":")).encode


def batch_body(request_id: str, writes: list[tuple[str, dict]], pending: list[int]) -> bytes:
    """The ``batch`` request of ``writes[i]`` for each ``i`` of ``pending``, the
    bytes ``json.dumps`` writes (compact). A batch of debits as ``debit_request``
    makes them, every text plain, is written piece by piece, in half the
    encoder's time (the encoder walks a dict a write, and a dict of its own
    around each); any other, by the encoder."""
    parts = [_HEAD[0], request_id, _HEAD[1]]
    c0, c1, c2, c3, c4, c5, c6 = _PIECES
    try:
        for i in pending:
            name, r = writes[i]
            if name != "debit" or type(r) is not dict or tuple(r) != _DEBIT:
                break
            parts += (c0, r["transaction_id"], c1, r["player"], c2, r["currency"], c3, r["amount"], c4, r["table"],
                      c5, r["round"], c6, ",")
        else:
            if pending:
                parts[-1] = "]}"  # (in place of the last separator)
            else:
                parts.append("]}")
            # (a text that is not a str, or a lone surrogate, raises: the encoder's then)
            body = "".join(parts).encode()
            if len(body.translate(None, _AS_IS)) == _HEAD_QUOTES + _DEBIT_QUOTES * len(pending):
                return body
    except (TypeError, UnicodeEncodeError):
        pass
    calls = [{"call": writes[i][0], "request": writes[i][1]} for i in pending]
    return _encode({"request_id": request_id, "calls": calls}).encode()


def credit_request(transaction_id: str, *, player: str, currency: str, amount: Decimal, table: str, round: str,
                   debits: list[str] | tuple[str, ...]) -> tuple[str, dict]:
    return "credit", {"transaction_id": transaction_id, "player": player, "currency": currency,
                      "amount": _text(amount), "table": table, "round": round, "debits": list(debits)}


def cancel_request(transaction_id: str, *, player: str, table: str, round: str, debit: str) -> tuple[str, dict]:
    return "cancel", {"transaction_id": transaction_id, "player": player, "table": table, "round": round,
                      "debit": debit}


def _count(answers) -> str:
    return str(len(answers)) if isinstance(answers, list) else "no list of"


def _time(value: datetime | str | None) -> str:
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise ValueError("a naive datetime: give one in UTC")
        return value.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    if not isinstance(value, str) or not p.TIME.fullmatch(value):
        raise ValueError(f"{value!r} is not a time (YYYY-MM-DDTHH:MM:SS.mmmZ)")
    return value


def _transaction(row: dict) -> Transaction:
    return Transaction(row["seq"], row["transaction_id"], row["kind"], row["player"], row["currency"], row["table"],
                       row["round"], read_amount(row["amount"]),
                       None if row["debits"] is None else tuple(row["debits"]), row["debit"], Status(row["status"]),
                       row["at"])


def _result_of(exc: WalletError) -> str:
    """A failed call's result label: the wallet's refusal status, or what went wrong (a few words)."""
    if isinstance(exc, WalletRefused):
        return exc.status.value
    return "unavailable" if isinstance(exc, WalletUnavailable) else "protocol_error"
