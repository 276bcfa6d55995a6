"""The wallet protocol's records: its statuses, its six calls' requests (read
strictly from untrusted JSON), and the encoding of every answer.

Amounts travel as decimal strings (a JSON number is refused: it may have
been a float somewhere); ids are short ASCII words; a field the protocol
does not know is refused, so a typo never passes as a default.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from decimal import Decimal
from enum import Enum

from tablecore.money import fmt, kept_text, read_amount

VERSION = "v1"
PREFIX = f"/wallet/{VERSION}"
#: the largest request body a wallet reads (a credit names its debits: a few hundred at most)
MAX_BODY = 64 * 1024
MAX_DEBITS = 100


class Status(str, Enum):
    OK = "ok"
    INSUFFICIENT_FUNDS = "insufficient_funds"
    LIMIT_REACHED = "limit_reached"
    UNKNOWN_TRANSACTION = "unknown_transaction"
    ALREADY_SETTLED = "already_settled"
    ALREADY_CANCELLED = "already_cancelled"
    UNKNOWN_PLAYER = "unknown_player"
    INVALID_TOKEN = "invalid_token"
    TOKEN_USED = "token_used"
    WRONG_CURRENCY = "wrong_currency"
    INVALID_REQUEST = "invalid_request"
    ID_REUSED = "id_reused"
    BAD_SIGNATURE = "bad_signature"
    STALE_REQUEST = "stale_request"
    REPLAYED_REQUEST = "replayed_request"
    TEMPORARY_ERROR = "temporary_error"
    FINAL_ERROR = "final_error"

    @property
    def http(self) -> int:
        return _HTTP.get(self, 200)

    @property
    def retry(self) -> bool:
        """Only a temporary error is retried (with the same transaction id)."""
        return self is Status.TEMPORARY_ERROR


_HTTP = {
    Status.INVALID_REQUEST: 400,
    Status.BAD_SIGNATURE: 401,
    Status.STALE_REQUEST: 401,
    Status.REPLAYED_REQUEST: 401,
    Status.ID_REUSED: 409,
    Status.FINAL_ERROR: 500,
    Status.TEMPORARY_ERROR: 503,
}


class Refused(Exception):
    """A request the wallet answers with ``status`` and ``message`` without
    looking at any account (bad JSON, a bad field, a bad signature)."""

    def __init__(self, status: Status, message: str) -> None:
        self.status = status
        self.message = message
        super().__init__(message)


ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/-]{0,99}", re.ASCII)
TOKEN = re.compile(r"[A-Za-z0-9_-]{16,128}", re.ASCII)
CURRENCY = re.compile(r"[A-Z]{3}", re.ASCII)
#: times in answers and in reconciliation queries: UTC, milliseconds, 'Z'
TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z", re.ASCII)


_second: list = [None, ""]


def now_text() -> str:
    """Now in UTC to the millisecond (every row is stamped: the second's
    text is formatted once a second, not once a write)."""
    now = time.time()
    second = int(now)
    if second != _second[0]:
        _second[:] = [second, datetime.fromtimestamp(second, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")]
    return f"{_second[1]}.{int((now - second) * 1000):03d}Z"


def _refuse_float(text: str):
    raise Refused(Status.INVALID_REQUEST, f"a number {text} in the body: amounts are decimal strings, e.g. \"12.50\"")


def _refuse_constant(text: str):
    raise Refused(Status.INVALID_REQUEST, f"{text} is not JSON")


#: made once (``json.loads`` with hooks makes a decoder a call: a large part of a small body's cost)
_DECODER = json.JSONDecoder(parse_float=_refuse_float, parse_constant=_refuse_constant)


def decode(body: bytes) -> dict:
    try:
        text = body.decode(json.detect_encoding(body), "surrogatepass") if isinstance(body, (bytes, bytearray)) \
            else body
        data = _DECODER.decode(text)
    except Refused:
        raise
    except (ValueError, RecursionError):
        raise Refused(Status.INVALID_REQUEST, "the body is not JSON") from None
    if not isinstance(data, dict):
        raise Refused(Status.INVALID_REQUEST, "the body is not a JSON object")
    return data


class _Fields:
    """Reads one request's fields; every field it was not asked for is refused."""

    def __init__(self, data: dict, call: str) -> None:
        self.data = data
        self.call = call
        self.asked: set[str] = set()

    def _bad(self, name: str, why: str) -> Refused:
        return Refused(Status.INVALID_REQUEST, f"{self.call}: {name}: {why}")

    def raw(self, name: str, required: bool = True):
        self.asked.add(name)
        if name not in self.data or self.data[name] is None:
            if required:
                raise self._bad(name, "missing")
            return None
        return self.data[name]

    def text(self, name: str, pattern: re.Pattern, required: bool = True) -> str | None:
        value = self.raw(name, required)
        if value is None:
            return None
        if not isinstance(value, str) or not pattern.fullmatch(value):
            raise self._bad(name, f"{_show(value)} does not match {pattern.pattern}")
        return value

    def amount(self, name: str, *, zero: bool) -> Decimal:
        value = self.raw(name)
        if not isinstance(value, str):
            raise self._bad(name, f"{_show(value)} is not a decimal string (e.g. \"12.50\")")
        if value != value.strip():  # (money is sent as written: a wallet reads "10", never " 10" or "10\t")
            raise self._bad(name, f"{_show(value)} has spaces around it: an amount is its digits only")
        try:
            amount = read_amount(value)
        except ValueError as exc:
            raise self._bad(name, str(exc)) from None
        if amount < 0 or (amount == 0 and not zero):
            raise self._bad(name, f"{_show(value)} must be {'zero or ' if zero else ''}positive")
        return amount

    def integer(self, name: str, default: int, low: int, high: int) -> int:
        value = self.raw(name, required=False)
        if value is None:
            return default
        if type(value) is not int or not low <= value <= high:
            raise self._bad(name, f"{_show(value)} is not a whole number from {low} to {high}")
        return value

    def ids(self, name: str) -> tuple[str, ...]:
        value = self.raw(name)
        if not isinstance(value, list) or not 1 <= len(value) <= MAX_DEBITS:
            raise self._bad(name, f"expected a list of 1 to {MAX_DEBITS} debit ids")
        for item in value:
            if not isinstance(item, str) or not ID.fullmatch(item):
                raise self._bad(name, f"{_show(item)} is not a transaction id")
        if len(set(value)) != len(value):
            raise self._bad(name, "a debit is named twice")
        return tuple(value)

    def done(self) -> None:
        extra = sorted(set(self.data) - self.asked)
        if extra:
            raise self._bad(extra[0], "not a field of this call")


def _show(value: object) -> str:
    text = json.dumps(value) if isinstance(value, (str, int, list, dict, bool)) else repr(value)
    return text if len(text) <= 40 else text[:30] + "..." + text[-6:]


@dataclass(frozen=True, slots=True)
class Authenticate:
    request_id: str
    token: str


@dataclass(frozen=True, slots=True)
class Balance:
    request_id: str
    player: str
    currency: str


@dataclass(frozen=True, slots=True)
class Debit:
    transaction_id: str
    player: str
    currency: str
    amount: Decimal
    table: str
    round: str


@dataclass(frozen=True, slots=True)
class Credit:
    transaction_id: str
    player: str
    currency: str
    amount: Decimal
    table: str
    round: str
    debits: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Cancel:
    transaction_id: str
    player: str
    table: str
    round: str
    debit: str


@dataclass(frozen=True, slots=True)
class Transactions:
    request_id: str
    table: str | None
    round: str | None
    since: str | None
    until: str | None
    after: int
    limit: int


def parse(call: str, data: dict):
    """The request of ``call`` (a path's last part) read from its JSON object."""
    f = _Fields(data, call)
    if call == "authenticate":
        record = Authenticate(f.text("request_id", ID), f.text("token", TOKEN))
    elif call == "balance":
        record = Balance(f.text("request_id", ID), f.text("player", ID), f.text("currency", CURRENCY))
    elif call == "debit":
        record = Debit(f.text("transaction_id", ID), f.text("player", ID), f.text("currency", CURRENCY),
                       f.amount("amount", zero=False), f.text("table", ID), f.text("round", ID))
    elif call == "credit":
        record = Credit(f.text("transaction_id", ID), f.text("player", ID), f.text("currency", CURRENCY),
                        f.amount("amount", zero=True), f.text("table", ID), f.text("round", ID), f.ids("debits"))
    elif call == "cancel":
        record = Cancel(f.text("transaction_id", ID), f.text("player", ID), f.text("table", ID),
                        f.text("round", ID), f.text("debit", ID))
    elif call == "transactions":
        record = _transactions(f)
    else:
        raise Refused(Status.INVALID_REQUEST, f"no call {call!r}")
    f.done()
    return record


#: a debit's fields, all required
_DEBIT_FIELDS = frozenset(("transaction_id", "player", "currency", "amount", "table", "round"))


#: ids lately read that match ``ID`` (a table's bets repeat their players, table and round: each checked once)
_IDS: set[str] = set()
_IDS_KEPT = 8192


def _an_id(text: str) -> bool:
    """``ID.fullmatch(text)`` of a string, remembered when it matches."""
    if text in _IDS:
        return True
    if not ID.fullmatch(text):
        return False
    if len(_IDS) >= _IDS_KEPT:
        _IDS.clear()
    _IDS.add(text)
    return True


def quick_debit(data: dict) -> Debit | None:
    """A debit whose fields are plainly right (nearly every one is), read
    without ``parse``'s field-by-field bookkeeping; None for any other,
    which ``parse`` reads and refuses in its own words. It takes exactly
    what ``parse("debit", data)`` takes."""
    if data.keys() != _DEBIT_FIELDS:
        return None
    tid, player, currency, amount = data["transaction_id"], data["player"], data["currency"], data["amount"]
    table, round_id = data["table"], data["round"]
    if not (type(tid) is str and ID.fullmatch(tid) and type(player) is str and _an_id(player)
            and type(currency) is str and CURRENCY.fullmatch(currency) and type(table) is str
            and _an_id(table) and type(round_id) is str and _an_id(round_id)
            and type(amount) is str and amount == amount.strip()):
        return None
    try:
        value = read_amount(amount)
    except ValueError:
        return None
    if value <= 0:
        return None
    return _new_debit(tid, player, currency, value, table, round_id)


_SET_TID, _SET_PLAYER, _SET_CURRENCY = Debit.transaction_id.__set__, Debit.player.__set__, Debit.currency.__set__
_SET_AMOUNT, _SET_TABLE, _SET_ROUND = Debit.amount.__set__, Debit.table.__set__, Debit.round.__set__


def _new_debit(tid: str, player: str, currency: str, amount: Decimal, table: str, round_id: str) -> Debit:
    """``Debit(...)``, its slots filled by their own descriptors: a frozen
    dataclass's ``__init__`` sets each field through ``object.__setattr__``,
    a third of a debit's reading (the same record: equal, hashed alike, frozen)."""
    debit = object.__new__(Debit)
    _SET_TID(debit, tid)
    _SET_PLAYER(debit, player)
    _SET_CURRENCY(debit, currency)
    _SET_AMOUNT(debit, amount)
    _SET_TABLE(debit, table)
    _SET_ROUND(debit, round_id)
    return debit


def _transactions(f: _Fields) -> Transactions:
    record = Transactions(f.text("request_id", ID), f.text("table", ID, False), f.text("round", ID, False),
                          f.text("since", TIME, False), f.text("until", TIME, False),
                          f.integer("after", 0, 0, 2**62), f.integer("limit", 1000, 1, 10000))
    by_round = record.table is not None or record.round is not None
    by_time = record.since is not None or record.until is not None
    if by_round == by_time or (by_round and (record.table is None or record.round is None)) or (
            by_time and (record.since is None or record.until is None)):
        raise Refused(Status.INVALID_REQUEST,
                      "transactions: give either table and round, or since and until (not both)")
    return record


#: the encoders, made once (``json.dumps`` with arguments makes an encoder a call: a write makes two);
#: their bytes are those ``json.dumps`` made with the same arguments (a kept digest or answer still matches)
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":")).encode
_ANSWER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=True).encode


def plain(text: str) -> bool:
    """``text`` is written in JSON as it is, between quotes (printable ASCII
    without a quote or a backslash: what every id of the protocol is)."""
    return text.isascii() and text.isprintable() and '"' not in text and "\\" not in text


def canonical(record) -> bytes:
    """A request's content, independent of how its JSON was spelled: what a
    repeat of its transaction id must match."""
    if type(record) is Debit:  # (most writes: their fields put in their places, the same bytes, a quarter of the time)
        amount = kept_text(record.amount)  # (a table's bets spell the same few)
        if plain(record.transaction_id + record.player + record.currency + record.table + record.round):
            return (f'["Debit",{{"amount":"{amount}","currency":"{record.currency}","player":"{record.player}",'
                    f'"round":"{record.round}","table":"{record.table}",'
                    f'"transaction_id":"{record.transaction_id}"}}]').encode()
    fields = {}
    for name in record.__slots__:
        v = getattr(record, name)
        fields[name] = fmt(v) if type(v) is Decimal else list(v) if type(v) is tuple else v
    return _CANONICAL([type(record).__name__, fields]).encode()


def encode(answer: dict) -> bytes:
    """An answer's bytes (kept and repeated byte for byte for a repeated transaction id)."""
    return _ANSWER(answer).encode("ascii")


def error_answer(status: Status, message: str) -> bytes:
    return encode({"status": status.value, "message": message})


def amount_text(amount: Decimal | None) -> str | None:
    return None if amount is None else kept_text(amount)
