"""Recall of past rounds from the journal (game recall)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from tablecore import betbatch
from tablesim.journal.journal import Journal

#: events worth showing in a recall; state changes and instructions are noise there
RECALL_EVENTS = {
    "card", "card_set_aside", "dealer", "decision", "draw", "draw_shown", "spin", "no_spin", "spin_result",
    "fault", "fault_cleared", "incident", "incident_resolved", "paused", "resumed", "void", "link", "shuffle",
    "device", "dealing_mode",
}


def round_summary(journal: Journal, round_id: str) -> dict[str, Any]:
    bets: dict[str, dict[str, str]] = {}
    # every player's bets: player -> position -> bet (a bet naming no player is its position's seat's)
    by_player: dict[str, dict[str, dict[str, str]]] = {}
    named = False
    events: list[dict[str, Any]] = []
    result: dict[str, Any] | None = None
    game = None
    profile = None
    for rec in journal.records(round_id):
        if rec.kind == "meta" and rec.name == "round":
            profile = rec.data.get("profile")
        elif rec.kind == "event" and rec.name == "result":
            result = rec.data
        elif rec.kind == "event" and rec.name in ("bet", "bet_withdrawn"):
            named = _bet(bets, by_player, rec.data, 1 if rec.name == "bet" else -1) or named
        elif betbatch.is_batch(rec.kind, rec.name):  # a group of bets, one record (older journals: a bet event each)
            for bet in betbatch.bets_of(rec.data):
                named = _bet(bets, by_player, bet, 1) or named
        elif rec.kind == "operator" or (rec.kind == "event" and rec.name in RECALL_EVENTS):
            # an event's own ``actor`` (who voided, who resolved) names who did it, when it names anyone
            events.append({"seq": rec.seq, "ts": rec.ts, "kind": rec.name, "actor": rec.actor,
                           **{k: v for k, v in rec.data.items() if v is not None or k != "actor"}})
        if rec.kind == "input" and rec.name == "open_round":
            game = rec.table_id
    out: dict[str, Any] = {"round_id": round_id}
    if result is not None:
        out.update(result)
    else:
        out.update({"status": "in_progress", "void_reason": None, "outcome": {}, "results": {}, "net": {}})
    out.setdefault("table", game)
    if profile is not None:  # {name, sha256} the round was played under (legacy rounds name none)
        out["profile"] = profile
    out["bets"] = {p: b for p, b in bets.items() if b}
    players = {pl: {p: b for p, b in per.items() if b} for pl, per in by_player.items()}
    if named and any(players.values()):
        out["player_bets"] = {pl: per for pl, per in players.items() if per}
    out["events"] = events
    return out


def _bet(bets: dict, by_player: dict, data: dict, sign: int) -> bool:
    """A bet placed (or withdrawn) into the round's totals; whether it names a player."""
    position = data["position"]
    _add(bets.setdefault(position, {}), data["bet"], data["amount"], sign)
    player = data.get("player")
    mine = by_player.setdefault(player or position, {}).setdefault(position, {})
    _add(mine, data["bet"], data["amount"], sign)
    return player is not None and player != position


def _add(stakes: dict[str, str], bet: str, amount: str, sign: int) -> None:
    """Add (or, withdrawn, take back) an amount of a bet; a bet at 0 is gone."""
    value = Decimal(stakes.get(bet, "0")) + sign * Decimal(amount)
    if value:
        stakes[bet] = str(value)
    else:
        stakes.pop(bet, None)


def select_rounds(journal: Journal, last: int | None, round_id: str | None) -> list[str]:
    ids = journal.round_ids()
    if round_id is not None:
        return [round_id] if round_id in ids else []
    return ids[-last:] if last else ids


#: how history names who did something (an operator's ``role:name`` names the person)
WHO = {"table": "the table", "device": "a device", "timer": "the bet timer", "bus": "the platform (bus)",
       "platform": "the platform", "recovery": "recovery", "player": "a player", "dealer": "the dealer",
       "unattended": "the unattended table", "": "nobody named"}


def who(actor: str | None) -> str:
    """``dealer:Ana`` -> ``dealer Ana``; ``timer`` -> ``the bet timer``."""
    actor = actor or ""
    role, sep, name = actor.partition(":")
    if sep and name:
        return f"{role} {name}"
    return WHO.get(actor, actor)


def round_actions(journal: Journal, round_id: str) -> dict[str, Any]:
    """Who did what in a round: its actions (inputs and operator records, bets
    counted per actor) and who dealt it (its ``round_dealer`` record, else the
    dealer whose token opened it; journals before named nobody)."""
    from tablesim.journal.shifts import ROUND_DEALER, dealer_of_actor

    actions: list[dict[str, Any]] = []
    bets: dict[str, int] = {}
    dealer = None
    for rec in journal.records(round_id):
        if rec.kind == "operator" and rec.name == ROUND_DEALER:
            dealer = rec.data.get("dealer") or dealer
        elif rec.kind == "input" and rec.name in ("bet", "withdraw_bet", "place_bet"):
            bets[who(rec.actor)] = bets.get(who(rec.actor), 0) + 1
        elif betbatch.is_batch(rec.kind, rec.name):
            for bet in betbatch.bets_of(rec.data, rec.actor):
                bets[who(bet["actor"])] = bets.get(who(bet["actor"]), 0) + 1
        elif rec.kind in ("input", "operator") and rec.name != "handle":  # (a device's report: its events show it)
            if rec.kind == "input" and rec.name == "open_round" and dealer is None:
                dealer = dealer_of_actor(rec.actor)
            actions.append({"seq": rec.seq, "name": rec.name, "by": who(rec.actor)})
    return {"dealer": dealer, "actions": actions, "bets_by": bets}
