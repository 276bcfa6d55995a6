"""Exact analysis of the wheel's bets from the profile's layout and pays.

A bet on a symbol with ``c`` of the ``N`` equal segments (Art. 1(2)) wins
with probability ``c/N`` and then pays ``stake x pays`` (Art. 6); otherwise it
loses the stake. Its expected return per unit staked is

    (c x pays - (N - c)) / N

computed with exact fractions (pays may be any exact decimal).
"""

from __future__ import annotations

from collections import Counter
from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction
from typing import Any

from tablecore.errors import InputError
from tablecore.money import fmt
from tablesim.games.wheel.profile import WheelProfile, load_profile

PLACES = Decimal("0.000001")


def _dec(value: Fraction, places: Decimal = PLACES) -> str:
    d = (Decimal(value.numerator) / Decimal(value.denominator)).quantize(places, rounding=ROUND_HALF_EVEN)
    return format(d, "f")


def _frac(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def symbol_figures(profile: WheelProfile, layout: tuple[str, ...] | None = None) -> dict[str, dict[str, Fraction]]:
    """Per symbol: exact probability of winning and expected return per unit."""
    layout = layout or profile.layout
    n = len(layout)
    counts = Counter(layout)
    out = {}
    for sym in profile.symbols:
        c = counts[sym.name]
        p = Fraction(c, n)
        pays = Fraction(sym.pays)
        out[sym.name] = {"probability": p, "pays": pays, "expected_return": p * pays - (1 - p)}
    return out


def analyze(profile: str | WheelProfile | None = None, **opts: Any) -> dict[str, Any]:
    unknown = [k for k, v in opts.items() if v is not None]
    if unknown:
        raise InputError(f"the wheel has no {unknown[0]} option")
    prof = profile if isinstance(profile, WheelProfile) else load_profile(profile)
    figures = symbol_figures(prof)
    counts = Counter(prof.layout)
    symbols = {}
    for sym in prof.symbols:
        f = figures[sym.name]
        symbols[sym.name] = {
            "segments": counts[sym.name],
            "pays": fmt(sym.pays),
            "probability": _frac(f["probability"]),
            "probability_decimal": _dec(f["probability"]),
            "expected_return": _frac(f["expected_return"]),
            "expected_return_decimal": _dec(f["expected_return"]),
            "house_edge_percent": _dec(-f["expected_return"] * 100, Decimal("0.001")),
        }
    return {
        "game": "wheel",
        "profile": prof.name,
        "segments": len(prof.layout),
        "min_turns": prof.min_turns,
        "symbols": symbols,
    }


def render_analysis(data: dict[str, Any]) -> str:
    rows = [("symbol", "segments", "pays", "probability", "", "expected return", "", "house edge")]
    for name, s in data["symbols"].items():
        rows.append(
            (
                name,
                str(s["segments"]),
                f"{s['pays']}:1",
                s["probability"],
                s["probability_decimal"],
                s["expected_return"],
                s["expected_return_decimal"],
                f"{s['house_edge_percent']}%",
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    right = {1, 2, 3, 4, 5, 6, 7}
    lines = [
        f"Wheel of Fortune, profile {data['profile']}: {data['segments']} equal segments; "
        f"exact figures per unit staked (a spin counts with at least {data['min_turns']} full turns)",
        "",
    ]
    for r in rows:
        cells = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines) + "\n"
