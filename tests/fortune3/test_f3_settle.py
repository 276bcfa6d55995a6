"""Dealer qualification and the settlement of one box (Art. 9, 10): exact Decimals."""

from __future__ import annotations

from decimal import Decimal as D

import pytest

from tablecore.cards import parse_cards
from tablesim.games.fortune3.hands import Evaluator
from tablesim.games.fortune3.profile import load_profile
from tablesim.games.fortune3.settle import BoxBets, dealer_qualifies, plays_by_strategy, settle_box

PROFILE = load_profile()
EV = Evaluator(PROFILE.ranking)


def h(text: str):
    return EV.evaluate(parse_cards(text.split()))


def settle(ante, pp, decision, player, dealer):
    bets = BoxBets(None if ante is None else D(str(ante)), None if pp is None else D(str(pp)))
    dh = h(dealer)
    return settle_box(PROFILE, bets, decision, h(player), dh, dealer_qualifies(PROFILE, EV, dh))


# --- dealer qualification ------------------------------------------------------


@pytest.mark.parametrize(
    "dealer, qualifies",
    [
        ("QH 3C 2D", True),  # Q-high, the lowest qualifying hand
        ("QS 4H 2C", True),
        ("KS 4H 2C", True),
        ("AS 4H 2C", True),
        ("AS KD 2C", True),  # K-A-2: ace-high
        ("JS TD 8H", False),  # J-high does not
        ("JS 9D 4C", False),
        ("7S 5D 3C", False),
        ("2S 2H 3C", True),  # any pair does
        ("3S 3D 4C", True),
        ("9H 6H 2H", True),  # a flush
        ("JH 6H 2H", True),
        ("4D 3C 2H", True),  # a straight
        ("3H 2S AC", True),
        ("7C 7D 7H", True),
        ("3D 2D AD", True),
    ],
)
def test_dealer_qualification(dealer, qualifies):
    assert dealer_qualifies(PROFILE, EV, h(dealer)) is qualifies


def test_qualifier_is_exactly_queen_high_over_all_high_cards():
    from itertools import combinations

    from tablecore.cards import DECK

    for trio in combinations(DECK, 3):
        hand = EV.evaluate(trio)
        if hand.category == "high_card":
            assert dealer_qualifies(PROFILE, EV, hand) is (max(c.rank for c in trio) >= 12)
        else:
            assert dealer_qualifies(PROFILE, EV, hand)


# --- settle_box: every branch -----------------------------------------------------

Q_HIGH_DEALER = "QH 3C 2D"
J_HIGH_DEALER = "JS 9D 4C"


@pytest.mark.parametrize(
    "name, ante, pp, decision, player, dealer, expected",
    [
        # dealer does not qualify: Ante 1:1, Play returned, bonus by hand
        ("no-qualify high card", 10, None, "play", "KH 8C 3D", J_HIGH_DEALER,
         {"ante": "10", "play": "0", "ante_bonus": "0"}),
        ("no-qualify lower player hand", 10, None, "play", "9S 6D 2C", "JC TD 8H",
         {"ante": "10", "play": "0", "ante_bonus": "0"}),
        ("no-qualify straight flush bonus", 10, None, "play", "5H 6H 7H", J_HIGH_DEALER,
         {"ante": "10", "play": "0", "ante_bonus": "50"}),
        ("no-qualify trips bonus", 10, None, "play", "QD QC QS", J_HIGH_DEALER,
         {"ante": "10", "play": "0", "ante_bonus": "40"}),
        ("no-qualify straight bonus", 10, None, "play", "2C 3S 4D", J_HIGH_DEALER,
         {"ante": "10", "play": "0", "ante_bonus": "10"}),
        # dealer qualifies: player higher
        ("win", 10, None, "play", "KS 4H 2C", Q_HIGH_DEALER,
         {"ante": "10", "play": "10", "ante_bonus": "0"}),
        ("win with straight bonus", 10, None, "play", "4S 5D 6C", Q_HIGH_DEALER,
         {"ante": "10", "play": "10", "ante_bonus": "10"}),
        # dealer higher: both lost, bonus still paid
        ("lose", 10, None, "play", "JH TS 8S", Q_HIGH_DEALER,
         {"ante": "-10", "play": "-10", "ante_bonus": "0"}),
        ("lose straight flush to a higher one", 10, None, "play", "KH QH JH", "AS KS QS",
         {"ante": "-10", "play": "-10", "ante_bonus": "50"}),
        ("lose trips to a straight flush", 10, None, "play", "7C 7D 7H", "AS KS QS",
         {"ante": "-10", "play": "-10", "ante_bonus": "40"}),
        ("lose straight to trips", 10, None, "play", "AC KD QC", "JC JD JS",
         {"ante": "-10", "play": "-10", "ante_bonus": "10"}),
        # tie: a push, bonus still paid on a straight
        ("push high card", 10, None, "play", "QS 3D 2H", Q_HIGH_DEALER,
         {"ante": "0", "play": "0", "ante_bonus": "0"}),
        ("push straight", 10, None, "play", "3S 2D AH", "3H 2S AC",
         {"ante": "0", "play": "0", "ante_bonus": "10"}),
        # fold: the Ante is lost, nothing else; no bonus
        ("fold", 10, None, "fold", "TD 6S 2H", Q_HIGH_DEALER, {"ante": "-10"}),
        ("fold against a non-qualifying dealer", 10, None, "fold", "TD 6S 2H", J_HIGH_DEALER, {"ante": "-10"}),
        ("fold a straight flush", 10, None, "fold", "5H 6H 7H", J_HIGH_DEALER, {"ante": "-10"}),
        # fold with Pair Plus (default forfeit): both lost, even a winning Pair Plus hand
        ("fold with pair plus", 10, 5, "fold", "8D 8H 2S", J_HIGH_DEALER, {"ante": "-10", "pair_plus": "-5"}),
        ("fold a flush with pair plus", 5, 5, "fold", "2H 5H 9H", "AH 7C 3D", {"ante": "-5", "pair_plus": "-5"}),
        # Pair Plus alongside a played Ante, whatever the dealer holds
        ("pp pair while losing to a flush", 10, 10, "play", "QS QD 7C", "KH JH 4H",
         {"ante": "-10", "play": "-10", "ante_bonus": "0", "pair_plus": "10"}),
        ("pp high card loses", 10, 10, "play", "KC AH 2C", "AS KS QS",
         {"ante": "-10", "play": "-10", "ante_bonus": "0", "pair_plus": "-10"}),
        # Pair Plus only: no decision, every pay of the table
        ("pp only straight flush", None, 5, None, "2H 3H 4H", Q_HIGH_DEALER, {"pair_plus": "200"}),
        ("pp only trips", None, 5, None, "9C 9H 9S", Q_HIGH_DEALER, {"pair_plus": "125"}),
        ("pp only straight", None, 5, None, "8D 9D TC", Q_HIGH_DEALER, {"pair_plus": "25"}),
        ("pp only flush", None, 7.5, None, "AC KC 5C", J_HIGH_DEALER, {"pair_plus": "30"}),
        ("pp only pair", None, 10, None, "5S 5H 8D", "AS KS QS", {"pair_plus": "10"}),
        ("pp only high card", None, 10, None, "AS KH JD", J_HIGH_DEALER, {"pair_plus": "-10"}),
        # non-integer stakes, exactly
        ("2.5 ante straight flush", 2.5, "1.5", "play", "9D TD JD", "2S 2H 3C",
         {"ante": "2.5", "play": "2.5", "ante_bonus": "12.5", "pair_plus": "60"}),
        ("2.5 ante trips, no-qualify", 2.5, None, "play", "QD QC QS", J_HIGH_DEALER,
         {"ante": "2.5", "play": "0", "ante_bonus": "10"}),
        ("12.75 ante pair wins", "12.75", "1.25", "play", "5C 5D KS", "2S 2H 3C",
         {"ante": "12.75", "play": "12.75", "ante_bonus": "0", "pair_plus": "1.25"}),
        ("1.05 ante trips", "1.05", "1.1", "play", "4D 4S 4H", "2S 2H 3C",
         {"ante": "1.05", "play": "1.05", "ante_bonus": "4.2", "pair_plus": "27.5"}),
        ("2.5 stakes lose", 2.5, 2.5, "play", "JH TS 8S", Q_HIGH_DEALER,
         {"ante": "-2.5", "play": "-2.5", "ante_bonus": "0", "pair_plus": "-2.5"}),
        ("2.5 stakes fold", 2.5, 2.5, "fold", "JH TS 8S", Q_HIGH_DEALER, {"ante": "-2.5", "pair_plus": "-2.5"}),
    ],
)
def test_settle_box(name, ante, pp, decision, player, dealer, expected):
    got = settle(ante, pp, decision, player, dealer)
    assert got == {k: D(v) for k, v in expected.items()}, name
    assert all(isinstance(v, D) for v in got.values())


def test_results_have_exact_canonical_text():
    from tablecore.money import fmt

    got = settle("2.5", "2.5", "play", "9D TD JD", "2S 2H 3C")
    assert {k: fmt(v) for k, v in got.items()} == {
        "ante": "2.5", "play": "2.5", "ante_bonus": "12.5", "pair_plus": "100"}


def test_ante_bonus_paid_whatever_the_dealer_holds():
    """Straight flush 5, trips 4, straight 1 on the Ante: no-qualify, win, lose, push."""
    cases = {
        "5H 6H 7H": ("50", ["5S 6S 7S"]),  # equal straight flush: push
        "7C 7D 7H": ("40", []),
        "2C 3S 4D": ("10", ["2H 3D 4S"]),  # equal straight: push
    }
    for player, (bonus, ties) in cases.items():
        for dealer in (J_HIGH_DEALER, Q_HIGH_DEALER, "AS KS QS", *ties):
            got = settle(10, None, "play", player, dealer)
            assert got["ante_bonus"] == D(bonus), (player, dealer)


def test_no_ante_bonus_for_flush_pair_high_card():
    for player in ("KS 2S 9S", "QD QH 4S", "AS KH 2D"):
        assert settle(10, None, "play", player, J_HIGH_DEALER)["ante_bonus"] == 0


def test_strategy_threshold_q64():
    assert plays_by_strategy(PROFILE, EV, h("QS 6H 4D"))
    assert plays_by_strategy(PROFILE, EV, h("QS 7H 2D"))
    assert plays_by_strategy(PROFILE, EV, h("2S 2H 3D"))
    assert not plays_by_strategy(PROFILE, EV, h("QS 6H 3D"))
    assert not plays_by_strategy(PROFILE, EV, h("QS 5H 4D"))
    assert not plays_by_strategy(PROFILE, EV, h("JS TH 8D"))
