"""Exact analysis of the football card game's bets (``tablesim analyze football``).

One box's cards are drawn without replacement from a full shoe of N decks:
two cards, and a third when the two total a middle number (Art. 10(1)). The
enumeration runs over card values with their multiplicities in the shoe (10
values rather than 52N cards), in exact fractions, so the figures include
card removal and are exact for 1 to 8 decks. Each bet's expected return per
unit staked comes from the same settlement functions the table uses (pays,
commission and the Art. 10(2) rule from the profile), averaged over the
draws, which the display picks with equal chance.

Those returns are without the payout unit's rounding (the commission paid
exactly). Where the profile rounds a commissioned win down to the table's
payout unit (``commission.rounding`` ``player`` or ``house``), the return depends on the
stake: the analysis states it too, for a few stakes counted in payout units
(stake 20 with a payout unit of 1 wins 19 exactly; stake 10 wins 9.5, paid 9).
"""

from __future__ import annotations

from collections import Counter
from decimal import Decimal
from fractions import Fraction

from tablecore.errors import InputError
from tablesim.games.football.profile import BETS, FootballProfile, load_profile
from tablesim.games.football.profile import MAX_DECKS, MIN_DECKS
from tablesim.games.football.settle import bet_outcome, bet_result, paid_win

DECK_SIZE = 52
SUITS = 4


def value_counts(profile: FootballProfile, decks: int) -> dict[int, int]:
    """How many cards of each value (0-9) a shoe of ``decks`` decks holds."""
    counts: Counter[int] = Counter()
    for value in profile.card_values.values():
        counts[value] += SUITS * decks
    return dict(counts)


def final_totals(profile: FootballProfile, decks: int) -> tuple[dict[int, Fraction], Fraction]:
    """P(final total = t) for t in 0..9, and P(a third card is dealt)."""
    counts = value_counts(profile, decks)
    left = dict(counts)
    n = DECK_SIZE * decks
    dist = {t: Fraction(0) for t in range(10)}
    third = Fraction(0)
    for v1, c1 in counts.items():
        p1 = Fraction(c1, n)
        left[v1] -= 1
        for v2 in counts:
            if not left[v2]:
                continue
            p2 = p1 * Fraction(left[v2], n - 1)
            two = (v1 + v2) % 10
            if two in profile.middle:
                third += p2
                left[v2] -= 1
                for v3 in counts:
                    if left[v3]:
                        dist[(two + v3) % 10] += p2 * Fraction(left[v3], n - 2)
                left[v2] += 1
            else:
                dist[two] += p2
        left[v1] += 1
    return dist, third


#: stakes, in payout units, for which the rounded return is stated
ROUNDING_STAKES = (1, 2, 5, 10, 15, 20, 50, 100)


def _num(x: Fraction) -> dict:
    return {"exact": f"{x.numerator}/{x.denominator}", "value": round(float(x), 12)}


def analyze(profile: str | FootballProfile | None = None, decks: int = 1) -> dict:
    if not isinstance(profile, FootballProfile):
        profile = load_profile(profile)
    if not MIN_DECKS <= decks <= MAX_DECKS:
        raise InputError(f"decks must be {MIN_DECKS}-{MAX_DECKS}, not {decks}")
    dist, third = final_totals(profile, decks)
    middle = sum((dist[t] for t in profile.middle), Fraction(0))
    one = Decimal(1)
    bets = {}
    for bet in BETS:
        by_draw = {
            draw.index: sum((p * Fraction(bet_result(profile, draw, bet, one, t)) for t, p in dist.items()), Fraction(0))
            for draw in profile.draws.values()
        }
        average = sum(by_draw.values(), Fraction(0)) / len(by_draw)
        bets[bet] = {
            "pays": str(profile.pays[bet]),
            "commission": str(profile.commission.get(bet, Decimal(0))),
            "return": _num(average),
            "by_draw": {str(i): _num(r) for i, r in by_draw.items()},
        }
    rounding = _rounded_returns(profile, dist) if profile.commission_rounding != "exact" else {}
    return {
        "game": "football",
        "profile": profile.name,
        "decks": decks,
        "cards": DECK_SIZE * decks,
        "method": "exact: one box's 2-3 cards drawn without replacement from a full shoe; "
        "returns per unit staked, averaged over the draws (equal chance)",
        "p_third_card": _num(third),
        "p_middle": _num(middle),
        "totals": {str(t): _num(p) for t, p in dist.items()},
        "bets": bets,
        "commission_rounding": {
            "rule": profile.commission_rounding,
            "note": "'return' above pays the commission exactly; at a payout unit the rule rounds "
                    "(player: the commission down; house: the payout down): the return per unit staked "
                    "for these stakes (counted in payout units)",
            "by_stake": rounding,
        },
    }


def _rounded_returns(profile: FootballProfile, dist: dict[int, Fraction]) -> dict[str, dict[str, dict]]:
    """Each commissioned bet's return per unit staked, with the payout
    rounded down to a payout unit of 1, for stakes of ``ROUNDING_STAKES``:
    P(win) x the paid win - P(lose) x the stake, per unit staked."""
    unit = Decimal(1)
    chances: dict[str, dict[str, Fraction]] = {}
    for bet in profile.commission:
        by_outcome = {"win": Fraction(0), "lose": Fraction(0), "push": Fraction(0)}
        for draw in profile.draws.values():
            for t, p in dist.items():
                by_outcome[bet_outcome(profile, draw, bet, t)] += p
        chances[bet] = {k: v / len(profile.draws) for k, v in by_outcome.items()}
    out: dict[str, dict[str, dict]] = {}
    for stake in ROUNDING_STAKES:
        per_bet = {}
        for bet, p in chances.items():
            paid, _ = paid_win(profile, bet, Decimal(stake), unit)
            per_bet[bet] = _num((p["win"] * Fraction(paid) - p["lose"] * stake) / stake)
        out[str(stake)] = per_bet
    return out


def render_analysis(data: dict) -> str:
    lines = [
        f"Football card game, profile {data['profile']}: {data['decks']} deck(s), {data['cards']} cards, exact",
        f"P(third card) {data['p_third_card']['value']:.6f}   P(middle) {data['p_middle']['value']:.6f}",
        "",
        "final total  probability",
    ]
    for t, p in data["totals"].items():
        lines.append(f"{t:>11}  {p['value']:.6f}")
    lines += ["", f"{'bet':<8}{'pays':>6}{'commission':>12}{'return':>12}{'house edge':>12}   (averaged over the draws)"]
    for bet, info in data["bets"].items():
        r = info["return"]["value"]
        commission = Decimal(info["commission"])
        lines.append(
            f"{bet:<8}{info['pays'] + ':1':>6}{(f'{(commission * 100).normalize():f}%' if commission else '-'):>12}"
            f"{r:>12.6f}{-r * 100:>11.4f}%"
        )
    rounding = data.get("commission_rounding", {})
    if rounding.get("by_stake"):
        bets = list(next(iter(rounding["by_stake"].values())))
        how = ("the commission rounded down" if rounding.get("rule") == "player"
               else "the win less commission rounded down")
        lines += ["", f"return at a payout unit of 1, {how} (rule: {rounding.get('rule')}); "
                  "'return' above pays the commission exactly",
                  f"{'stake (payout units)':<22}" + "".join(f"{b:>12}" for b in bets)]
        for stake, per_bet in rounding["by_stake"].items():
            lines.append(f"{stake:<22}" + "".join(f"{per_bet[b]['value']:>12.6f}" for b in bets))
    draws = list(data["bets"]["upper"]["by_draw"])
    lines += ["", "by draw  " + "".join(f"{d:>10}" for d in draws)]
    for bet in ("upper", "lower"):
        by_draw = data["bets"][bet]["by_draw"]
        lines.append(f"{bet:<9}" + "".join(f"{by_draw[d]['value']:>10.6f}" for d in draws))
    return "\n".join(lines) + "\n"
