"""Amounts as each language writes them: the locale's grouping and decimal
signs applied to the amount's own decimal text (exact: never through a
float, never rounded), with the table's currency."""

from __future__ import annotations

import re
from decimal import Decimal
from functools import lru_cache

from babel import Locale
from babel.numbers import get_currency_symbol, get_decimal_symbol, get_group_symbol

from tablesim.i18n.languages import LANGUAGES

#: the tables' currency (Macau pataca) unless a page is told otherwise
CURRENCY = "MOP"
_AMOUNT = re.compile(r"^([+-]?)(\d+)(?:\.(\d+))?$")


@lru_cache(maxsize=32)
def number_signs(lang: str, currency: str = CURRENCY) -> dict[str, object]:
    """What a page needs to write amounts in ``lang``: the grouping and
    decimal signs, the currency's symbol and whether it goes first."""
    loc = Locale.parse(LANGUAGES[lang][0])
    pattern = loc.currency_formats["standard"].pattern
    return {"group": get_group_symbol(loc), "decimal": get_decimal_symbol(loc),
            "currency": currency, "symbol": get_currency_symbol(currency, loc),
            "symbol_first": pattern.lstrip("'").startswith("¤")}


def format_amount(value: str | Decimal, lang: str, currency: str | None = None) -> str:
    """``value`` (a decimal text or a Decimal) grouped by thousands with
    ``lang``'s signs, its digits as given; with ``currency``, its symbol."""
    text = format(value, "f") if isinstance(value, Decimal) else str(value).strip()
    m = _AMOUNT.match(text)
    if m is None:
        raise ValueError(f"not an amount: {text!r}")
    sign, whole, frac = m.groups()
    signs = number_signs(lang, currency or CURRENCY)
    head = len(whole) % 3 or 3
    groups = [whole[:head]] + [whole[i:i + 3] for i in range(head, len(whole), 3)]
    digits = str(signs["group"]).join(groups) + (str(signs["decimal"]) + frac if frac else "")
    if currency is None:
        return sign + digits
    symbol = str(signs["symbol"])
    return f"{sign}{symbol}{digits}" if signs["symbol_first"] else f"{sign}{digits}\u00a0{symbol}"
