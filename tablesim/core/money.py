"""Exact money: every amount is a ``Decimal``; floats never reach settlement."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from tablesim.core.errors import InputError

ZERO = Decimal(0)


def parse_amount(value: object, *, field: str = "amount", allow_zero: bool = False) -> Decimal:
    """Turn a script/config/API value into a positive exact amount.

    Accepts ints, Decimals and numeric strings. A float is accepted only via
    its shortest repr (YAML loaders here produce Decimals, so this is a
    fallback for JSON callers), so 0.1 means exactly 0.1.
    """
    if isinstance(value, bool):
        raise InputError(f"{value!r} is not an amount", where=field)
    if isinstance(value, float):
        value = repr(value)
    if isinstance(value, (int, Decimal)):
        amount = Decimal(value)
    elif isinstance(value, str):
        try:
            amount = Decimal(value.strip())
        except InvalidOperation:
            raise InputError(f"{value!r} is not a number", where=field) from None
    else:
        raise InputError(f"{value!r} is not an amount", where=field)
    if not amount.is_finite():
        raise InputError(f"{value!r} is not a finite amount", where=field)
    if amount < 0 or (amount == 0 and not allow_zero):
        raise InputError(f"{value!r} must be {'zero or ' if allow_zero else ''}positive", where=field)
    return amount


def fmt(amount: Decimal) -> str:
    """Canonical text of an amount: no exponent, no trailing zeros, no -0."""
    if amount == 0:
        return "0"
    text = format(amount.normalize(), "f")
    return text


def signed(amount: Decimal) -> str:
    """An amount with its sign: ``+5``, ``-5``, ``0``."""
    return ("+" if amount > 0 else "") + fmt(amount)


def parse_ratio(value: object, *, field: str) -> Decimal:
    """A pay ratio or commission rate from a profile (zero allowed)."""
    return parse_amount(value, field=field, allow_zero=True)
