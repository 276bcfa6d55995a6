"""A round's result as an open view shows it: totals, never a player.

A table's ``result`` record names every player (``players``: each one's
results, net and stakes) and, on Fortune 3's shared remote hand, each
remote player's decision (``outcome.remote.decisions``, ``timed_out``).
Whoever reads a view without a token (the table's results board and open
API, the floor) sees the round's totals instead: per spot and bet, the
players' net, and how many players decided what. ``spots`` says whether
the table's positions are spots (boxes) or players themselves (the wheel,
bet by player): then the totals are per bet, across the players.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

#: where the totals of a table whose positions are its players go (one "position": all of them)
ALL = "all"
#: a result's parts that are per position (per player where positions are players)
PER_POSITION = ("results", "stakes")


def result(data: dict[str, Any], spots: bool = True) -> dict[str, Any]:
    """``data`` (a ``result`` record's data, or a board's entry) without any player."""
    out = {k: v for k, v in data.items() if k != "players"}
    if isinstance(out.get("outcome"), dict):
        out["outcome"] = outcome(out["outcome"])
    if not spots:
        for key in PER_POSITION:
            if isinstance(out.get(key), dict):
                out[key] = {ALL: by_bet(out[key])}
        if isinstance(out.get("net"), dict):
            out["net"] = {ALL: total(out["net"].values())}
    return out


def outcome(data: dict[str, Any]) -> dict[str, Any]:
    """An outcome with each remote player's decision counted, not named."""
    remote = data.get("remote")
    if not isinstance(remote, dict):
        return data
    shown = dict(remote)
    if isinstance(remote.get("decisions"), dict):
        counts: dict[str, int] = {}
        for decision in remote["decisions"].values():
            counts[str(decision)] = counts.get(str(decision), 0) + 1
        shown["decisions"] = counts
    if isinstance(remote.get("timed_out"), list):
        shown["timed_out"] = len(remote["timed_out"])
    return {**data, "remote": shown}


def by_bet(per_position: dict[str, Any]) -> dict[str, str]:
    """position -> bet -> amount, summed per bet across the positions."""
    sums: dict[str, list] = {}
    for bets in per_position.values():
        if isinstance(bets, dict):
            for bet, amount in bets.items():
                sums.setdefault(str(bet), []).append(amount)
    return {bet: total(amounts) for bet, amounts in sums.items()}


def total(amounts) -> str:
    """The exact sum of amounts written as text (what cannot be read counts nothing)."""
    out = Decimal(0)
    for amount in amounts:
        try:
            out += Decimal(str(amount))
        except (InvalidOperation, ValueError):
            continue
    return str(out)


def players_net(net: Any) -> str | None:
    """The round's players' net in all (a result's ``net``, per position)."""
    return total(net.values()) if isinstance(net, dict) else None
