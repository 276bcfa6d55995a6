"""Choosing a language from Accept-Language, amounts in each language's
signs (exact), placeholders."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, strategies as st

from tablesim.i18n import DEFAULT, LANGUAGES, format_amount, negotiate, say


@pytest.mark.parametrize("header, lang", [
    ("zh-MO,zh;q=0.9,en;q=0.8", "zh-Hant"), ("zh-Hant-TW", "zh-Hant"), ("zh-CN", "zh-Hant"),
    ("pt-PT,pt;q=0.9", "pt"), ("pt-BR", "pt"), ("fr-FR,pt;q=0.5,en;q=0.4", "pt"),
    ("en;q=0.2, pt;q=0.8", "pt"), ("de, *;q=0.1", DEFAULT), ("pt;q=0, en", "en"),
    ("", DEFAULT), (None, DEFAULT), ("fr", DEFAULT), (";;;q=x,,", DEFAULT), ("pt;q=2", DEFAULT),
])
def test_the_language_an_accept_language_header_prefers(header, lang):
    assert negotiate(header) == lang


@given(st.text(max_size=300))
def test_any_header_gives_one_of_the_languages(header):
    assert negotiate(header) in LANGUAGES


def test_amounts_in_each_language():
    assert format_amount("1234567.50", "en") == "1,234,567.50"
    assert format_amount("1234567.50", "zh-Hant") == "1,234,567.50"
    assert format_amount("1234567.50", "pt") == "1\u00a0234\u00a0567,50"
    assert format_amount(Decimal("-1000"), "en", "MOP") == "-MOP$1,000"
    assert format_amount("1000.5", "pt", "MOP") == "1\u00a0000,5\u00a0MOP$"
    assert format_amount("999", "pt") == "999"
    # digits exactly as given: nothing rounded, nothing through a float
    assert format_amount("12345678901234567890.123456789", "en") == "12,345,678,901,234,567,890.123456789"
    with pytest.raises(ValueError):
        format_amount("1e3", "en")


@given(st.decimals(allow_nan=False, allow_infinity=False, places=4, min_value=-10**15, max_value=10**15),
       st.sampled_from(sorted(LANGUAGES)))
def test_an_amount_keeps_its_digits(value, lang):
    text = format_amount(value, lang)
    signs = {"en": (",", "."), "zh-Hant": (",", "."), "pt": ("\u00a0", ",")}[lang]
    assert Decimal(text.replace(signs[0], "").replace(signs[1], ".")) == value


def test_placeholders_are_filled_by_name():
    assert say({"a": "card {n} to box {box}"}, "a", {"n": 2, "box": "3"}) == "card 2 to box 3"
    assert say({"a": "card {n}"}, "a", {}) == "card {n}"  # a value not given stays as written
    assert say({}, "x.y") == "x.y"
