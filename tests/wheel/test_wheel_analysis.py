"""Exact analysis of the wheel's bets."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from fractions import Fraction

from tablesim.games.wheel.analysis import analyze, symbol_figures
from tablesim.games.wheel.profile import load_profile


def test_default_figures_are_exact():
    figures = symbol_figures(load_profile())
    assert {k: v["expected_return"] for k, v in figures.items()} == {
        "1": Fraction(-1, 13), "3": Fraction(-1, 13), "5": Fraction(-1, 13),
        "10": Fraction(-2, 13), "20": Fraction(-5, 26),
        "joker": Fraction(-3, 26), "logo": Fraction(-3, 26),
    }
    assert sum(v["probability"] for v in figures.values()) == 1
    assert figures["1"]["probability"] == Fraction(24, 52)


def test_analysis_follows_the_profile():
    profile = load_profile()
    symbols = tuple(replace(s, pays=Decimal("19.5")) if s.name == "20" else s for s in profile.symbols)
    data = analyze(replace(profile, symbols=symbols))
    # 2/52 x 19.5 - 50/52 = -11/52
    assert data["symbols"]["20"]["expected_return"] == "-11/52"
    assert data["symbols"]["20"]["expected_return_decimal"] == "-0.211538"
    assert data["symbols"]["20"]["pays"] == "19.5"


def test_analysis_json_shape():
    data = analyze()
    assert data["game"] == "wheel" and data["profile"] == "macau-2003"
    assert data["segments"] == 52 and data["min_turns"] == 3
    assert list(data["symbols"]) == ["1", "3", "5", "10", "20", "joker", "logo"]
    assert data["symbols"]["logo"] == {
        "segments": 1, "pays": "45", "probability": "1/52", "probability_decimal": "0.019231",
        "expected_return": "-3/26", "expected_return_decimal": "-0.115385", "house_edge_percent": "11.538",
    }
