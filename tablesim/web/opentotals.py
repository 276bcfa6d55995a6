"""The players' part of the table's open views: totals, never a player.

Every open interface (``GET /api/table``, ``/api/history``, ``/api/results``,
``/api/events``, the WebSocket's hello, snapshots, bets messages and
events, the board) shows what is on the table per spot and bet, the count
of players, and what the round paid in all; never a player's id, a
player's own stake or a player's decision. (A box's play or fold stays: it
is the box's, on the layout, as the table shows it to all; on Fortune 3's
shared remote hand, where each player decides alone, only how many played
and folded.) What the
dealer needs of each player is behind the operator's token
(``GET /api/book``); a remote player's own bets are the platform's to show
them, behind their session.

Where a table's positions are its players (the wheel, bet by player), its
spots are its bets: the book is shown as the totals per bet under one
position, ``all`` (``tablesim.studio.totals.ALL``).
"""

from __future__ import annotations

from typing import Any

from tablesim.studio import totals as results
from tablesim.studio.totals import ALL, by_bet

#: the fields of an event that name a player, or a player's own bet or stake
PRIVATE = ("player", "players", "ref", "stake")
#: the events of one bet (the spots' totals come in ``bets`` messages and snapshots)
BET_EVENTS = ("bet", "bet_withdrawn")


def book(bets: dict[str, Any], spots: bool) -> dict[str, Any]:
    """A bet book (position -> bet -> amount) as shown openly."""
    if spots:
        return bets
    return {ALL: by_bet(bets)} if bets else {}


def players_count(bets: dict[str, Any], players: dict[str, Any]) -> int:
    """How many players have bets on the table (a position's own seat is one)."""
    named = {pl for per in players.values() for pl in per}
    return len(named | (set(bets) - set(players)))


def table(snap: dict[str, Any], spots: bool, per_bet: dict[str, str] | None = None) -> dict[str, Any]:
    """The table's snapshot as shown openly: the book's totals and the count of players.
    ``per_bet``: where positions are players, the totals per bet as the book keeps them
    (summed here from the whole book otherwise: thousands of positions each snapshot)."""
    out = dict(snap)
    bets, players = snap.get("bets") or {}, out.pop("players", None) or {}
    out["players_count"] = players_count(bets, players)
    out["bets"] = ({ALL: per_bet} if per_bet else {}) if per_bet is not None and not spots else book(bets, spots)
    if isinstance(out.get("result"), dict):
        out["result"] = results.result(out["result"], spots)
    return out


def event(msg: dict[str, Any], spots: bool, shared: str | None = None) -> dict[str, Any]:
    """One event message as the open stream carries it; ``shared``: the
    position of the table's shared remote hand, if it has one."""
    data = msg.get("data")
    if not isinstance(data, dict):
        return msg
    kind = msg.get("kind")
    if kind == "result":
        return {**msg, "data": results.result(data, spots)}
    if kind == "settlement" and not spots and isinstance(data.get("results"), dict):
        return {**msg, "data": {**data, "results": {ALL: by_bet(data["results"])}}}
    if kind in BET_EVENTS:
        # one bet is one player's stake: the spots' totals go out in the bets messages
        if spots:
            return {**msg, "data": {k: data[k] for k in ("position", "bet") if k in data}}
        return {**msg, "data": {"bet": data["bet"]} if "bet" in data else {}}
    if kind == "decision" and shared is not None and data.get("box") == shared:
        # one of the players of the shared hand decided: that one did, not who nor what
        # (the view counts how many played and folded)
        return {**msg, "data": {"box": shared}}
    if any(k in data for k in PRIVATE):
        return {**msg, "data": {k: v for k, v in data.items() if k not in PRIVATE}}
    return msg


def summary(rnd: dict[str, Any], spots: bool) -> dict[str, Any]:
    """A round of the history as shown openly (``tablesim.journal.history.round_summary``)."""
    out = results.result({k: v for k, v in rnd.items() if k != "player_bets"}, spots)
    if isinstance(out.get("bets"), dict):
        out["bets"] = book(out["bets"], spots)
    if isinstance(out.get("events"), list):
        out["events"] = [_recalled(ev, spots) for ev in out["events"]]
    return out


def _recalled(ev: dict[str, Any], spots: bool) -> dict[str, Any]:
    """A recalled event (its data's fields beside ``kind``) as shown openly."""
    head = {k: ev[k] for k in ("seq", "ts", "kind", "actor") if k in ev}
    shown = event({"kind": ev.get("kind"), "data": {k: v for k, v in ev.items() if k not in head}}, spots)
    return {**head, **shown["data"]}
