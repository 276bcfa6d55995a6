"""A remote player's decision on a table's shared remote hand
(``Platform.decide``, ``POST /api/decisions``), doc
``{"table": ID, "round": ROUND_ID, "decision": "play" | "fold"}``. The hand
is the game's (its ``RemoteView.hand``: its position, the state its players
decide in, its decisions, what a decision stakes); a play below is its
decision that stakes more, a fold one that takes no money.

1. Checked before anything is debited: the table is offered, the stream
   says its round is that round and the players decide, and the player has
   the bet a play stakes again (an Ante) on the remote hand in it (the
   platform's own bets, as the table accepted them): the Play stake is that bet.
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
from tablesim.games import registry
from tablesim.games.gamespec import SharedHand
from tablesim.platform import ids
from tablesim.platform.betdesk import BUS_TRIES, Answer, Desk, refused
from tablesim.platform.intents import Intent
from tablesim.platform.sessions import Session
from tablesim.platform.tables import game_of
from tablesim.studio import wire
from tablesim.wallet.client import WalletError

log = logging.getLogger("tablesim.platform")

FIELDS = ("table", "round", "decision")


class Decisions:
    def __init__(self, desk: Desk, bus_timeout: float = 10.0) -> None:
        self.desk = desk
        self.bus_timeout = bus_timeout
        self.counts = {"played": 0, "folded": 0, "folded_by_wallet": 0, "refused_by_table": 0, "unknown": 0}

    def check(self, session: Session, doc: dict) -> tuple[str, str, str, Decimal, SharedHand] | Answer:
        """(table, round, decision, the player's Ante, the table's hand), or the refusal."""
        unknown = sorted(set(doc) - set(FIELDS))
        if unknown:
            return refused(400, "bad_input", f"{unknown[0]}: not a field of a decision (table, round, decision)")
        table, round_id, decision = doc.get("table"), doc.get("round"), doc.get("decision")
        offer = self.desk.offers.get(table) if isinstance(table, str) else None
        if offer is None:
            return refused(404, "unknown_table", f"table: {str(table)[:64]!r} is not a table of this platform")
        game = game_of(offer)
        hand = registry.spec(game).remote_view().hand if game is not None else None
        if hand is not None and decision not in hand.decisions:
            return refused(400, "bad_input", f"decision: {str(decision)[:20]!r} is not {' or '.join(hand.decisions)}")
        if not isinstance(round_id, str) or not 1 <= len(round_id) <= 100:
            return refused(400, "bad_input", "round: the round you decide in (1 to 100 characters)")
        t = self.desk.rounds.tables.get(table)
        if hand is None or t is None or t.round_id != round_id or t.state != hand.deciding:
            now = "not heard from" if t is None else f"round {t.round_id or '-'} is {t.state or 'idle'}"
            return refused(409, "not_deciding", f"table {table} takes no decision for round {round_id} ({now})")
        bet = _staked(hand)
        ante = self._ante(table, round_id, session.player, hand.position, bet)
        if ante is None:
            return refused(409, "no_bet", f"you have no {bet.title() or 'bet'} on the remote hand in round {round_id}: "
                           "no decision to make")
        return table, round_id, decision, ante, hand

    def _ante(self, table: str, round_id: str, player: str, position: str, bet: str) -> Decimal | None:
        rnd = self.desk.rounds.rounds.get((table, round_id))
        if rnd is None:
            return None
        found = [r.amount for r in rnd.of(player)
                 if r.position == position and (r.bet == bet or not bet) and not r.withdrawn]
        return functools.reduce(add, found, ZERO) if found else None

    async def decide(self, session: Session, doc: dict) -> Answer:
        checked = self.check(session, doc)
        if isinstance(checked, Answer):
            return checked
        table, round_id, decision, ante, hand = checked
        if decision not in hand.stakes:  # (a fold: no money)
            return await self._fold(session, table, round_id, decision, why=None)
        desk = self.desk
        # (its intent's kind is "play" whatever the decision's name: the intent log's word for a decision's debit)
        it = Intent(ids.new_debit(), "play", session.player, session.currency, ante, table, round_id, hand.position,
                    decision, "debiting")
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
            return await self._fold(session, table, round_id, hand.default,
                                    why=(debit.status.value, why, debit.balance))
        return await self._play(it, debit.balance)

    async def _play(self, it: Intent, balance: Decimal | None) -> Answer:
        reply = await self._send(it.table, {"v": 1, "ref": it.debit, "round": it.round, "player": it.player,
                                            "decision": it.bet})
        if reply is None:
            self.counts["unknown"] += 1
            return refused(503, "table_unavailable", f"table {it.table} did not answer: if your Play does not "
                           "stand, its stake is returned when the round closes", debit=it.debit)
        if reply.get("ok"):
            self.counts["played"] += 1
            self.desk.intents.note(it.debit, "placed")  # (not awaited: see Intents.note)
            return Answer(200, {"ok": True, "status": "played", "decision": it.bet, "table": it.table,
                                "round": it.round, "debit": it.debit, "stake": fmt(it.amount),
                                "balance": _text(balance)})
        self.counts["refused_by_table"] += 1
        reason = str(reply.get("reason") or reply.get("detail") or "refused by the table")
        cancelled = await self.desk.cancel(it, why=f"refused by the table: {reason}")
        answer = refused(409, "refused_by_table", reason)
        if cancelled is not None:
            answer.body["balance"] = _text(cancelled.balance)
        return answer

    async def _fold(self, session: Session, table: str, round_id: str, decision: str, why: tuple | None) -> Answer:
        """A fold, a decision that takes no money (asked, or the hand's default
        when the wallet refused the Play): sent to the table."""
        ref = "f-" + uuid.uuid4().hex
        reply = await self._send(table, {"v": 1, "ref": ref, "round": round_id, "player": session.player,
                                         "decision": decision})
        if why is not None:
            status, message, balance = why
            stood = bool(reply and reply.get("ok"))
            return refused(409, status, f"{message}: your Play was not taken, you fold"
                           + ("" if stood else " (when the decision timer runs out)"),
                           decision=decision, balance=_text(balance))
        if reply is None:
            return refused(503, "table_unavailable", f"table {table} did not answer: if your fold does not "
                           "reach it, you fold when the decision timer runs out")
        if not reply.get("ok"):
            return refused(409, "refused_by_table", str(reply.get("reason") or reply.get("detail")))
        self.counts["folded"] += 1
        return Answer(200, {"ok": True, "status": "folded", "decision": decision, "table": table, "round": round_id})

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


def _staked(hand: SharedHand) -> str:
    """The player's bet on the hand that a decision stakes again (the Ante):
    a player without it has no decision to make. A hand whose decisions
    stake nothing asks for any bet on the hand."""
    return next(iter(hand.stakes.values()), "")
