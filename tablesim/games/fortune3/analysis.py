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

from tablecore.cards import DECK
from tablesim.games.fortune3.hands import Evaluator
from tablesim.games.fortune3.profile import CATEGORIES, Fortune3Profile, load_profile

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
    pair_ranks: dict[tuple[int, int], list[int]]  # the 50 hands holding both cards, by rank


def _prefix(hist: list[int]) -> list[int]:
    out = [0]
    for h in hist:
        out.append(out[-1] + h)
    return out


def _score_all(evaluator: Evaluator) -> _Scored:
    # Card index = (rank - 2) * 4 + suit, so ascending indices are ascending
    # ranks: classification needs only arithmetic here (the evaluator's own
    # path is checked against this one over all hands by the tests).
    score_of = {}
    raw: dict[tuple[int, int, int], int] = {}
    for a, b, c in combinations(range(52), 3):
        ra, rb, rc = a // 4 + 2, b // 4 + 2, c // 4 + 2
        flush = a % 4 == b % 4 == c % 4
        if ra == rc:
            key = ("three_of_a_kind", (ra,))
        elif ra == rb or rb == rc:
            key = ("pair", (rb, rc if ra == rb else ra))
        elif rc - ra == 2 or (rc == 14 and rb == 3):
            key = ("straight_flush" if flush else "straight", (rc if rc - ra == 2 else 3,))
        else:
            key = ("flush" if flush else "high_card", (rc, rb, ra))
        score = score_of.get(key)
        if score is None:
            score = score_of[key] = evaluator.score(*key)
        raw[(a, b, c)] = score
    scores = sorted(set(raw.values()))
    dense = {s: i for i, s in enumerate(scores)}
    rank_of = {k: dense[s] for k, s in raw.items()}
    hist_all = [0] * len(scores)
    hist_card = [[0] * len(scores) for _ in DECK]
    pair_ranks: dict[tuple[int, int], list[int]] = {}
    for (a, b, c), r in rank_of.items():
        hist_all[r] += 1
        hist_card[a][r] += 1
        hist_card[b][r] += 1
        hist_card[c][r] += 1
        for pair in ((a, b), (a, c), (b, c)):
            pair_ranks.setdefault(pair, []).append(r)
    for ranks in pair_ranks.values():
        ranks.sort()
    return _Scored(rank_of, scores, _prefix(hist_all), [_prefix(h) for h in hist_card], pair_ranks)


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


def analyze_profile(profile: Fortune3Profile) -> dict:
    evaluator = Evaluator(profile.ranking)
    scored = _score_all(evaluator)
    total_hands, dealer_hands = comb(52, 3), comb(49, 3)
    ranks_count = len(scored.scores)
    q_score = evaluator.score(profile.qualifier_category, (profile.qualifier_high_card, 0, 0))
    q = bisect_left(scored.scores, q_score)  # ranks >= q qualify

    counts = {c: 0 for c in CATEGORIES}
    scale, ante, play, bonus, pp_pays = _scaled_pays(profile, dealer_hands)
    fold = -scale * dealer_hands
    best_total = named_total = plays_best = plays_named = 0
    # Pair Plus on a box that also has an Ante and follows the named strategy:
    # a fold forfeits it (Art. 9(2)) unless the profile forbids such a fold.
    pp_with_ante = 0
    named_threshold = evaluator.high_card_score(profile.play_at_least)
    prefix_all, prefix_card, pair_ranks = scored.prefix_all, scored.prefix_card, scored.pair_ranks
    for cards_spec, weight in _classes():
        idx = sorted((r - 2) * 4 + s for r, s in cards_spec)
        own = scored.rank_of[tuple(idx)]  # type: ignore[index]
        hand = evaluator.evaluate([DECK[i] for i in idx])
        category = hand.category
        counts[category] += weight
        pairs = (pair_ranks[(idx[0], idx[1])], pair_ranks[(idx[0], idx[2])], pair_ranks[(idx[1], idx[2])])
        cards = (prefix_card[idx[0]], prefix_card[idx[1]], prefix_card[idx[2]])

        def count(lo: int, hi: int) -> int:
            """Dealer hands disjoint from the player's with dense rank in [lo, hi)."""
            if hi <= lo:
                return 0
            n = prefix_all[hi] - prefix_all[lo]
            for pc in cards:
                n -= pc[hi] - pc[lo]
            for ranks in pairs:
                n += bisect_left(ranks, hi) - bisect_left(ranks, lo)
            return n - (1 if lo <= own < hi else 0)

        not_qualifying = count(0, q)
        beaten = count(q, own) if own > q else 0
        winning = count(max(own + 1, q), ranks_count)
        ev_play = not_qualifying * ante + beaten * (ante + play) - winning * 2 * scale + bonus.get(category, 0)
        if ev_play >= fold:
            plays_best += weight
        best_total += weight * max(ev_play, fold)
        pp_result = pp_pays.get(category, -scale)
        if hand.score >= named_threshold:
            plays_named += weight
            named_total += weight * ev_play
            pp_with_ante += weight * pp_result
        else:
            named_total += weight * fold
            pp_with_ante += weight * (pp_result if profile.fold_with_pair_plus == "forbid" else -scale)
    qualifies = Fraction(scored.prefix_all[ranks_count] - scored.prefix_all[q], total_hands)
    return _totals(profile, counts, qualifies, (scale, dealer_hands, pp_pays), (best_total, plays_best),
                   (named_total, plays_named), pp_with_ante)


def _totals(profile: Fortune3Profile, counts: dict, qualifies: Fraction, units: tuple, best: tuple, named: tuple,
            pp_with_ante: int) -> dict:
    """The report from the whole-number sums (``units``: the scale, the
    dealer's hands and the scaled Pair Plus pays): each a Fraction once."""
    scale, dealer_hands, pp_pays = units
    total_hands = comb(52, 3)
    pp_return = Fraction(sum(n * pp_pays.get(c, -scale) for c, n in counts.items()), scale * total_hands)
    report = _report(profile, counts, total_hands, qualifies, pp_return,
                     (Fraction(best[0], dealer_hands * scale), best[1]),
                     (Fraction(named[0], dealer_hands * scale), named[1]), Fraction(pp_with_ante, scale))
    if profile.remote is not None:
        remote_figures(profile, report)
    return report


def _scaled_pays(profile: Fortune3Profile, dealer_hands: int) -> tuple:
    """The pays as whole numbers: arithmetic in units of 1/(dealer_hands *
    scale). Pays are decimals, so scaling by a power of ten makes every term
    whole and the per-class work free of Fraction objects; the totals become
    Fractions once."""
    pays = [profile.ante_pays, profile.play_pays, *profile.ante_bonus.values(), *profile.pair_plus.values()]
    scale = 10 ** max((-p.as_tuple().exponent for p in pays if p.as_tuple().exponent < 0), default=0)
    ante, play = int(profile.ante_pays * scale), int(profile.play_pays * scale)
    bonus = {k: int(v * scale) * dealer_hands for k, v in profile.ante_bonus.items()}
    pp_pays = {k: int(v * scale) for k, v in profile.pair_plus.items()}
    return scale, ante, play, bonus, pp_pays


def _report(profile: Fortune3Profile, counts: dict, total_hands: int, qualifies: Fraction, pp_return: Fraction,
            best: tuple[Fraction, int], named: tuple[Fraction, int], pp_with_ante: Fraction) -> dict:
    """The analysis as ``tablesim analyze`` reports it."""
    (best_total, plays_best), (named_total, plays_named) = best, named
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


def remote_figures(profile: Fortune3Profile, data: dict) -> None:
    """A profile with the shared remote hand: each remote player is settled
    exactly as a box and (simulated) decides with the same strategy, so
    their returns are a box's; one who never decides folds on the timer."""
    bets = data["bets"]
    named = next(k for k in bets if k.startswith("ante_play_"))
    bets[f"remote_{named}"] = {**bets[named], "strategy": "a remote player, settled as a box: "
                               + bets[named]["strategy"]}
    bets["remote_pair_plus"] = {**bets["pair_plus"], "strategy": "a remote player's Pair Plus, settled as a box's"}
    bets["remote_no_decision"] = {"strategy": "no decision before the decision timer runs out: a fold, "
                                  "the Ante lost (and any Pair Plus)", "return": -1.0, "exact": "-1", "per": "ante"}
    data["remote"] = {"decision_seconds": profile.remote.decision_seconds, "changes": list(profile.remote.changes)}


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
