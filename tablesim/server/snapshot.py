"""The table's view (what ``GET /api/table``, the hello and the snapshots
show), rebuilt after each command, at most every ``SNAPSHOT_EVERY`` while
bets stream in; what the bets' coalesced message says of the book."""

from __future__ import annotations

import asyncio
import functools
import time
from pathlib import Path
from typing import Any

from tablecore.money import fmt
from tablecore.wording import message_of
from tablesim.web import opentotals, redaction
from tablesim.server.fanout import BET_KINDS, SPOTS_MAX
from tablesim.server.stream import jsonable

#: while bets stream in, the table's snapshot (O(bets on the table) to build
#: and to send) is rebuilt at most this often; the bets' totals go out with it
SNAPSHOT_EVERY = 0.25
#: a bet book of more positions than this goes to the clients apart from the snapshot
BOOK_INLINE = 64


def snapshot_messages(table: dict[str, Any], seq: int) -> list[dict[str, Any]]:
    """The stream's messages for a new snapshot of the table. A big bet book
    (thousands of players) goes apart, as a ``book`` message paced on its own:
    the rest of the table (its state, its actions) reaches every console at
    once, however many bets are on it."""
    if len(table.get("bets") or ()) <= BOOK_INLINE and len(table.get("players") or ()) <= BOOK_INLINE:
        return [{"type": "snapshot", "seq": seq, "table": table}]
    light = {k: v for k, v in table.items() if k not in ("bets", "players")}
    return [{"type": "snapshot", "seq": seq, "table": light},
            {"type": "book", "seq": seq, "round_id": table.get("round_id"), "bets": table.get("bets"),
             "players": table.get("players")}]


class Snapshots:
    """(A part of ``TableRunner``.) The view, kept in ``snapshot_cache``."""

    def _init_view(self) -> None:
        self.snapshot_cache: dict[str, Any] = {}
        self._snapshot_at = 0.0
        self._snapshot_every = SNAPSHOT_EVERY
        self._snapshot_due = False  # a lazy refresh is scheduled

    @functools.cached_property
    def spots(self) -> bool:
        """Whether the table's positions are spots (boxes), not its players (the wheel)."""
        return bool(self.adapter.layout().get("positions"))

    def _bet_spots(self, pending: list[dict]) -> dict | None:
        """(The table's thread) after bets: the totals now on the positions they
        changed, from the table's book (a position's whole box), and the
        table's total; what the consoles' coalesced ``bets`` message shows.
        Where the positions are players, the totals per bet of them all."""
        book = self.table.book
        if not self.spots:
            if not any(msg["kind"] in BET_KINDS for msg in pending):
                return None
            # (kept by the book as bets come: a sum over the whole book per group was the square of the bets)
            per_bet = {bet: fmt(amount) for bet, amount in book.bet_totals().items()}
            return {"total_bet": fmt(book.total()), "spots": {opentotals.ALL: per_bet}}
        spots: dict[str, dict[str, str]] | None = {}
        for msg in pending:
            if msg["kind"] in BET_KINDS:
                position = str(msg["data"].get("position"))
                if spots is not None and position not in spots:
                    spots[position] = {bet: fmt(amount) for bet, amount in book.bets.get(position, {}).items()}
                    if len(spots) > SPOTS_MAX:
                        spots = None
        if spots == {}:
            return None
        return {"total_bet": fmt(book.total()), "spots": spots}

    def _refresh_later(self) -> None:
        """(The table's thread) rebuild the snapshot once ``SNAPSHOT_EVERY`` is up."""
        if self._snapshot_due or self.loop is None:
            return
        self._snapshot_due = True

        def due() -> None:
            if self.executor is not None:
                asyncio.ensure_future(self.call(self._refresh_due, publish=False))

        self.loop.call_soon_threadsafe(self.loop.call_later, self._snapshot_every, due)

    def _refresh_due(self) -> None:
        if self._snapshot_due:
            self._refresh_snapshot(True)

    def _refresh_snapshot(self, announce: bool) -> None:
        start = time.monotonic()
        self.snapshot_cache = self._snapshot()
        self._snapshot_at, self._snapshot_due = time.monotonic(), False
        # A big table (thousands of bets) takes long to show: show it less often.
        self._snapshot_every = max(SNAPSHOT_EVERY, 20 * (self._snapshot_at - start))
        if announce:
            self.stream.publish_all(snapshot_messages(self.snapshot_cache, self.stream.last_seq))

    def _actions_view(self) -> list[dict[str, Any]]:
        """The console's buttons: the game's actions and the operator's, enabled as the table allows."""
        t = self.table
        a = self.adapter
        actions = [x.describe() for x in a.actions().values()]
        blocking = t.blocked
        actions += [
            {"name": "pause", "label": "Pause", "role": "dealer", "enabled": t.can("pause"), "fields": ["why"], "hidden": False},
            {"name": "resume", "label": "Resume", "role": "dealer", "enabled": t.can("resume"), "fields": ["why"], "hidden": False},
            {"name": "void", "label": "Void round", "role": "supervisor", "enabled": t.can("void"),
             "fields": ["why"], "hidden": False},
            {"name": "resolve_incident", "label": "Resolve incident", "role": "supervisor",
             "enabled": t.can("resolve_incident"), "fields": ["decision", "why", "card"], "hidden": True},
        ]
        if t.paused or blocking:
            for act in actions:
                if act["name"] not in ("pause", "resume", "void", "resolve_incident"):
                    act["enabled"] = False
        return actions

    def _snapshot(self) -> dict[str, Any]:
        t = self.table
        a = self.adapter
        actions = self._actions_view()
        devices = [
            {"name": d.name, "kind": d.kind, "link_up": d.health.link_up, "ok": d.health.ok,
             "faults": redaction.device_faults({str(k): v for k, v in d.health.faults.items()})}
            for d in t.devices
        ]
        result = None
        if t.result is not None:
            result = {"round_id": t.result.round_id, **t.result.as_json()}
        timer = None
        if self.bet_seconds:
            timer = {"seconds": self.bet_seconds,
                     "remaining": None if self.timer_remaining is None else round(max(self.timer_remaining, 0.0), 1),
                     "running": self.timer_remaining is not None and not t.paused}
        out = jsonable({
            "game": t.game,
            "title": a.title,
            "table_id": t.table_id,
            "state": t.state.value,
            "round_id": t.round_id,
            "betting_open": t.state is t.BETTING,
            "paused": t.paused,
            "incident": redaction.incident(t.incident.as_dict() if t.incident is not None else None),
            "total_bet": t.book.total(),
            "limits": a.limits(),
            "devices": devices,
            "active_faults": redaction.faults(self.active_faults),
            "bet_timer": timer,
            "instruction": self.instruction,
            "instruction_say": message_of(self.instruction),  # its message id and values, for the console's language
            "layout": a.layout(),
            "view": a.view(),
            "actions": actions,
            "result": result,
            "recovery": self.recovery,
            "held_reports": len(self.held),
            "mock": self.rig is not None,
            "journal": Path(self.journal.path).name if self.journal is not None else None,  # (not where it is)
            "studio": self.studio.status() if self.studio is not None else None,
            "on_duty": self.shift.on_duty,
            "stream_id": self.stream.stream_id,
            "seq": self.stream.last_seq,
        })
        out["bets"] = t.book.snapshot()  # plain text already: the largest part, not walked again
        # each position's bets by player (position -> player -> bet -> amount), where bets name players
        out["players"] = t.book.players_snapshot() if t.book.named else {}
        per_bet = None if self.spots else {bet: fmt(amount) for bet, amount in t.book.bet_totals().items()}
        return opentotals.table(out, self.spots, per_bet)  # (open: the totals and the count of players)

    def _book(self) -> dict[str, Any]:
        """(The table's thread) what the dealer's console shows of each player:
        the bet book by position and by player, and the round's result whole."""
        t = self.table
        result = {"round_id": t.result.round_id, **t.result.as_json()} if t.result is not None else None
        return jsonable({"round_id": t.round_id, "bets": t.book.snapshot(),
                         "players": t.book.players_snapshot() if t.book.named else {}, "result": result})

    async def book(self) -> dict[str, Any]:
        return await self.call(self._book, publish=False)

    async def snapshot(self) -> dict[str, Any]:
        return await self.call(self._snapshot, publish=False)

    async def incident_detail(self) -> dict[str, Any] | None:
        """The open incident whole, its card too: for the authenticated console only."""
        return await self.call(lambda: jsonable(self.table.incident.as_dict()) if self.table.incident else None,
                               publish=False)
