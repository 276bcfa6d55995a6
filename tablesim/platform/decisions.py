"""A remote player's Fortune 3 decision on the shared remote hand
(``Platform.decide``, ``POST /api/decisions``), doc
``{"table": ID, "round": ROUND_ID, "decision": "play" | "fold"}``.

1. Checked before anything is debited: the table is offered, the stream
   says its round is that round and the players decide, and the player has
   an Ante on the remote hand in it (the platform's own bets, as the table
   accepted them): the Play stake is that Ante (Art. 9(1)).
2. A play is a second debit, at the decision, through the bets' own pieces
   (``bets``: the intent log, the wallet client, the cancel): written to the
   intent log (kind ``play``), debited, then sent to the table over the bus
   (``tablesim.<table>.decisions``) with the debit's id as its ref.
3. The wallet refuses the Play (insufficient funds, a limit): the player
   folds (the fold is sent to the table) and is told why. The table refuses
   the decision (the timer ran out, a decision already taken): the debit is
   cancelled and the player gets the table's reason. No answer from the
   table: the ref is sent again (a ref the table holds is answered
   ``duplicate``); still none, the debit is left to the sweep, which decides
   it from the stream once the round closes (the ref is in the round's
   ``decision`` record, or it is cancelled).
4. A fold takes no money: it is sent with a ref of its own.

The round's one credit per player names the Ante's debit and the Play's
(``returns``: the ``decision`` record's ref and stake count as the player's).
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import uuid
from decimal import Decimal

import nats

from tablecore.money import ZERO, add, fmt
from tablesim.platform import ids
from tablesim.platform.betdesk import BUS_TRIES, Answer, Desk, refused
from tablesim.platform.intents import Intent
from tablesim.platform.sessions import Session
from tablesim.studio import wire
from tablesim.wallet.client import WalletError

log = logging.getLogger("tablesim.platform")

#: the remote hand's position at the table (tablesim.games.fortune3.profile.REMOTE)
REMOTE = "remote"
#: the table's state while its players decide
DECIDING = "decisions"
FIELDS = ("table", "round", "decision")


class Decisions:
    def __init__(self, desk: Desk, bus_timeout: float = 10.0) -> None:
        self.desk = desk
        self.bus_timeout = bus_timeout
        self.counts = {"played": 0, "folded": 0, "folded_by_wallet": 0, "refused_by_table": 0, "unknown": 0}

    def check(self, session: Session, doc: dict) -> tuple[str, str, str, Decimal] | Answer:
        """(table, round, decision, the player's Ante), or the refusal."""
        unknown = sorted(set(doc) - set(FIELDS))
        if unknown:
            return refused(400, "bad_input", f"{unknown[0]}: not a field of a decision (table, round, decision)")
        table, round_id, decision = doc.get("table"), doc.get("round"), doc.get("decision")
        offer = self.desk.offers.get(table) if isinstance(table, str) else None
        if offer is None:
            return refused(404, "unknown_table", f"table: {str(table)[:64]!r} is not a table of this platform")
        if decision not in ("play", "fold"):
            return refused(400, "bad_input", f"decision: {str(decision)[:20]!r} is not play or fold")
        if not isinstance(round_id, str) or not 1 <= len(round_id) <= 100:
            return refused(400, "bad_input", "round: the round you decide in (1 to 100 characters)")
        t = self.desk.rounds.tables.get(table)
        if t is None or t.round_id != round_id or t.state != DECIDING:
            now = "not heard from" if t is None else f"round {t.round_id or '-'} is {t.state or 'idle'}"
            return refused(409, "not_deciding", f"table {table} takes no decision for round {round_id} ({now})")
        ante = self._ante(table, round_id, session.player)
        if ante is None:
            return refused(409, "no_bet", f"you have no Ante on the remote hand in round {round_id}: "
                           "no decision to make")
        return table, round_id, decision, ante

    def _ante(self, table: str, round_id: str, player: str) -> Decimal | None:
        rnd = self.desk.rounds.rounds.get((table, round_id))
        if rnd is None:
            return None
        found = [r.amount for r in rnd.of(player) if (r.position, r.bet) == (REMOTE, "ante") and not r.withdrawn]
        return functools.reduce(add, found, ZERO) if found else None

    async def decide(self, session: Session, doc: dict) -> Answer:
        checked = self.check(session, doc)
        if isinstance(checked, Answer):
            return checked
        table, round_id, decision, ante = checked
        if decision == "fold":
            return await self._fold(session, table, round_id, why=None)
        desk = self.desk
        it = Intent(ids.new_debit(), "play", session.player, session.currency, ante, table, round_id, REMOTE,
                    "play", "debiting")
        await desk.intents.add(it)
        try:
            debit = await desk.wallet.debit(it.debit, player=it.player, currency=it.currency, amount=ante,
                                            table=table, round=round_id)
        except WalletError as exc:
            self.counts["unknown"] += 1
            cancelled = await desk.cancel(it, why=f"no answer to the Play's debit: {exc}")
            return refused(503, "wallet_unavailable", "the wallet did not answer: your Play was not taken "
                           "(decide again before the timer runs out, or you fold)"
                           + ("" if cancelled else " (its cancel is being retried)"))
        if not debit.ok:  # the player folds, told why
            await desk.intents.move(it.debit, "refused", debit.status.value)
            self.counts["folded_by_wallet"] += 1
            why = debit.message or debit.status.value
            return await self._fold(session, table, round_id, why=(debit.status.value, why, debit.balance))
        return await self._play(it, debit.balance)

    async def _play(self, it: Intent, balance: Decimal | None) -> Answer:
        reply = await self._send(it.table, {"v": 1, "ref": it.debit, "round": it.round, "player": it.player,
                                            "decision": "play"})
        if reply is None:
            self.counts["unknown"] += 1
            return refused(503, "table_unavailable", f"table {it.table} did not answer: if your Play does not "
                           "stand, its stake is returned when the round closes", debit=it.debit)
        if reply.get("ok"):
            self.counts["played"] += 1
            self.desk.intents.note(it.debit, "placed")  # (not awaited: see Intents.note)
            return Answer(200, {"ok": True, "status": "played", "decision": "play", "table": it.table,
                                "round": it.round, "debit": it.debit, "stake": fmt(it.amount),
                                "balance": _text(balance)})
        self.counts["refused_by_table"] += 1
        reason = str(reply.get("reason") or reply.get("detail") or "refused by the table")
        cancelled = await self.desk.cancel(it, why=f"refused by the table: {reason}")
        answer = refused(409, "refused_by_table", reason)
        if cancelled is not None:
            answer.body["balance"] = _text(cancelled.balance)
        return answer

    async def _fold(self, session: Session, table: str, round_id: str, why: tuple | None) -> Answer:
        """A fold (asked, or the wallet refused the Play): sent to the table, no money."""
        ref = "f-" + uuid.uuid4().hex
        reply = await self._send(table, {"v": 1, "ref": ref, "round": round_id, "player": session.player,
                                         "decision": "fold"})
        if why is not None:
            status, message, balance = why
            stood = bool(reply and reply.get("ok"))
            return refused(409, status, f"{message}: your Play was not taken, you fold"
                           + ("" if stood else " (when the decision timer runs out)"),
                           decision="fold", balance=_text(balance))
        if reply is None:
            return refused(503, "table_unavailable", f"table {table} did not answer: if your fold does not "
                           "reach it, you fold when the decision timer runs out")
        if not reply.get("ok"):
            return refused(409, "refused_by_table", str(reply.get("reason") or reply.get("detail")))
        self.counts["folded"] += 1
        return Answer(200, {"ok": True, "status": "folded", "decision": "fold", "table": table, "round": round_id})

    async def _send(self, table: str, request: dict) -> dict | None:
        data = json.dumps(request, separators=(",", ":")).encode()
        for _ in range(BUS_TRIES):
            try:
                msg = await self.desk.nc_source().request(wire.decisions_subject(table), data,
                                                          timeout=self.bus_timeout)
                reply = json.loads(msg.data)
                if isinstance(reply, dict):
                    return reply
            except (nats.errors.Error, asyncio.TimeoutError, ValueError, AttributeError) as exc:
                log.info("platform: decision to %s: %s", table, f"{type(exc).__name__}: {exc}")
                await asyncio.sleep(0.2)
        return None


def _text(amount: Decimal | None) -> str | None:
    return None if amount is None else format(amount, "f")

