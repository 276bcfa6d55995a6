"""A currency's amounts in units and as text without Decimal arithmetic:
the very characters, and the same refusals, as the Decimal way."""

from __future__ import annotations

from decimal import Decimal, DecimalException

from hypothesis import given
from hypothesis import strategies as st

from tablecore.money import MONEY, fmt, is_multiple
from tablesim.wallet import protocol as p
from tablesim.wallet.amounts import Unit

#: units as a players file writes them, and some no file would (an exponent, past the finest, negative)
UNITS = ["0.01", "0.10", "0.1", "1", "5", "10", "0.05", "0.5", "0.000000000001", "1000", "0.25", "2.50",
         "1E+1", "0.0000000000001", "-0.01", "0"]


def _decimal_text(units: int, unit: Decimal):
    try:
        return format(MONEY.multiply(Decimal(units), unit), "f")
    except DecimalException as exc:
        return type(exc)


def _text(units: int, unit: Decimal):
    try:
        return Unit(unit).text(units)
    except DecimalException as exc:
        return type(exc)


whole = st.one_of(st.integers(-10**6, 10**6), st.integers(-10**70, 10**70),
                  st.sampled_from([0, 1, -1, 10**58, 10**59 - 1, 10**59, -10**59, 10**60 // 3]))


EDGES = [0, 1, -1, 7, -7, 99, 100, 101, -100, 10**12, -10**12 - 1, 10**58, 10**59 - 1, 10**59, -10**59 + 1,
         -10**59, 10**60 // 3, 10**80]


def test_units_as_text_at_the_edges_are_the_characters_of_the_decimal_way():
    for unit in UNITS:
        for units in EDGES:
            assert _text(units, Decimal(unit)) == _decimal_text(units, Decimal(unit)), (unit, units)


@given(whole, st.sampled_from(UNITS))
def test_units_as_text_are_the_characters_of_the_decimal_way(units, unit):
    assert _text(units, Decimal(unit)) == _decimal_text(units, Decimal(unit))


@given(whole, st.integers(1, 10**6), st.integers(-14, 3))
def test_any_unit_s_text_is_the_decimal_way_s(units, digits, exponent):
    unit = Decimal(digits).scaleb(exponent)
    assert _text(units, unit) == _decimal_text(units, unit)


@given(st.integers(0, 10**14), st.integers(-14, 2), st.sampled_from(UNITS[:13]))
def test_an_amount_s_units_are_the_decimal_way_s_remembered_by_value(digits, exponent, unit_text):
    unit = Unit(Decimal(unit_text))
    amount = Decimal(digits).scaleb(exponent)
    for spelled in (amount, amount.normalize(), amount.quantize(Decimal(1)) if amount == amount.to_integral()
                    else amount):
        if is_multiple(spelled, unit.unit):
            units = int(MONEY.divide(spelled, unit.unit))
            assert unit.units(spelled) == (units, format(MONEY.multiply(Decimal(units), unit.unit), "f"))
        else:
            assert unit.units(spelled) is None


def test_an_amount_s_canonical_text_is_fmt_s_however_spelled():
    for amounts in (("10", "10.00", "1E+1", "10.0"), ("0.50", "0.5"), ("0", "0.00")):
        for text in amounts:
            assert p.amount_text(Decimal(text)) == fmt(Decimal(text))
            record = p.Debit("d", "p", "MOP", Decimal(text), "T", "r")
            assert p.canonical(record) == p.canonical(p.Debit("d", "p", "MOP", Decimal(amounts[0]), "T", "r"))
    assert p.amount_text(None) is None and p.amount_text(0) == "0"
