"""A served table's shared remote hand (a game whose ``RemoteView`` has a
``hand``, :class:`tablesim.games.gamespec.SharedHand`, and whose table's
rules have it): the decision timer and the remote players' decisions that
come over the bus.

- The decision timer: once the hands are dealt and a remote player has a
  decision to make, ``decision_seconds`` count down (frozen while the table
  is paused or an incident holds the round, shown on the stream as
  ``decision_timer``); at zero the table is asked ``close_decisions`` (the
  journal names the ``timer``) and every remote player who has not decided
  gets the game's default (folds).
- A decision from the bus (``tablesim.studio.bus_decisions``) is taken on the
  table's thread for the round it names only, answered once committed. Its
  ``ref`` is kept (and read back from the journal at start), so a decision
  sent again is answered ``duplicate``, also once the round is over.

Owned by a ``TableRunner`` whose table has a remote hand. What the
hand is (its position, its decisions, what a decision stakes) is the
game's: this knows it only through the hand.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections import OrderedDict
from typing import Any

from tablecore.errors import IllegalAction
from tablecore.money import fmt
from tablesim.games import registry
from tablesim.games.gamespec import SharedHand
from tablesim.server.stream import now_ts

log = logging.getLogger("tablesim.server")

#: decision refs remembered (the oldest forgotten first)
REFS_KEPT = 200_000
#: rounds whose decisions are read back from the journal at start
ROUNDS_READ = 20


def shared_hand(table: Any) -> SharedHand | None:
    """The table's shared remote hand, where its game has one and its rules take it."""
    hand = registry.spec(table.game).remote_view().hand
    return hand if hand is not None and hand.active(table) else None


class RemoteHandRunner:
    """A served table's shared remote hand, owned by its ``TableRunner``
    (``runner.remote``, None for a table without one): the decision timer
    and the refs of the decisions taken. Its state is the table thread's."""

    def __init__(self, runner, hand: SharedHand) -> None:
        self.runner = runner
        self.hand = hand
        self.remaining: float | None = None
        self._tick_at = time.monotonic()
        self._shown: int | None = None
        #: ref -> (round, player, decision, stake)
        self.refs: OrderedDict[str, tuple[str, str, str, str | None]] = OrderedDict()

    def load_refs(self) -> None:
        journal = self.runner.journal
        if journal is None:
            return
        for rid in journal.round_ids()[-ROUNDS_READ:]:
            for rec in journal.records(rid):
                if rec.kind == "event" and rec.name == "decision":
                    self._note_decision(rid, rec.data)

    def _note_decision(self, round_id: str, data: dict) -> None:
        ref = data.get("ref")
        if isinstance(ref, str):
            self.refs[ref] = (round_id, data.get("player"), data.get("decision"), data.get("stake"))
            while len(self.refs) > REFS_KEPT:
                self.refs.popitem(last=False)

    # --- the decision timer ------------------------------------------------------

    def tick(self) -> bool:
        """Count the decision timer down; True when it ran out."""
        t, hand = self.runner.table, self.hand
        now = time.monotonic()
        elapsed, self._tick_at = now - self._tick_at, now
        if t.state.value != hand.deciding or not hand.pending(t):
            self.remaining = self._shown = None
            return False
        seconds = hand.seconds(t)
        if self.remaining is None:
            self.remaining = float(seconds)
            elapsed = 0.0
        if t.paused or t.blocked:
            return False  # frozen
        self.remaining -= elapsed
        shown = max(math.ceil(self.remaining), 0)
        if shown != self._shown:
            self._shown = shown
            self.runner.stream.publish({"type": "decision_timer", "round_id": t.round_id, "remaining": shown,
                                 "seconds": seconds, "pending": len(hand.pending(t))})
        return self.remaining <= 0

    def close(self) -> None:
        t, hand = self.runner.table, self.hand
        if t.state.value == hand.deciding and hand.pending(t) and self.remaining is not None \
                and self.remaining <= 0:
            self.remaining = None
            hand.close(t)

    async def run(self) -> None:
        run = self.runner
        while True:
            try:
                if await run.call(self.tick, publish=False):
                    await run.call(self.close, actor="timer")
            except asyncio.CancelledError:
                raise
            except IllegalAction as exc:
                run.stream.publish({"type": "notice", "level": "warning", "ts": now_ts(), "text": str(exc)})
            except Exception:
                log.exception("decision timer failed")
            await asyncio.sleep(0.1)

    # --- decisions over the bus ----------------------------------------------------

    async def bus_decision(self, doc: dict) -> dict:
        return await self.runner.call(self._take_decision, doc, actor="bus")

    def _take_decision(self, doc: dict) -> dict:
        t = self.runner.table
        ref, player, decision = doc["ref"], doc["player"], doc["decision"]
        base = {"ref": ref, "round_id": doc["round"]}
        known = self.refs.get(ref)
        if known is not None:
            if known[:3] != (doc["round"], player, decision):
                return {**base, "ok": False, "error": "refused",
                        "reason": f"decision {ref} was already taken for another round, player or decision"}
            return {**base, "ok": True, "duplicate": True, "decision": decision, "stake": known[3]}
        if doc["round"] != t.round_id:
            return {**base, "ok": False, "error": "refused",
                    "reason": f"round {doc['round']} is not the table's round ({t.round_id or 'none'})"}
        try:
            self.hand.decide(t, player, decision, ref)
        except IllegalAction as exc:
            return {**base, "ok": False, "error": "refused", "reason": exc.reason}
        stake = self.hand.stake(t, player, decision)
        self.refs[ref] = (doc["round"], player, decision, None if stake is None else fmt(stake))
        return {**base, "ok": True, "decision": decision, "stake": None if stake is None else fmt(stake)}
