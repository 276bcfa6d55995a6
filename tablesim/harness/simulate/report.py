"""The simulation report: measured return per bet against the exact figure."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from tablesim.core.money import fmt
from tablesim.harness.simulate.stats import Tally


def build_report(game: str, tally: Tally, exact: dict[str, dict[str, Any]], meta: dict[str, Any]) -> dict[str, Any]:
    bets = {}
    for bet, acc in tally.by_bet.items():
        m = acc.measured
        h99, h999 = acc.half_width(0.99), acc.half_width(0.999)
        ex = exact.get(bet, {}).get("return")
        bets[bet] = {
            "rounds": acc.rounds,
            "wagered": fmt(acc.wagered),
            "returned": fmt(acc.net),
            "measured": m,
            "ci99": [m - h99, m + h99],
            "ci999": [m - h999, m + h999],
            "exact": ex,
            "exact_basis": exact.get(bet, {}).get("basis"),
            "inside99": None if ex is None else abs(ex - m) <= h99,
            "inside999": None if ex is None else abs(ex - m) <= h999,
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
    }


def report_table(report: dict[str, Any]) -> Table:
    table = Table(title=f"{report['game']}: {report['rounds']:,} rounds, seed {report['seed']}, {report['workers']} worker(s)")
    for col in ("bet", "rounds", "wagered", "returned", "measured", "99% interval", "exact", "inside"):
        table.add_column(col, justify="left" if col == "bet" else "right")
    for bet, b in report["bets"].items():
        lo, hi = b["ci99"]
        exact = "-" if b["exact"] is None else f"{b['exact']:.6f}"
        inside = "-" if b["inside99"] is None else ("yes" if b["inside99"] else ("NO (99.9% yes)" if b["inside999"] else "NO"))
        table.add_row(bet, f"{b['rounds']:,}", b["wagered"], b["returned"], f"{b['measured']:.6f}",
                      f"[{lo:.6f}, {hi:.6f}]", exact, inside)
    return table
