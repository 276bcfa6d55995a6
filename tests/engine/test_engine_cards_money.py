"""Card codes and exact money: the two kinds of input every game shares."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tablecore.cards import DECK, Card, DealtCard, card, codes, parse_cards, parse_dealt
from tablecore.errors import InputError
from tablecore.money import ZERO, fmt, parse_amount, parse_ratio


# --- cards -------------------------------------------------------------------


def test_deck_has_52_distinct_interned_cards():
    assert len(DECK) == 52
    assert len({(c.rank, c.suit) for c in DECK}) == 52
    assert sorted(c.index for c in DECK) == list(range(52))
    assert {c.rank for c in DECK} == set(range(2, 15))
    assert {c.suit for c in DECK} == set("SHDC")


@pytest.mark.parametrize(
    "code, rank, suit",
    [("AS", 14, "S"), ("KH", 13, "H"), ("QD", 12, "D"), ("JC", 11, "C"), ("TD", 10, "D"),
     ("10H", 10, "H"), ("9S", 9, "S"), ("2C", 2, "C")],
)
def test_card_codes(code, rank, suit):
    c = card(code)
    assert (c.rank, c.suit) == (rank, suit)
    assert c is next(d for d in DECK if d.rank == rank and d.suit == suit)  # interned


def test_ten_is_written_T():
    assert card("10H").code == "TH"
    assert card("10H") is card("TH")


@pytest.mark.parametrize("code", ["as", "td", "10h", "kS", "Qd", " 7c "])
def test_lowercase_and_padding_accepted(code):
    assert card(code) is card(code.strip().upper())


def test_exposed_mark():
    d = parse_dealt("AS^")
    assert d == DealtCard(card("AS"), True)
    assert d.exposed and d.code == "AS^"
    assert parse_dealt("10h^") == DealtCard(card("TH"), True)
    plain = parse_dealt("AS")
    assert not plain.exposed and plain.code == "AS"


def test_plain_card_refuses_exposed_mark():
    with pytest.raises(InputError, match="exposed"):
        card("AS^")


@pytest.mark.parametrize(
    "bad",
    ["1S", "KX", "AAS", "", "A", "S", "10", "11H", "0S", "1H", "AS^^", "^AS", "A S", "TEN", "ZZ", "J0",
     "AS10", "AH ^"],
)
def test_bad_codes_rejected(bad):
    with pytest.raises(InputError) as info:
        parse_dealt(bad)
    assert repr(bad) in str(info.value)


@pytest.mark.parametrize("bad", [None, 14, 1.5, b"AS", ["AS"], {"AS": 1}, True])
def test_non_strings_rejected(bad):
    with pytest.raises(InputError, match="not a card code"):
        parse_dealt(bad)
    with pytest.raises(InputError):
        card(bad)


def test_parse_cards_and_codes_round_trip():
    cs = parse_cards(["AS", "10d", "2c"])
    assert codes(cs) == ["AS", "TD", "2C"]
    assert codes([DealtCard(cs[0], True)]) == ["AS^"]
    assert str(cs[0]) == "AS" and repr(cs[0]) == "Card(AS)"


def test_every_deck_card_round_trips():
    for c in DECK:
        assert card(c.code) is c
        assert card(c.code.lower()) is c
        assert parse_dealt(c.code + "^") == DealtCard(c, True)


def test_cards_are_immutable():
    with pytest.raises(AttributeError):
        card("AS").rank = 2  # type: ignore[misc]
    assert isinstance(card("AS"), Card)


# --- money -------------------------------------------------------------------


@pytest.mark.parametrize(
    "value, expected",
    [
        (10, Decimal("10")),
        ("12.5", Decimal("12.5")),
        (" 3 ", Decimal("3")),
        (Decimal("0.95"), Decimal("0.95")),
        (0.1, Decimal("0.1")),  # a float is read by its shortest repr, never its binary value
        (2.675, Decimal("2.675")),
        ("000012.50", Decimal("12.5")),
        (10**12 - 1, Decimal(10**12 - 1)),
        ("0.000000000001", Decimal("0.000000000001")),
    ],
)
def test_parse_amount_accepts(value, expected):
    got = parse_amount(value)
    assert isinstance(got, Decimal)
    assert got == expected


def test_floats_never_produce_artefacts():
    assert parse_amount(0.1) + parse_amount(0.2) == Decimal("0.3")
    assert fmt(parse_amount(0.95) * 5) == "4.75"
    assert fmt(parse_amount(1.1) * 3) == "3.3"
    assert fmt(parse_amount(0.1) * 3) == "0.3"
    assert fmt(parse_amount(2.675) * 100) == "267.5"


@pytest.mark.parametrize(
    "bad",
    [0, "0", -1, "-100", -0.5, Decimal("-0.01"), "ten", "", "1,5", "NaN", "nan", "sNaN", "inf",
     "-Infinity", float("nan"), float("inf"), float("-inf"), Decimal("NaN"), Decimal("Infinity"),
     None, True, False, [10], {"a": 1}, b"10"],
)
def test_parse_amount_refuses(bad):
    with pytest.raises(InputError):
        parse_amount(bad)


def test_parse_amount_error_names_field():
    with pytest.raises(InputError) as info:
        parse_amount("ten", field="bets.1.ante")
    assert info.value.where == "bets.1.ante"
    assert "ten" in str(info.value)


def test_zero_allowed_only_when_asked():
    assert parse_amount(0, allow_zero=True) == ZERO
    assert parse_ratio("0", field="x") == ZERO
    with pytest.raises(InputError):
        parse_ratio(-1, field="x")
    with pytest.raises(InputError):
        parse_amount("0")


@pytest.mark.parametrize(
    "amount, text",
    [
        (Decimal("0.95"), "0.95"),
        (Decimal("-100"), "-100"),
        (Decimal("0"), "0"),
        (Decimal("-0"), "0"),
        (Decimal("0.000"), "0"),
        (Decimal("-0.00"), "0"),
        (Decimal("100"), "100"),
        (Decimal("1E+3"), "1000"),
        (Decimal("1.50E+2"), "150"),
        (Decimal("12.50"), "12.5"),
        (Decimal("-0.10"), "-0.1"),
        (Decimal("1E-7"), "0.0000001"),
        (Decimal("2.5") * 40, "100"),
        (Decimal("1.05") * 4, "4.2"),
    ],
)
def test_fmt(amount, text):
    assert fmt(amount) == text


@given(st.decimals(allow_nan=False, allow_infinity=False, min_value=-10**12, max_value=10**12, places=4))
def test_fmt_never_uses_an_exponent_and_round_trips(value):
    text = fmt(value)
    assert "e" not in text.lower()
    assert Decimal(text) == value
    assert text != "-0"
    if "." in text:
        assert not text.endswith("0") and not text.endswith(".")
