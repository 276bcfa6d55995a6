"""The simulation report: measured return per bet against the exact figure."""

from __future__ import annotations

from typing import Any

from tablecore.money import fmt
from tablesim.harness.simulate.stats import Tally


def build_report(game: str, tally: Tally, exact: dict[str, dict[str, Any]], meta: dict[str, Any]) -> dict[str, Any]:
    bets = {}
    for bet, acc in tally.by_bet.items():
        m = acc.measured
        h99, h999 = acc.half_width(0.99), acc.half_width(0.999)
        ex = exact.get(bet, {}).get("return")
        judged = ex is not None and acc.judged
        bets[bet] = {
            "rounds": acc.rounds,
            "wagered": fmt(acc.wagered),
            "returned": fmt(acc.net),
            "measured": m,
            "ci99": [m - h99, m + h99],
            "ci999": [m - h999, m + h999],
            "exact": ex,
            "exact_basis": exact.get(bet, {}).get("basis"),
            "wins": acc.wins,
            # None: no exact figure, or too few wins or losses to judge by this interval
            "inside99": abs(ex - m) <= h99 if judged else None,
            "inside999": abs(ex - m) <= h999 if judged else None,
        }
    inside = [b["inside99"] for b in bets.values() if b["inside99"] is not None]
    return {
        "game": game,
        **meta,
        "rounds": tally.rounds,
        "void_rounds": tally.void,
        "bets": bets,
        "inside99": f"{sum(inside)}/{len(inside)}",
        "outside999": [name for name, b in bets.items() if b["inside999"] is False],
        "not_judged": [name for name, b in bets.items() if b["exact"] is not None and b["inside99"] is None],
    }
