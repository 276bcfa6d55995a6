"""Money at the edges: hostile spellings refused before any
arithmetic, amounts bounded, arithmetic that never rounds silently."""

from __future__ import annotations

from decimal import Context, Decimal, Inexact, Rounded

import pytest
from hypothesis import given, strategies as st

from tablecore.errors import InputError
from tablecore.money import MAX_WHOLE_DIGITS, exact, floor_to, fmt, is_multiple, parse_amount


@pytest.mark.parametrize(
    "bad, why",
    [
        ("1e3", "exponent"),
        ("1E+3", "exponent"),
        ("1e1000000", "exponent"),
        ("1.5e-2", "exponent"),
        (1e20, "exponent"),  # a float's shortest repr has an exponent
        ("1_000", "underscore"),
        ("١٠٠", "ASCII"),  # Arabic-Indic digits
        ("１００", "ASCII"),  # full-width digits
        ("٣.٥", "ASCII"),
        ("-5", "positive"),
        ("Infinity", "finite"),
        ("0x10", "not a number"),
        ("1234567890123", "too large"),
        (10**12, "too large"),
        (10**100000, "too large"),
        ("1.0000000000000000000000000001", "too fine"),
        (Decimal("1E+1000000"), "too large"),
        (Decimal("1E-1000000"), "too fine"),
        ("9" * 1000000, "too long"),
    ],
    ids=lambda v: v if isinstance(v, str) and len(v) < 40 else type(v).__name__,
)
def test_hostile_spellings_refused_with_one_line(bad, why):
    with pytest.raises(InputError) as info:
        parse_amount(bad, field="bets.1.ante")
    text = str(info.value)
    assert why in text
    assert "\n" not in text and len(text) < 200
    assert info.value.where == "bets.1.ante"


def test_bounds_are_inclusive_of_the_largest_amount():
    assert parse_amount("999999999999.999999999999") == Decimal("999999999999.999999999999")
    assert MAX_WHOLE_DIGITS == 12
    assert parse_amount("1.500000000000000000") == Decimal("1.5")  # trailing zeros say nothing


def test_exact_context_raises_instead_of_rounding():
    with exact():
        with pytest.raises((Inexact, Rounded)):
            Decimal(1) / Decimal(3)
        with pytest.raises((Inexact, Rounded)):
            Decimal("1" * 40) * Decimal("1" * 40)
        assert Decimal("999999999999.999999999999") * 45 == Decimal("44999999999999.999999999955")


@given(st.decimals(min_value=Decimal("0.01"), max_value=Decimal("1e9"), places=2),
       st.sampled_from([Decimal("0.01"), Decimal("0.05"), Decimal(1), Decimal(5), Decimal("0.25")]))
def test_floor_to_unit(amount, unit):
    paid, rest = floor_to(amount, unit)
    assert paid + rest == amount
    assert is_multiple(paid, unit)
    assert Decimal(0) <= rest < unit
    assert fmt(paid) == fmt(paid)  # formats without error


def test_fmt_of_bounded_amounts_is_plain():
    assert fmt(Decimal("1E+11")) == "100000000000"
    assert fmt(Decimal("-0.950")) == "-0.95"


@given(st.decimals(allow_nan=True, allow_infinity=True, places=None))
def test_a_decimal_amount_is_bounded_by_its_digits(value):
    """A Decimal amount passes exactly when it is finite, has at most
    MAX_WHOLE_DIGITS before the point and MAX_FRACTION_DIGITS after it
    (trailing zeros aside): the Decimal path's shortcut for the usual
    amounts agrees with the full check."""
    from tablecore.money import MAX_FRACTION_DIGITS, read_amount

    try:
        got = read_amount(value)
    except ValueError:
        got = None
    if not value.is_finite():
        assert got is None
        return
    _, digits, exponent = value.as_tuple()
    while exponent < 0 and digits and digits[-1] == 0:
        digits, exponent = digits[:-1], exponent + 1
    fraction = 0 if value.is_zero() else max(0, -exponent)
    whole_ok = value.is_zero() or value.adjusted() < MAX_WHOLE_DIGITS
    assert (got is not None) == (whole_ok and fraction <= MAX_FRACTION_DIGITS)
    if got is not None:
        assert got is value


@given(st.decimals(allow_nan=True, allow_infinity=True, places=None).map(str)
       | st.from_regex(r"\A-?[0-9]{1,14}(\.[0-9]{0,14})?\Z"))
def test_an_amount_read_from_text_reads_again_as_any_equal_decimal_would(text):
    """A Decimal read from its text here is known within bounds when read again (the
    table's checks read a bet's amount a second time): the same answer as for an equal
    Decimal made anew, which is checked in full."""
    from tablecore.money import read_amount

    def outcome(value):
        try:
            return "ok", read_amount(value)
        except ValueError as exc:
            return "refused", str(exc).replace(repr(value), "")

    first = outcome(text)
    if first[0] != "ok":
        return
    again, fresh = outcome(first[1]), outcome(Decimal(str(first[1])))
    assert again[1] is first[1]
    assert again[0] == fresh[0] and (again[1].as_tuple(), again[1].adjusted()) == (fresh[1].as_tuple(), fresh[1].adjusted())
    # an equal amount of another spelling (its exponent) is another Decimal: checked in full
    finer = Context(prec=100).quantize(first[1], Decimal(1).scaleb(-20))
    assert outcome(finer)[0] == outcome(Decimal(str(finer)))[0]


def test_an_amount_read_before_is_read_the_same_and_zero_or_below_is_refused_every_time():
    """``parse_amount`` keeps the texts it read above zero: the same Decimal
    again for any caller; zero (allowed to one caller) and what is below it
    never kept, refused each time they are not allowed; the kept texts bounded."""
    from tablecore import money

    assert parse_amount("12.50") == Decimal("12.50") and parse_amount("12.50") is parse_amount("12.50")
    assert parse_amount("0", allow_zero=True) == 0
    for _ in range(2):
        with pytest.raises(InputError, match="positive"):
            parse_amount("0")
        with pytest.raises(InputError, match="positive"):
            parse_amount("-3")
    for i in range(3 * money._READ_KEPT):
        assert parse_amount(f"{i + 1}.5") == Decimal(i + 1) + Decimal("0.5")
    assert len(money._POSITIVE) <= money._READ_KEPT
