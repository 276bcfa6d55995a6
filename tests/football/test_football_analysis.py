"""The exact analysis: the published one-deck figures, a brute-force cross-check, speed."""

from __future__ import annotations

from fractions import Fraction
from itertools import permutations

import pytest

from tablecore.cards import DECK
from tablesim.games.football.analysis import analyze, final_totals, render_analysis
from tablesim.games.football.rules import card_value


def test_one_deck_figures(profile):
    data = analyze(profile, decks=1)
    returns = {bet: round(info["return"]["value"], 6) for bet, info in data["bets"].items()}
    assert returns == {"middle": -0.182262, "odd": -0.078009, "even": -0.103710,
                       "upper": -0.022729, "lower": -0.022729}
    assert round(data["p_middle"]["value"], 6) == 0.090860
    text = render_analysis(data)
    assert "-0.182262" in text and "-0.078009" in text and "-0.103710" in text and "-0.022729" in text


def test_exact_fractions(profile):
    data = analyze(profile, decks=1)
    middle = Fraction(data["p_middle"]["exact"])
    assert Fraction(data["bets"]["middle"]["return"]["exact"]) == 9 * middle - 1
    # upper and lower: each number 1-8 is upper in half the draws; a win pays 0.95, a middle total pushes
    assert Fraction(data["bets"]["upper"]["return"]["exact"]) == -Fraction(1, 40) * (1 - middle)
    assert sum(Fraction(p["exact"]) for p in data["totals"].values()) == 1


def test_one_deck_agrees_with_dealing_every_card(profile):
    """Every ordered three-card deal of one deck (132,600), counted card by card."""
    values = [card_value(profile, c) for c in DECK]
    counts = [0] * 10
    for a, b, c in permutations(range(52), 3):
        two = (values[a] + values[b]) % 10
        counts[(two + values[c]) % 10 if two in profile.middle else two] += 1
    brute = {t: Fraction(n, 52 * 51 * 50) for t, n in enumerate(counts)}
    dist, _ = final_totals(profile, 1)
    assert dist == brute


@pytest.mark.parametrize("decks", range(1, 9))
def test_every_shoe_size_is_a_distribution_and_card_removal_matters(profile, decks):
    data = analyze(profile, decks=decks)
    assert sum(Fraction(p["exact"]) for p in data["totals"].values()) == 1
    for bet in ("upper", "lower"):
        by_draw = [Fraction(r["exact"]) for r in data["bets"][bet]["by_draw"].values()]
        assert sum(by_draw) / 8 == Fraction(data["bets"][bet]["return"]["exact"])
    if decks > 1:
        fewer = analyze(profile, decks=decks - 1)
        assert data["p_middle"]["value"] > fewer["p_middle"]["value"]  # fewer 0/9 cards removed
