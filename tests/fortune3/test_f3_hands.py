"""The three-card evaluator: categories and every tie rule of Art. 4 and Art. 8."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablecore.cards import DECK, parse_cards
from tablesim.games.fortune3.hands import Evaluator, all_hands, classify
from tablesim.games.fortune3.profile import CATEGORIES
from examples import examples

EV = Evaluator(CATEGORIES)


def h(text: str):
    return EV.evaluate(parse_cards(text.split()))


def cmp(a: str, b: str) -> int:
    sa, sb = h(a).score, h(b).score
    return (sa > sb) - (sa < sb)


@pytest.mark.parametrize(
    "cards, category",
    [
        ("AS KS QS", "straight_flush"),
        ("3H 2H AH", "straight_flush"),
        ("9D 8D 7D", "straight_flush"),
        ("7C 7D 7H", "three_of_a_kind"),
        ("AC AD AH", "three_of_a_kind"),
        ("AS KH QD", "straight"),
        ("3S 2H AD", "straight"),
        ("4C 3D 2H", "straight"),
        ("KS 2S 9S", "flush"),
        ("KS AS 2S", "flush"),  # K-A-2 suited: a flush, not a straight flush
        ("QD QH 4S", "pair"),
        ("2C 2D AS", "pair"),
        ("AS KH 2D", "high_card"),  # K-A-2 is not a straight
        ("AS QH JD", "high_card"),
        ("KS QH 9D", "high_card"),
        ("4S 2H AD", "high_card"),  # A-2-4 is not a straight
        ("5C 3D 2H", "high_card"),
    ],
)
def test_categories(cards, category):
    assert h(cards).category == category


def test_category_order_follows_the_ranking():
    ladder = ["AS KS QS", "2C 2D 2H", "AS KH QD", "KS 2S 9S", "AS AH KD", "AS KH JD"]
    scores = [h(x).score for x in ladder]
    assert scores == sorted(scores, reverse=True)
    assert [h(x).category for x in ladder] == list(CATEGORIES)
    # and the lowest hand of each category beats the highest of the next
    lowest = ["3H 2H AH", "2C 2D 2H", "3S 2H AD", "5S 3S 2S", "2S 2H 3D"]
    highest_next = ["AC AD AH", "AS KH QD", "AS KS JS", "AS AH KD", "AS KH JD"]
    for lo, hi in zip(lowest, highest_next):
        assert cmp(lo, hi) > 0, (lo, hi)


# Art. 4: A-K-Q is the highest straight and straight flush, 3-2-A the lowest.
def test_aks_is_the_highest_straight_flush():
    for other in ("KH QH JH", "QD JD TD", "4C 3C 2C", "3S 2S AS"):
        assert cmp("AS KS QS", other) > 0


def test_32a_is_the_lowest_straight_flush_and_its_high_card_is_the_3():
    assert cmp("3H 2H AH", "4C 3C 2C") < 0
    assert h("3H 2H AH").ranks == (3,)
    assert cmp("3H 2H AH", "AC AD AH") > 0  # still a straight flush above any trips


def test_straight_order():
    order = ["AS KH QD", "KS QH JD", "5S 4H 3D", "4C 3D 2H", "3S 2H AD"]
    for hi, lo in zip(order, order[1:]):
        assert cmp(hi, lo) > 0, (hi, lo)
    assert cmp("QD KC AH", "2S 3D 4C") > 0  # Q-K-A vs 2-3-4
    assert cmp("3S 2H AD", "4C 3D 2H") < 0


def test_k_a_2_is_not_a_straight():
    assert h("KS AH 2D").category == "high_card"
    assert h("KS AH 2D").ranks == (14, 13, 2)
    assert cmp("KS AH 2D", "3S 2H AD") < 0
    assert cmp("KS AH 2D", "AC KD 3H") < 0  # compared as A-K-2 high card
    assert cmp("KS AH 2D", "AC QD JH") > 0


def test_equal_straights_and_straight_flushes_tie_whatever_the_suits():
    assert cmp("AS KH QD", "AC KD QH") == 0
    assert cmp("3S 2H AD", "3C 2D AH") == 0
    assert cmp("9H 8H 7H", "9S 8S 7S") == 0
    assert cmp("3H 2H AH", "3D 2D AD") == 0


def test_three_of_a_kind_by_rank():
    assert cmp("AC AD AH", "KC KD KH") > 0
    assert cmp("3C 3D 3H", "2C 2D 2H") > 0


@pytest.mark.parametrize(
    "better, worse",
    [
        ("AS JS 2S", "KH QH 9H"),  # first card
        ("KD JD 5D", "KH JH 4H"),  # third card
        ("KD JD 5D", "KH TH 9H"),  # second card
        ("AS 4S 2S", "KH QH TH"),  # an ace-low-looking flush is still ace-high
    ],
)
def test_flush_compared_card_by_card(better, worse):
    assert h(better).category == h(worse).category == "flush"
    assert cmp(better, worse) > 0


def test_equal_flushes_tie():
    assert cmp("KH JH 4H", "KC JC 4C") == 0


def test_pair_then_kicker():
    assert cmp("TS TD 2C", "9H 9C AD") > 0  # pair rank first
    assert cmp("8S 8D 6C", "8H 8C 4D") > 0  # then the kicker
    assert cmp("8S 8D 4C", "8H 8C 4D") == 0  # equal: tie
    assert cmp("2S 2D 3C", "AS KH JD") > 0  # any pair beats any high card
    assert h("QD QH 4S").ranks == (12, 4)
    assert h("4D QH 4S").ranks == (4, 12)


def test_high_card_compared_card_by_card():
    assert cmp("AS 7D 4C", "AH 7C 3D") > 0
    assert cmp("AD 8S 2C", "AH 7C 3D") > 0
    assert cmp("KH QS 9C", "AH 7C 3D") < 0
    assert cmp("AC 7S 3H", "AH 7C 3D") == 0


def test_suits_never_break_ties():
    # Every rank pattern of high card gets the same score whatever its (non-flush) suits.
    for a, b in (("AS 7D 3C", "AH 7C 3D"), ("KS KH 5D", "KC KD 5S"), ("JS 9H 2D", "JD 9C 2S")):
        assert cmp(a, b) == 0


def test_card_order_does_not_matter():
    assert h("2H AH 3H").score == h("AH 3H 2H").score == h("3H 2H AH").score


def test_classify_refuses_wrong_card_count():
    with pytest.raises(ValueError):
        classify(parse_cards(["AS", "KS"]))
    with pytest.raises(ValueError):
        classify(parse_cards(["AS", "KS", "QS", "JS"]))


def test_exhaustive_category_counts():
    hands = all_hands()
    assert len(hands) == 22100
    assert len({tuple(sorted(c.index for c in hand)) for hand in hands}) == 22100
    counts = Counter(classify(hand)[0] for hand in hands)
    assert counts == {
        "straight_flush": 48,
        "three_of_a_kind": 52,
        "straight": 720,
        "flush": 1096,
        "pair": 3744,
        "high_card": 16440,
    }


def test_exhaustive_scores_are_consistent_with_categories():
    """Over all 22,100 hands: a higher category always scores higher, equal
    scores mean the same category and the same rank pattern, and the number
    of distinct scores is the number of distinct rank patterns."""
    by_score: dict[int, set] = {}
    best_by_cat: dict[str, tuple[int, int]] = {}
    for hand in all_hands():
        hd = EV.evaluate(hand)
        pattern = (hd.category, tuple(sorted((c.rank for c in hand), reverse=True)))
        by_score.setdefault(hd.score, set()).add(pattern)
        lo, hi = best_by_cat.get(hd.category, (hd.score, hd.score))
        best_by_cat[hd.category] = (min(lo, hd.score), max(hi, hd.score))
    for patterns in by_score.values():
        assert len({p[0] for p in patterns}) == 1
    # categories occupy disjoint, ordered score bands
    bands = [best_by_cat[c] for c in CATEGORIES]
    for (lo_hi, _hi_hi), (_lo_lo, hi_lo) in zip(bands, bands[1:]):
        assert lo_hi > hi_lo
    # Distinct outcomes: SF 12, trips 13, straight 12, flush 274, pair 156, high 274.
    per_cat = Counter(next(iter(p))[0] for p in by_score.values())
    assert per_cat == {"straight_flush": 12, "three_of_a_kind": 13, "straight": 12, "flush": 274,
                       "pair": 156, "high_card": 274}


def test_profile_ranking_changes_the_order():
    swapped = Evaluator(["straight_flush", "three_of_a_kind", "flush", "straight", "pair", "high_card"])
    flush, straight = parse_cards("9S 6S 2S".split()), parse_cards("AS KH QD".split())
    assert EV.evaluate(straight).score > EV.evaluate(flush).score
    assert swapped.evaluate(flush).score > swapped.evaluate(straight).score


cards3 = st.lists(st.sampled_from(DECK), min_size=3, max_size=3, unique=True)


@settings(max_examples=examples(300), deadline=None)
@given(cards3, cards3, cards3)
def test_score_order_is_a_total_preorder_consistent_with_categories(a, b, c):
    ha, hb, hc = EV.evaluate(a), EV.evaluate(b), EV.evaluate(c)
    # total: any two hands compare one way or the other (or tie)
    assert ha.score >= hb.score or hb.score >= ha.score
    # transitive
    if ha.score >= hb.score and hb.score >= hc.score:
        assert ha.score >= hc.score
    # beats() is the strict part of the order
    assert ha.beats(hb) == (ha.score > hb.score)
    assert not (ha.beats(hb) and hb.beats(ha))
    # consistent with categories: a better category always wins
    sa, sb = CATEGORIES.index(ha.category), CATEGORIES.index(hb.category)
    if sa < sb:
        assert ha.score > hb.score
    if sa > sb:
        assert ha.score < hb.score
    # a tie means the same category and the same ranks (suits never matter)
    if ha.score == hb.score:
        assert ha.category == hb.category
        assert sorted(x.rank for x in a) == sorted(x.rank for x in b)


@settings(max_examples=examples(200), deadline=None)
@given(cards3, st.permutations("SHDC"))
def test_renaming_suits_never_changes_a_score(hand, perm):
    rename = dict(zip("SHDC", perm))
    renamed = [next(d for d in DECK if d.rank == x.rank and d.suit == rename[x.suit]) for x in hand]
    assert EV.evaluate(renamed).score == EV.evaluate(hand).score
    assert EV.evaluate(renamed).category == EV.evaluate(hand).category


def test_every_pair_of_classes_ordered_like_a_reference_comparator():
    """Independent reference: a naive comparison key, checked against the
    evaluator over every pair of distinct rank-and-flush patterns."""

    def reference_key(hand):
        ranks = sorted((x.rank for x in hand), reverse=True)
        flush = len({x.suit for x in hand}) == 1
        if ranks == [14, 3, 2]:
            straight_high = 3
        elif ranks[0] - ranks[2] == 2 and len(set(ranks)) == 3:
            straight_high = ranks[0]
        else:
            straight_high = 0
        if straight_high and flush:
            return (5, straight_high)
        if ranks[0] == ranks[2]:
            return (4, ranks[0])
        if straight_high:
            return (3, straight_high)
        if flush:
            return (2, *ranks)
        if len(set(ranks)) == 2:
            pair = ranks[1]
            kicker = ranks[0] if ranks[0] != pair else ranks[2]
            return (1, pair, kicker)
        return (0, *ranks)

    reps = {}
    for hand in combinations(DECK, 3):
        reps.setdefault(reference_key(hand), hand)
    items = sorted(reps.items())
    scores = [EV.evaluate(hand).score for _, hand in items]
    assert scores == sorted(scores)
    assert len(set(scores)) == len(scores)
