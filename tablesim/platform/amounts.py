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


#: stakes read before, with their text, by (value, offer, currency): a table's bets come in a few
#: amounts, each read, checked and written once instead of at every bet (a regular expression, a
#: Decimal, its bounds and its text: about a tenth of the platform's own work for a bet)
_KNOWN: dict[tuple[str, Offer, str], tuple[Decimal, str]] = {}
#: the most remembered (then all forgotten at once: a run of odd amounts never grows it)
KNOWN = 4096


def known_stake(value: object, offer: Offer, currency: str) -> tuple[Decimal, str]:
    """``stake`` and its canonical text (``fmt``), the same for the same value,
    offer and currency (a refusal is never remembered: raised each time)."""
    key = (value, offer, currency) if type(value) is str else None
    if key is not None:
        got = _KNOWN.get(key)
        if got is not None:
            return got
    amount = stake(value, offer, currency)
    got = amount, fmt(amount)
    if key is not None:
        if len(_KNOWN) >= KNOWN:
            _KNOWN.clear()
        _KNOWN[key] = got
    return got
