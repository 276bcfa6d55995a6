"""Card values, totals, the third-card rule and settlement (Art. 4, 9-12)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tablecore.cards import DECK, card
from tablesim.games.football.rules import card_value, deal_plan, needs_third_card, total
from tablesim.games.football.settle import bet_outcome, bet_result, settle_box, win_amount


def cards(text: str):
    return [card(c) for c in text.split()]


@pytest.mark.parametrize(
    "code, value",
    [("AS", 1), ("2H", 2), ("5D", 5), ("9C", 9), ("TS", 0), ("JH", 0), ("QD", 0), ("KC", 0)],
)
def test_card_values_art9(profile, code, value):
    assert card_value(profile, card(code)) == value


def test_every_card_has_a_value_0_to_9(profile):
    values = [card_value(profile, c) for c in DECK]
    assert sorted(set(values)) == list(range(10))
    assert values.count(0) == 16 and all(values.count(v) == 4 for v in range(1, 10))


@pytest.mark.parametrize(
    "hand, expected",
    [("7D TH", 7), ("8D 7C", 5), ("9H 9D", 8), ("KD QS", 0), ("4H 5D", 9), ("4H 5D AS", 0), ("9C 9S 9D", 7)],
)
def test_total_is_the_last_digit(profile, hand, expected):
    assert total(profile, cards(hand)) == expected


@pytest.mark.parametrize(
    "hand, due",
    [("KD QS", True), ("4H 5D", True), ("TC 9S", True), ("AS 8D", True), ("AS 7D", False), ("5S 6S", False)],
)
def test_third_card_only_on_a_two_card_middle_total(profile, hand, due):
    assert needs_third_card(profile, cards(hand)) is due


def test_no_fourth_card(profile):
    assert not needs_third_card(profile, cards("KD QS TD"))


def test_deal_plan_counts_third_cards_left_to_right(profile):
    # box 1: 5 (no third), box 3: 0 (third), common: 9 (third)
    need, thirds = deal_plan(profile, ["1", "3", "common"], cards("2C 3C KD QD 4H 5H"))
    assert (need, thirds) == (8, ["3", "common"])
    with pytest.raises(ValueError):
        deal_plan(profile, ["1", "3", "common"], cards("2C 3C KD QD"))


D = Decimal


def test_final_middle_settles_by_art_10_2(profile):
    draw = profile.draws[1]
    bets = {"middle": D(10), "odd": D(5), "even": D(5), "upper": D(10), "lower": D(10)}
    for final in (0, 9):
        assert settle_box(profile, draw, bets, final) == {
            "middle": D(80), "odd": D(-5), "even": D(-5), "upper": D(0), "lower": D(0)
        }


@pytest.mark.parametrize("draw_no", range(1, 9))
def test_totals_one_to_eight(profile, draw_no):
    draw = profile.draws[draw_no]
    for t in range(1, 9):
        assert bet_outcome(profile, draw, "middle", t) == "lose"
        assert bet_outcome(profile, draw, "odd", t) == ("win" if t % 2 else "lose")
        assert bet_outcome(profile, draw, "even", t) == ("lose" if t % 2 else "win")
        # Art. 3: combination i's upper set is i..i+3 (wrapping 8 -> 1), its lower set the other four.
        upper = {(draw_no - 1 + k) % 8 + 1 for k in range(4)}
        assert bet_outcome(profile, draw, "upper", t) == ("win" if t in upper else "lose")
        assert bet_outcome(profile, draw, "lower", t) == ("lose" if t in upper else "win")


def test_each_draw_splits_one_to_eight_into_upper_and_lower(profile):
    assert len(profile.draws) == 8
    for draw in profile.draws.values():
        assert sorted(draw.upper + draw.lower) == list(range(1, 9))


def test_commission_on_upper_and_lower_only(profile):
    draw = profile.draws[3]  # upper 3 4 5 6, lower 7 8 1 2
    assert bet_result(profile, draw, "upper", D(10), 4) == D("9.5")
    assert bet_result(profile, draw, "lower", D(10), 8) == D("9.5")
    assert bet_result(profile, draw, "odd", D(10), 5) == D(10)
    assert bet_result(profile, draw, "even", D(10), 8) == D(10)
    assert bet_result(profile, draw, "middle", D(10), 9) == D(80)


@pytest.mark.parametrize(
    "stake, win",
    [("10", "9.5"), ("1", "0.95"), ("3", "2.85"), ("12.5", "11.875"), ("0.1", "0.095"),
     ("333.33", "316.6635"), ("123456789.01", "117283949.5595")],
)
def test_commission_is_exact(profile, stake, win):
    result = win_amount(profile, "upper", D(stake))
    assert isinstance(result, Decimal)
    assert result == D(win)
    assert result + D(stake) * profile.commission["upper"] == D(stake)


def test_losses_and_pushes_are_exact_stakes(profile):
    draw = profile.draws[1]
    assert bet_result(profile, draw, "upper", D("7.25"), 6) == D("-7.25")
    assert bet_result(profile, draw, "upper", D("7.25"), 0) == 0
    assert bet_result(profile, draw, "middle", D("7.25"), 5) == D("-7.25")
