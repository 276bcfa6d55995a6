"""Exact money: every amount is a ``Decimal``; floats never reach settlement.

Three guarantees, because a table pays real money:

- an amount is read from plain ASCII digits with an optional point
  (``12``, ``12.50``); anything else (an exponent ``1e3``, an underscore
  ``1_000``, non-ASCII digits ``١٠٠`` or ``１００``, infinities, NaN) is
  refused with one line *before* any arithmetic, so no hostile spelling ever
  reaches ``Decimal`` formatting or a huge computation;
- an amount is bounded to what a table carries: at most
  ``MAX_WHOLE_DIGITS`` digits before the point and ``MAX_FRACTION_DIGITS``
  after it;
- money arithmetic runs in ``MONEY``, a context that raises instead of
  rounding (``Inexact``, ``Rounded``): a result is exact or it is an error,
  never silently rounded. ``exact()`` enters it.
"""

from __future__ import annotations

import re
from contextlib import AbstractContextManager
from decimal import (
    Clamped,
    Context,
    Decimal,
    DivisionByZero,
    Inexact,
    InvalidOperation,
    Overflow,
    Rounded,
    Underflow,
    localcontext,
)

from tablecore.errors import InputError

ZERO = Decimal(0)
ONE = Decimal(1)

#: the largest amount a table carries has this many digits before the point
MAX_WHOLE_DIGITS = 12
#: and at most this many after it (finer than any currency's smallest coin)
MAX_FRACTION_DIGITS = 12

#: Every money computation runs here. 60 digits hold a bounded amount
#: (24 digits) times a bounded ratio (24 digits) with room to spare; any
#: rounding raises, so an inexact result can never pass unnoticed.
MONEY = Context(
    prec=60,
    Emax=99,
    Emin=-99,
    traps=[InvalidOperation, DivisionByZero, Overflow, Underflow, Inexact, Rounded, Clamped],
)

_PLAIN = re.compile(r"[0-9]+(?:\.[0-9]+)?", re.ASCII)


def exact() -> AbstractContextManager[Context]:
    """``with exact(): ...`` runs money arithmetic in the trapping context."""
    return localcontext(MONEY)


def _show(value: object) -> str:
    """The offending value for a message: one short line, whatever it was."""
    text = repr(value) if not isinstance(value, str) else repr(value)
    if len(text) > 40:
        text = text[:30] + "..." + text[-6:]
    return text


def _refuse_text(text: str, value: object) -> str | None:
    """Why ``text`` is not a plain amount, or None when it is."""
    if _PLAIN.fullmatch(text):
        return None
    shown = _show(value)
    if not text.isascii():
        return f"{shown} has characters other than the ASCII digits 0-9 and a point"
    if "_" in text:
        return f"{shown} has an underscore: write the digits only"
    if re.fullmatch(r"[-+]?[0-9.]+[eE][-+]?[0-9]+", text):
        return f"{shown} is written with an exponent: write the amount in plain digits"
    if re.fullmatch(r"-[0-9]+(?:\.[0-9]+)?", text):
        return f"{shown} must be positive"
    lowered = text.lower().lstrip("+-")
    if lowered in ("inf", "infinity", "nan", "snan", ".inf", ".nan"):
        return f"{shown} is not a finite amount"
    return f"{shown} is not a number (plain digits with an optional point, e.g. 12.50)"


def _check_bounds(amount: Decimal, value: object) -> str | None:
    """Why a finite ``amount`` is too large or too fine for a table, or None."""
    if amount.is_zero():
        return None
    sign, digits, exponent = amount.as_tuple()
    assert isinstance(exponent, int)
    if amount.adjusted() >= MAX_WHOLE_DIGITS:
        return f"{_show(value)} is too large: at most {MAX_WHOLE_DIGITS} digits before the point"
    # Trailing zeros after the point say nothing: 1.500 is 1.5.
    fraction = -exponent
    while fraction > 0 and digits and digits[-1] == 0:
        digits = digits[:-1]
        fraction -= 1
    if fraction > MAX_FRACTION_DIGITS:
        return f"{_show(value)} is too fine: at most {MAX_FRACTION_DIGITS} digits after the point"
    return None


class WrittenFloat(float):
    """A float read from a file that keeps how it was written (TOML's
    ``1e3`` and ``1000.0`` are one float): an amount is read from its
    text, so an exponent or an underscore is refused as anywhere else."""

    __slots__ = ("written",)

    def __new__(cls, text: str) -> "WrittenFloat":
        self = super().__new__(cls, text.replace("_", ""))
        self.written = text
        return self


def read_amount(value: object) -> Decimal:
    """A bounded, finite Decimal from a script/config/API value (any sign).

    Raises ``ValueError`` with the reason; ``parse_amount`` adds the field.
    """
    # A Decimal first: what the API's parsers and the engine pass most (never a bool).
    if isinstance(value, Decimal):
        if _READ_AS.get(id(value)) is value:  # (read from its text here: checked then; ``as_tuple`` is slow)
            return value
        if value.is_finite():
            # The usual amount (a bet of a few units) is within bounds at a
            # glance: few whole digits, at most MAX_FRACTION_DIGITS after the
            # point even before trailing zeros are dropped.
            exponent = value.as_tuple().exponent
            if -MAX_FRACTION_DIGITS <= exponent and value.adjusted() < MAX_WHOLE_DIGITS:
                return value
        if not value.is_finite():
            raise ValueError(f"{_show(value)} is not a finite amount")
        why = _check_bounds(value, value)
        if why:
            raise ValueError(why)
        return value
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not an amount")
    if isinstance(value, float):
        # as written in its file, else the shortest repr: 0.1 means exactly 0.1 (and 1e+20 is refused)
        value = value.written if type(value) is WrittenFloat else repr(value)
    if isinstance(value, int):
        if abs(value) >= 10**MAX_WHOLE_DIGITS:  # compared, never converted to text
            raise ValueError(f"the amount is too large: at most {MAX_WHOLE_DIGITS} digits before the point")
        return Decimal(value)
    if isinstance(value, str):
        known = _READ.get(value)
        if known is not None:
            return known
        text = value.strip()
        if len(text) > MAX_WHOLE_DIGITS + MAX_FRACTION_DIGITS + 1 + 40:
            # Far past any legal spelling (even with padding zeros): refused unread.
            raise ValueError(f"{_show(value)} is too long for an amount")
        why = _refuse_text(text, value)
        if why:
            raise ValueError(why)
        amount = Decimal(text)
        # Within bounds at a glance (the usual bet), as for a Decimal above.
        if not (-MAX_FRACTION_DIGITS <= amount.as_tuple().exponent and amount.adjusted() < MAX_WHOLE_DIGITS):
            why = _check_bounds(amount, value)
            if why:
                raise ValueError(why)
        if len(_READ) >= _READ_KEPT:
            _READ.clear()
            _READ_AS.clear()
        _READ[value] = amount
        _READ_AS[id(amount)] = amount
        return amount
    raise ValueError(f"{_show(value)} is not an amount")


#: amount texts read lately and what they read as (thousands of bets a
#: second spell the same few amounts; a Decimal is immutable, so shared)
_READ: dict[str, Decimal] = {}
_READ_KEPT = 1024
#: those amounts by their identity (held here, so an id is never another's): a bet's amount read
#: from its text is read again as a Decimal by the table's checks, already known within bounds
_READ_AS: dict[int, Decimal] = {}


#: how an amount is written where it arrives as JSON (the HTTP API, the bus):
#: the one wording of a refusal of its form, wherever it is refused
AMOUNT_FORM = "a string like '12.50' or a whole number; never a float"


def amount_form_refusal(value: object) -> str | None:
    """Why a JSON value is not written as an amount (``AMOUNT_FORM``), or
    None: what it says is then ``parse_amount``'s to check."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return AMOUNT_FORM
    return None


def parse_amount(value: object, *, field: str = "amount", allow_zero: bool = False) -> Decimal:
    """Turn a script/config/API value into a positive exact amount.

    Accepts ints, Decimals and plain numeric strings (see the module's
    rules). A float is accepted only via its shortest repr (YAML loaders here
    produce Decimals, so this is a fallback for JSON callers), so 0.1 means
    exactly 0.1.
    """
    if type(value) is str:
        known = _POSITIVE.get(value)
        if known is not None:  # (read before, and more than zero: an amount for any caller)
            return known
    try:
        amount = read_amount(value)
    except ValueError as exc:
        raise InputError(str(exc), where=field) from None
    if amount < 0 or (amount == 0 and not allow_zero):
        raise InputError(f"{_show(value)} must be {'zero or ' if allow_zero else ''}positive", where=field)
    if amount and type(value) is str:
        if len(_POSITIVE) >= _READ_KEPT:
            _POSITIVE.clear()
        _POSITIVE[value] = amount
    return amount


#: the texts ``parse_amount`` read as amounts above zero lately (a bet's amount: each
#: comparison of a Decimal with zero converts the zero, a fifth of a bus bet's check)
_POSITIVE: dict[str, Decimal] = {}


def fmt(amount: Decimal) -> str:
    """Canonical text of an amount: no exponent, no trailing zeros, no -0."""
    if amount == 0:
        return "0"
    text = format(amount.normalize(MONEY), "f")
    return text


#: the canonical text of the amounts written lately, by value (thousands of bets a second spell
#: the same few amounts; ``fmt`` is a function of the value alone, and its normalising costs
#: more than the rest of a bet's text): read with ``TEXTS.get(a) or kept_text(a)`` on a hot path
TEXTS: dict[Decimal, str] = {}
_TEXTS_KEPT = 4096


def kept_text(amount: Decimal) -> str:
    """``fmt(amount)``, remembered (all forgotten at once when full: a run of odd amounts never grows it)."""
    text = TEXTS.get(amount)
    if text is None:
        if len(TEXTS) >= _TEXTS_KEPT:
            TEXTS.clear()
        text = TEXTS[amount] = fmt(amount)
    return text


def signed(amount: Decimal) -> str:
    """An amount with its sign: ``+5``, ``-5``, ``0``."""
    return ("+" if amount > 0 else "") + fmt(amount)


def parse_ratio(value: object, *, field: str) -> Decimal:
    """A pay ratio or commission rate from a profile (zero allowed)."""
    return parse_amount(value, field=field, allow_zero=True)


# Hot paths call the context's own methods (``MONEY.add(a, b)``): the same
# traps as ``exact()``, without switching the thread's context each time.
add = MONEY.add
multiply = MONEY.multiply
subtract = MONEY.subtract


def is_multiple(amount: Decimal, unit: Decimal) -> bool:
    """Whether ``amount`` is a whole number of ``unit`` (exactly)."""
    return MONEY.remainder(amount, unit).is_zero()


def floor_to(amount: Decimal, unit: Decimal) -> tuple[Decimal, Decimal]:
    """``amount`` rounded down to a whole number of ``unit``, and what was
    cut off (zero or more, less than one unit); both exact."""
    rest = MONEY.remainder(amount, unit)
    if rest < 0:
        rest = MONEY.add(rest, unit)
    return MONEY.subtract(amount, rest), rest
