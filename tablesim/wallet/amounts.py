"""A currency's amounts as the ledger keeps them: whole numbers of its unit,
and their text.

Every write turns its amount into units and two figures (its amount, the
balance) into text: by ``Decimal`` arithmetic in ``MONEY`` that was a fifth
of a debit's Python. Here a unit ``c * 10**-k`` (every currency's: a unit is
read as an amount) gives a text by placing the point in the integer
``units * c``, the very characters ``format(units * unit, "f")`` gives; an
amount's units are remembered by its value (a table's bets spell the same
few amounts).
"""

from __future__ import annotations

from decimal import Decimal

from tablecore.money import MAX_FRACTION_DIGITS, MONEY, is_multiple

#: at or past this many digits ``MONEY`` (60 digits) would refuse the product:
#: the Decimal way then, to refuse it the same
_LARGE = 10 ** 59
#: amounts remembered per currency (emptied when full)
_KEPT = 1024


class Unit:
    """One currency's unit: amounts to units and units to text."""

    def __init__(self, unit: Decimal) -> None:
        self.unit = unit
        sign, digits, exponent = unit.as_tuple()
        plain = (sign == 0 and unit != 0 and isinstance(exponent, int)  # (a zero unit's products may be -0)
                 and -MAX_FRACTION_DIGITS <= exponent <= 0)
        #: (the unit's digits as an integer, its places after the point); None: always the Decimal way
        self._scaled = (int("".join(map(str, digits))), -exponent) if plain else None
        self._units: dict[Decimal, tuple[int, str]] = {}

    def text(self, units: int) -> str:
        """``units`` of the currency as text: ``format(MONEY.multiply(Decimal(units), unit), "f")``."""
        scaled = self._scaled
        if scaled is None or not -_LARGE < units * scaled[0] < _LARGE:
            return format(MONEY.multiply(Decimal(units), self.unit), "f")
        value = units * scaled[0]
        places = scaled[1]
        digits = str(-value if value < 0 else value)
        if places:
            digits = digits.rjust(places + 1, "0")
            digits = f"{digits[:-places]}.{digits[-places:]}"
        return "-" + digits if value < 0 else digits

    def units(self, amount: Decimal) -> tuple[int, str] | None:
        """(``amount`` in whole units, their text), or None when it is no whole
        number of units. Remembered by value: 10 and 10.00 are the same units."""
        known = self._units.get(amount)
        if known is None:
            if not is_multiple(amount, self.unit):
                return None
            units = int(MONEY.divide(amount, self.unit))
            known = (units, self.text(units))
            if len(self._units) >= _KEPT:
                self._units.clear()
            self._units[amount] = known
        return known
