"""The table's view (what ``GET /api/table``, the hello and the snapshots
show), rebuilt after each command, at most every ``SNAPSHOT_EVERY`` while
bets stream in; what the bets' coalesced message says of the book."""

from __future__ import annotations

import asyncio
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


class TableView:
    """The served table's view, owned by its ``TableRunner`` (``runner.view``):
    the last one built (``cache``) and when the next is due. Built on the
    table's thread only."""

    def __init__(self, runner) -> None:
        self.runner = runner
        self.cache: dict[str, Any] = {}
        self._at = 0.0
        self._every = SNAPSHOT_EVERY
        self._due = False  # a lazy refresh is scheduled

    def bet_spots(self, pending: list[dict]) -> dict | None:
        """(The table's thread) after bets: the totals now on the positions they
        changed, from the table's book (a position's whole box), and the
        table's total; what the consoles' coalesced ``bets`` message shows.
        Where the positions are players, the totals per bet of them all."""
        book = self.runner.table.book
        if not self.runner.spots:
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

    def after_command(self, lazy: bool) -> None:
        """(The table's thread) a command's events went out: the view now, or
        (``lazy``: bet groups) within ``SNAPSHOT_EVERY`` of the last one."""
        if lazy and time.monotonic() - self._at < self._every:
            self.refresh_later()
        else:
            self.refresh(True)

    def refresh_later(self) -> None:
        """(The table's thread) rebuild the snapshot once ``SNAPSHOT_EVERY`` is up."""
        run = self.runner
        if self._due or run.loop is None:
            return
        self._due = True

        def due() -> None:
            if run.executor is not None:
                # (a view rebuilt gives the mock dealer's hands nothing to do: the resting pump sleeps on)
                asyncio.ensure_future(run.call(self._refresh_due, publish=False, pokes=False))

        run.loop.call_soon_threadsafe(run.loop.call_later, self._every, due)

    def _refresh_due(self) -> None:
        if self._due:
            self.refresh(True)

    def refresh(self, announce: bool) -> None:
        start = time.monotonic()
        self.cache = self.build()
        self._at, self._due = time.monotonic(), False
        # A big table (thousands of bets) takes long to show: show it less often.
        self._every = max(SNAPSHOT_EVERY, 20 * (self._at - start))
        if announce:
            stream = self.runner.stream
            stream.publish_all(snapshot_messages(self.cache, stream.last_seq))

    def _actions(self) -> list[dict[str, Any]]:
        """The console's buttons: the game's actions and the operator's, enabled as the table allows."""
        t = self.runner.table
        a = self.runner.adapter
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

    def build(self) -> dict[str, Any]:
        run = self.runner
        t = run.table
        a = run.adapter
        actions = self._actions()
        devices = [
            {"name": d.name, "kind": d.kind, "link_up": d.health.link_up, "ok": d.health.ok,
             "faults": redaction.device_faults({str(k): v for k, v in d.health.faults.items()})}
            for d in t.devices
        ]
        result = None
        if t.result is not None:
            result = {"round_id": t.result.round_id, **t.result.as_json()}
        timer = None
        if run.bet_seconds:
            remaining = run.timer.remaining
            timer = {"seconds": run.bet_seconds,
                     "remaining": None if remaining is None else round(max(remaining, 0.0), 1),
                     "running": remaining is not None and not t.paused}
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
            "active_faults": redaction.faults(run.active_faults),
            "bet_timer": timer,
            "instruction": run.instruction,
            "instruction_say": message_of(run.instruction),  # its message id and values, for the console's language
            "layout": a.layout(),
            "view": a.view(),
            "actions": actions,
            "result": result,
            "recovery": run.recovery,
            "held_reports": len(run.feed.held),
            "mock": run.rig is not None,
            "journal": Path(run.journal.path).name if run.journal is not None else None,  # (not where it is)
            "studio": run.studio.status() if run.studio is not None else None,
            "on_duty": run.shift.on_duty,
            "stream_id": run.stream.stream_id,
            "seq": run.stream.last_seq,
        })
        out["bets"] = t.book.snapshot()  # plain text already: the largest part, not walked again
        # each position's bets by player (position -> player -> bet -> amount), where bets name players
        out["players"] = t.book.players_snapshot() if t.book.named else {}
        per_bet = None if run.spots else {bet: fmt(amount) for bet, amount in t.book.bet_totals().items()}
        return opentotals.table(out, run.spots, per_bet)  # (open: the totals and the count of players)

    def book(self) -> dict[str, Any]:
        """(The table's thread) what the dealer's console shows of each player:
        the bet book by position and by player, and the round's result whole."""
        t = self.runner.table
        result = {"round_id": t.result.round_id, **t.result.as_json()} if t.result is not None else None
        return jsonable({"round_id": t.round_id, "bets": t.book.snapshot(),
                         "players": t.book.players_snapshot() if t.book.named else {}, "result": result})
