"""A player's stake as asked: a decimal string in the table's currency and
unit, refused in one line before anything is debited."""

from __future__ import annotations

import re
from decimal import Decimal

from tablecore.money import fmt, is_multiple, read_amount
from tablesim.platform.tables import Offer


#: plain digits with an optional point: no sign, no exponent, no spaces (as the wallet takes them)
FORM = re.compile(r"[0-9]{1,12}(\.[0-9]{1,12})?", re.ASCII)


class BadBet(ValueError):
    """A bet refused before any debit (the text says why)."""


def stake(value: object, offer: Offer, currency: str) -> Decimal:
    """The stake of ``value`` at ``offer``'s table for a player of ``currency``."""
    if currency != offer.currency:
        raise BadBet(f"table {offer.table} plays in {offer.currency}, your account is in {currency}")
    if isinstance(value, bool) or not isinstance(value, str):
        raise BadBet(f"amount: {value!r} is not a decimal string (e.g. \"10\"); numbers are never taken")
    if not FORM.fullmatch(value):
        raise BadBet(f"amount: {value[:40]!r} is not a plain decimal (digits, an optional point: \"12.50\")")
    amount = read_amount(value)
    if amount <= 0:
        raise BadBet(f"amount: {value!r} must be positive")
    if amount > offer.max:
        raise BadBet(f"amount: {fmt(amount)} is over table {offer.table}'s largest stake {fmt(offer.max)}")
    if not is_multiple(amount, offer.unit):
        raise BadBet(f"amount: {fmt(amount)} is not a whole multiple of table {offer.table}'s unit {fmt(offer.unit)}")
    return amount
