"""Remote players' decisions over the bus: request/reply on
``tablesim.<table_id>.decisions`` (a table with a shared remote hand: its
game's ``SharedHand``), shaped like the bets (``bus_bets``)::

    {"v": 1, "ref": "d7-000123", "round": "F3-...-0042", "player": "ann", "decision": "play"}

answered once the decision is committed to the journal::

    {"v": 1, "ok": true, "round_id": "...", "ref": "d7-000123", "decision": "play", "stake": "25"}

``stake`` is what the decision staked (e.g. a Play, the player's Ante
again), for a decision that stakes. ``decision`` is one of the hand's
``decisions``. ``ref`` is
required: the platform's id for the decision (its Play debit), journaled
with it, so a retry is answered ``duplicate`` and never taken twice. A
decision that does not fit (another round, a player with no Ante on the
hand, after the decision timer, twice) is refused with the table's
one-line reason (``error: refused``); bad input is ``error: bad_input``.
Nothing changes at the table for either.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any, Awaitable, Callable

from tablecore.errors import InputError
from tablesim.studio import wire

log = logging.getLogger("tablesim.studio")

VERSION = 1
MAX_BODY = 4096
FIELDS = {"v", "ref", "round", "player", "decision"}

#: takes a checked decision ({ref, round, player, decision}) at the table; its answer
Decide = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


def _text(doc: dict, key: str, most: int, what: str) -> str:
    value = doc.get(key)
    if not isinstance(value, str) or not 1 <= len(value) <= most or not value.isprintable() \
            or value != value.strip():
        raise InputError(f"{key}: required, 1 to {most} printable characters ({what})")
    return value


def parse_decision(body: bytes, decisions: tuple[str, ...]) -> dict[str, Any]:
    """The checked decision, one of ``decisions``; InputError naming the field otherwise."""
    if len(body) > MAX_BODY:
        raise InputError(f"request over {MAX_BODY} bytes")
    try:
        doc = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise InputError("the request is not JSON") from None
    if not isinstance(doc, dict):
        raise InputError("the request is a decision object (ref, round, player, decision)")
    if type(doc.get("v", VERSION)) is not int or doc.get("v", VERSION) != VERSION:
        raise InputError(f"v: version {doc.get('v')!r} is not understood: this table takes version {VERSION}")
    unknown = sorted(set(doc) - FIELDS)
    if unknown:
        raise InputError(f"{unknown[0]}: unknown field")
    out = {"ref": _text(doc, "ref", 80, "the decision's idempotency key"),
           "round": _text(doc, "round", 100, "the round the decision is for"),
           "player": _text(doc, "player", 40, "the remote player who decides")}
    if doc.get("decision") not in decisions:
        raise InputError(f"decision: {str(doc.get('decision'))[:20]!r} is not {' or '.join(decisions)}")
    out["decision"] = doc["decision"]
    return out


class BusDecisions:
    """Answers the decision requests of one table (its shared hand takes
    ``decisions``); ``decide`` runs on ``table_loop``."""

    def __init__(self, table_id: str, decide: Decide, table_loop: asyncio.AbstractEventLoop,
                 decisions: tuple[str, ...]) -> None:
        self.table_id = table_id
        self.decisions = decisions
        self.decide = decide
        self.table_loop = table_loop

    async def attach(self, nc) -> None:
        """A studio-link hook (as the bets: a queue group, answered once)."""
        await nc.subscribe(wire.decisions_subject(self.table_id), queue=f"tablesim-{self.table_id}",
                           cb=self._on_request)

    async def _on_request(self, msg) -> None:
        if not msg.reply:
            return  # nobody could learn the outcome: never taken
        try:
            reply = await self.answer(msg.data)
        except Exception as exc:  # the journal failed: nothing stands
            log.exception("bus decisions failed")
            reply = {"v": 1, "ok": False, "error": "failed", "detail": f"the table could not commit it: {exc}"}
        try:
            await msg.respond(wire.canonical(reply))
        except Exception as exc:  # a retry with the same ref is safe
            log.warning("bus decisions: reply lost: %s", exc)

    async def answer(self, body: bytes) -> dict[str, Any]:
        try:
            doc = parse_decision(body, self.decisions)
        except InputError as exc:
            return {"v": 1, "ok": False, "error": "bad_input", "detail": str(exc)}
        future = asyncio.run_coroutine_threadsafe(self.decide(doc), self.table_loop)
        return {"v": 1, **await asyncio.wrap_future(future)}
