"""Football's commission at a table's payout unit (Art. 12): the profile
names the rule; the regulation's profile rounds the commission down (the
player is paid at least the exact win), a profile of its own name rounds
the payout down for the house; what either moved is recorded; the analysis
states the return with and without it."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal as D

import pytest
from hypothesis import given, strategies as st

from tablecore.errors import ConfigError
from tablecore.money import is_multiple
from tablesim.games.football.analysis import analyze
from tablesim.games.football.profile import load_profile, parse_profile
from tablesim.games.football.settle import bet_settlement, paid_win, settle_round, win_amount
from tablesim.games.football.spec import SPEC
from tablesim.profiles import load_rule_profile_data

PROFILE = load_profile()
HOUSE = load_profile("macau-2003-house-rounding")


def test_default_profile_rounds_for_the_player_and_house_rounding_has_its_own_name():
    assert PROFILE.commission_rounding == "player" and HOUSE.commission_rounding == "house"
    assert HOUSE.name == "macau-2003-house-rounding" and HOUSE.pays == PROFILE.pays
    assert HOUSE.commission == PROFILE.commission


@pytest.mark.parametrize(
    "stake, unit, paid, forgone",
    [("5", "1", "5", "0.25"), ("10", "1", "10", "0.5"), ("20", "1", "19", "0"), ("30", "1", "29", "0.5"),
     ("15", "1", "15", "0.75"), ("10", "0.01", "9.5", "0"), ("7", "0.1", "6.7", "0.05")],
)
def test_the_player_is_paid_the_win_with_the_commission_rounded_down(stake, unit, paid, forgone):
    assert paid_win(PROFILE, "upper", D(stake), D(unit)) == (D(paid), D(forgone))


@given(st.integers(min_value=1, max_value=10**9), st.sampled_from(["1", "0.5", "0.25", "0.01", "5"]))
def test_the_house_never_takes_more_than_the_article_says(stake_units, unit):
    stake = D(stake_units) * D(unit)  # a bet of whole payout units
    paid, forgone = paid_win(PROFILE, "lower", stake, D(unit))
    exact = win_amount(PROFILE, "lower", stake)
    assert paid - forgone == exact and paid >= exact
    assert stake - paid <= stake * D("0.05") and is_multiple(paid, D(unit)) and 0 <= forgone < D(unit)


@pytest.mark.parametrize(
    "stake, unit, paid, kept",
    [("10", "1", "9", "0.5"), ("20", "1", "19", "0"), ("15", "1", "14", "0.25"), ("10", "0.01", "9.5", "0"),
     ("1", "1", "0", "0.95"), ("7", "0.05", "6.65", "0"), ("7", "0.1", "6.6", "0.05")],
)
def test_house_rounding_pays_whole_payout_units(stake, unit, paid, kept):
    assert paid_win(HOUSE, "upper", D(stake), D(unit)) == (D(paid), D(kept))


def test_exact_rule_and_uncommissioned_bets_are_never_rounded():
    exact = replace(PROFILE, commission_rounding="exact")
    assert paid_win(exact, "upper", D(10), D(1)) == (D("9.5"), 0)
    assert paid_win(PROFILE, "odd", D(10), D(1)) == (D(10), 0)
    assert paid_win(PROFILE, "upper", D(10), None) == (D("9.5"), 0)  # no unit: the pure rule


@given(st.integers(min_value=1, max_value=10**9), st.sampled_from(["1", "0.5", "0.25", "0.01", "5"]))
def test_house_rounding_never_loses_a_cent(stake_units, unit):
    stake = D(stake_units)
    paid, kept = paid_win(HOUSE, "lower", stake, D(unit))
    assert paid + kept == win_amount(HOUSE, "lower", stake)
    assert is_multiple(paid, D(unit)) and 0 <= kept < D(unit)


def test_settle_round_records_the_difference_per_box_and_bet():
    draw = PROFILE.draws[1]  # upper 1 2 3 4
    stakes = {"3": {"3": {"upper": D(10), "odd": D(5)}}, "4": {"4": {"upper": D(20)}}}
    results, players, kept = settle_round(HOUSE, draw, stakes, {"3": 3, "4": 2}, D(1))
    assert results == {"3": {"upper": D(9), "odd": D(5)}, "4": {"upper": D(19)}}
    assert kept == {"3": {"upper": "0.5"}}
    assert players == {"3": {"3": {"upper": D(9), "odd": D(5)}}, "4": {"4": {"upper": D(19)}}}


def test_each_player_is_paid_on_their_own_stake():
    draw = PROFILE.draws[1]
    # ann and bob each stake 10 on the common box's upper: each wins 9.5, paid 9
    stakes = {"common": {"ann": {"upper": D(10)}, "bob": {"upper": D(10)}}}
    results, players, kept = settle_round(HOUSE, draw, stakes, {"common": 2}, D(1))
    assert players == {"ann": {"common": {"upper": D(9)}}, "bob": {"common": {"upper": D(9)}}}
    assert results == {"common": {"upper": D(18)}} and kept == {"common": {"upper": "1"}}
    results, players, forgone = settle_round(PROFILE, draw, stakes, {"common": 2}, D(1))
    assert players == {"ann": {"common": {"upper": D(10)}}, "bob": {"common": {"upper": D(10)}}}
    assert results == {"common": {"upper": D(20)}} and forgone == {"common": {"upper": "1"}}
    assert bet_settlement(PROFILE, draw, "upper", D(10), 7, D(1)) == (D(-10), 0)


def test_profile_must_name_the_rule():
    data, source = load_rule_profile_data("football", None, SPEC.default_profile)
    data = {**data, "commission": {k: v for k, v in data["commission"].items() if k != "rounding"}}
    with pytest.raises(ConfigError) as info:
        parse_profile(data, source)
    assert info.value.where.endswith("commission.rounding")
    bad = {**data, "commission": {**data["commission"], "rounding": "nearest"}}
    with pytest.raises(ConfigError):
        parse_profile(bad, source)


def test_analysis_states_the_return_with_and_without_rounding():
    data = analyze()
    # the exact figures stay (rules.md: upper and lower -2.273%)
    assert round(data["bets"]["upper"]["return"]["value"], 5) == -0.02273
    rounding = data["commission_rounding"]
    assert rounding["rule"] == "player"
    by_stake = rounding["by_stake"]
    # stake 20 payout units: 19 is whole, so the return is the exact one
    assert by_stake["20"]["upper"] == data["bets"]["upper"]["return"]
    # stake 10 pays 10 for 9.5: better by P(win) * 0.5 / 10; for the house, 9: worse
    assert by_stake["10"]["upper"]["value"] > data["bets"]["upper"]["return"]["value"]
    assert analyze(HOUSE)["commission_rounding"]["by_stake"]["10"]["upper"]["value"] \
        < data["bets"]["upper"]["return"]["value"]
    exact_profile = replace(PROFILE, commission_rounding="exact")
    assert analyze(exact_profile)["commission_rounding"]["by_stake"] == {}


@given(st.dictionaries(st.sampled_from(["ann", "bob", "cy", "common"]),
                       st.dictionaries(st.sampled_from(["upper", "lower", "odd", "even", "middle"]),
                                       st.integers(min_value=1, max_value=10**6).map(D), min_size=1),
                       min_size=1),
       st.integers(min_value=0, max_value=9), st.sampled_from([None, D(1), D("0.5")]))
def test_a_box_is_paid_what_its_players_are_paid(stakes, total, unit):
    draw = PROFILE.draws[3]
    results, players, kept = settle_round(PROFILE, draw, {"common": stakes}, {"common": total}, unit)
    for bet, value in results["common"].items():
        assert value == sum(players[p]["common"].get(bet, 0) for p in stakes)
    if unit is None:  # nothing rounded: the box's result is the rule applied to its total stake
        totals = {}
        for bets in stakes.values():
            for bet, v in bets.items():
                totals[bet] = totals.get(bet, 0) + v
        assert results["common"] == {b: bet_settlement(PROFILE, draw, b, v, total)[0] for b, v in totals.items()}
        assert kept == {}
