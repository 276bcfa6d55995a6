"""Exact math of Fortune 3 Card Poker from the rule profile.

Pair Plus: category counts over all 22,100 hands times the pay table.
Ante+Play: for every player hand (up to suit symmetry, 1,755 classes), the
dealer's 18,424 possible hands from the other 49 cards are counted by score
with inclusion-exclusion over per-card score histograms, so each class costs
a few look-ups instead of 18,424 comparisons. Everything is an exact
``Fraction``; pays come from the profile, nothing is a stored constant.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations
from math import comb

from tablesim.cards import DECK
from tablesim.fortune3.hands import Evaluator
from tablesim.fortune3.profile import CATEGORIES, Fortune3Profile, load_profile
from tablesim.fortune3.settle import plays_by_strategy

SUIT_PATTERNS_DISTINCT = (  # suits of (high, middle, low) and how many hands share the pattern
    ((0, 0, 0), 4),
    ((0, 0, 1), 12),
    ((0, 1, 0), 12),
    ((1, 0, 0), 12),
    ((0, 1, 2), 24),
)


@dataclass(frozen=True)
class _Scored:
    rank_of: dict[tuple[int, int, int], int]  # sorted card indices -> dense score rank
    scores: list[int]  # dense rank -> score
    prefix_all: list[int]
    prefix_card: list[list[int]]


def _prefix(hist: list[int]) -> list[int]:
    out = [0]
    for h in hist:
        out.append(out[-1] + h)
    return out


def _score_all(evaluator: Evaluator) -> _Scored:
    raw: dict[tuple[int, int, int], int] = {}
    for trio in combinations(DECK, 3):
        raw[(trio[0].index, trio[1].index, trio[2].index)] = evaluator.evaluate(trio).score
    scores = sorted(set(raw.values()))
    dense = {s: i for i, s in enumerate(scores)}
    rank_of = {k: dense[s] for k, s in raw.items()}
    hist_all = [0] * len(scores)
    hist_card = [[0] * len(scores) for _ in DECK]
    for (a, b, c), r in rank_of.items():
        hist_all[r] += 1
        hist_card[a][r] += 1
        hist_card[b][r] += 1
        hist_card[c][r] += 1
    return _Scored(rank_of, scores, _prefix(hist_all), [_prefix(h) for h in hist_card])


def _classes():
    """One representative hand per suit-symmetry class, with its multiplicity."""
    ranks = range(14, 1, -1)
    for hi, mid, lo in combinations(ranks, 3):
        for suits, weight in SUIT_PATTERNS_DISTINCT:
            yield ((hi, suits[0]), (mid, suits[1]), (lo, suits[2])), weight
    for pair in ranks:
        for kicker in ranks:
            if kicker != pair:
                yield ((pair, 0), (pair, 1), (kicker, 0)), 12
                yield ((pair, 0), (pair, 1), (kicker, 2)), 12
    for trips in ranks:
        yield ((trips, 0), (trips, 1), (trips, 2)), 4


def _card(rank: int, suit: int):
    return DECK[(rank - 2) * 4 + suit]


def analyze_profile(profile: Fortune3Profile) -> dict:
    evaluator = Evaluator(profile.ranking)
    scored = _score_all(evaluator)
    total_hands = comb(52, 3)
    dealer_hands = comb(49, 3)
    ranks_count = len(scored.scores)
    q_score = evaluator.score(profile.qualifier_category, (profile.qualifier_high_card, 0, 0))
    q = bisect_left(scored.scores, q_score)  # ranks >= q qualify

    counts = {c: 0 for c in CATEGORIES}
    ante, play = Fraction(profile.ante_pays), Fraction(profile.play_pays)
    bonus = {k: Fraction(v) for k, v in profile.ante_bonus.items()}
    best_total = Fraction(0)
    named_total = Fraction(0)
    plays_best = 0
    plays_named = 0
    pp_pays = {k: Fraction(v) for k, v in profile.pair_plus.items()}
    # Pair Plus on a box that also has an Ante and follows the named strategy:
    # a fold forfeits it (Art. 9(2)) unless the profile forbids such a fold.
    pp_with_ante = Fraction(0)
    for cards_spec, weight in _classes():
        hand = [_card(r, s) for r, s in cards_spec]
        idx = sorted(c.index for c in hand)
        own = scored.rank_of[tuple(idx)]  # type: ignore[index]
        category = evaluator.evaluate(hand).category
        counts[category] += weight

        def count(lo: int, hi: int) -> int:
            """Dealer hands disjoint from the player's with dense rank in [lo, hi)."""
            if hi <= lo:
                return 0
            n = scored.prefix_all[hi] - scored.prefix_all[lo]
            for c in idx:
                n -= scored.prefix_card[c][hi] - scored.prefix_card[c][lo]
            for a, b in ((idx[0], idx[1]), (idx[0], idx[2]), (idx[1], idx[2])):
                for other in range(52):
                    if other != a and other != b:
                        r = scored.rank_of[tuple(sorted((a, b, other)))]  # type: ignore[index]
                        if lo <= r < hi:
                            n += 1
            if lo <= own < hi:
                n -= 1
            return n

        not_qualifying = count(0, q)
        beaten = count(q, min(own, ranks_count)) if own > q else 0
        winning = count(max(own + 1, q), ranks_count)
        ev_play = (
            Fraction(not_qualifying) * ante + Fraction(beaten) * (ante + play) - Fraction(winning) * 2
        ) / dealer_hands + bonus.get(category, Fraction(0))
        ev_fold = Fraction(-1)
        if ev_play >= ev_fold:
            plays_best += weight
        best_total += weight * max(ev_play, ev_fold)
        pp_result = pp_pays.get(category, Fraction(-1))
        if plays_by_strategy(profile, evaluator, evaluator.evaluate(hand)):
            plays_named += weight
            named_total += weight * ev_play
            pp_with_ante += weight * pp_result
        else:
            named_total += weight * ev_fold
            pp_with_ante += weight * (pp_result if profile.fold_with_pair_plus == "forbid" else Fraction(-1))

    pp_return = sum(
        (Fraction(n) * pp_pays.get(c, Fraction(-1)) for c, n in counts.items()), Fraction(0)
    ) / total_hands
    qualifies = Fraction(scored.prefix_all[ranks_count] - scored.prefix_all[q], total_hands)
    threshold = "-".join("..23456789TJQKA"[r] for r in profile.play_at_least)
    return {
        "game": "fortune3",
        "profile": profile.name,
        "hands": total_hands,
        "categories": {
            c: {"count": counts[c], "probability": float(Fraction(counts[c], total_hands))} for c in profile.ranking
        },
        "dealer_qualifies": float(qualifies),
        "bets": {
            "pair_plus": {"return": float(pp_return), "exact": str(pp_return)},
            "ante_play": {
                "strategy": "best (play whenever playing loses less than folding)",
                "return": float(best_total / total_hands),
                "exact": str(best_total / total_hands),
                "play_rate": float(Fraction(plays_best, total_hands)),
                "per": "ante",
            },
            f"ante_play_{threshold.replace('-', '').lower()}": {
                "strategy": f"play {threshold} or better",
                "return": float(named_total / total_hands),
                "exact": str(named_total / total_hands),
                "play_rate": float(Fraction(plays_named, total_hands)),
                "per": "ante",
            },
            "pair_plus_with_ante": {
                "strategy": f"the box also has an Ante and plays {threshold} or better; "
                f"a fold {'forfeits' if profile.fold_with_pair_plus == 'forfeit' else 'is forbidden, so never loses'}"
                " the Pair Plus",
                "return": float(pp_with_ante / total_hands),
                "exact": str(pp_with_ante / total_hands),
            },
        },
    }


def analyze(profile: str | None = None) -> dict:
    return analyze_profile(load_profile(profile))


def render_analysis(data: dict) -> str:
    lines = [f"Fortune 3 Card Poker, profile {data['profile']}: exact analysis over all {data['hands']:,} hands", ""]
    lines.append(f"{'hand':<18}{'count':>8}{'probability':>14}")
    for cat, info in data["categories"].items():
        lines.append(f"{cat:<18}{info['count']:>8}{info['probability']:>14.6f}")
    lines.append("")
    lines.append(f"dealer qualifies: {data['dealer_qualifies']:.6f}")
    lines.append("")
    lines.append(f"{'bet':<22}{'return':>10}   strategy")
    for bet, info in data["bets"].items():
        extra = f"{info.get('strategy', '')}" + (f", plays {info['play_rate']:.4f}" if "play_rate" in info else "")
        lines.append(f"{bet:<22}{info['return']:>10.6f}   {extra}")
    return "\n".join(lines) + "\n"
