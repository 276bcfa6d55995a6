"""``tablesim wallet reconcile``: every round in the studio stream held
against the wallet's transactions (``tablesim.wallet.reconcile`` finds the
discrepancies; this module reads the stream and the wallet).

Only records their table signed count (the keys the studio registered):
a forged record never stands for a bet or a result. From each round's
records: ``place_bets`` (a group of bets accepted, each with its ref, i.e.
the debit's transaction id, and its player: the named player, else the
position, as for the wheel; older journals' ``bet_refs``), ``bet_withdrawn`` (a player's bet at a
position taken back: every ref of it journaled before), and the ``result``
(settled, with each player's net, or void).
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from decimal import Decimal

from tablecore import betbatch
from tablecore.money import ZERO, exact, read_amount
from tablesim.studio import natsio, signing, wire
from tablesim.studio.trust import Trust
from tablesim.wallet.client import WalletClient
from tablesim.wallet.reconcile import Bet, Report, StreamRound, reconcile, wallet_rounds


class Rounds:
    """The rounds of the stream, folded from signed records in stream order."""

    def __init__(self, trust: Trust) -> None:
        self.trust = trust
        self.rounds: dict[tuple[str, str], StreamRound] = {}
        self.left_out = 0  # messages not signed by their table (or not records)
        self._seq_of: dict[tuple[str, str, str], tuple[int, str, str]] = {}  # ref -> (record, position, stake)

    def message(self, subject: str, msg_id: str | None, sig: str | None, data: bytes) -> None:
        rec = self._signed(subject, msg_id, sig, data)
        if rec is None:
            self.left_out += 1
            return
        if not rec.round_id:
            return
        key = (rec.table_id, rec.round_id)
        rnd = self.rounds.get(key) or self.rounds.setdefault(key, StreamRound(*key))
        rnd.last_ts = max(rnd.last_ts, _ts(data))
        if rec.name == "bet_refs" or betbatch.is_batch(rec.kind, rec.name):
            self._refs(rnd, rec)
        elif rec.name == "bet_withdrawn":
            self._withdrawn(rnd, rec)
        elif rec.name == "decision" and isinstance(rec.data.get("ref"), str) and rec.data.get("stake") is not None:
            self._play(rnd, rec)
        elif rec.name == "result" and rec.data.get("status") in ("settled", "void") and rnd.status is None:
            rnd.status = rec.data["status"]
            if rnd.status == "settled":
                rnd.nets = _nets(rec.data, {b.player for b in rnd.bets.values()})

    def _signed(self, subject: str, msg_id: str | None, sig: str | None, data: bytes) -> wire.WireRecord | None:
        parts = subject.split(".")
        table = parts[1] if len(parts) == 3 else "?"
        try:
            rec = wire.decode(data)
        except ValueError:
            return None
        if (rec.table_id, rec.kind) != (table, parts[-1]) or msg_id != wire.msg_id(table, rec.seq):
            return None
        pub = self.trust.key(table)
        if pub is None or signing.verify(pub, data, sig, signing.RECORD) is not None:
            return None
        return rec

    def _withdrawn(self, rnd: StreamRound, rec: wire.WireRecord) -> None:
        """Every bet of the player at the position and stake journaled before the withdrawal."""
        owner = str(rec.data.get("player") or rec.data.get("position"))
        taken = (str(rec.data.get("position")), str(rec.data.get("bet")))
        for bet in rnd.bets.values():
            seq, position, stake = self._seq_of[(rnd.table, rnd.round_id, bet.ref)]
            if bet.player == owner and (position, stake) == taken and seq < rec.seq:
                bet.withdrawn = True

    def _play(self, rnd: StreamRound, rec: wire.WireRecord) -> None:
        """A remote player's decision that staked (a Play on a shared remote
        hand): a debit of its own, taken at the decision (its ref the
        decision's, of its stake), as the platform reads it
        (``tablesim.platform.rounds``); a fold has none."""
        ref, box = rec.data["ref"], str(rec.data.get("box"))
        try:
            value = read_amount(str(rec.data["stake"]))
        except ValueError:
            return
        if ref not in rnd.bets:
            rnd.bets[ref] = Bet(ref, str(rec.data.get("player") or box), value)
            self._seq_of[(rnd.table, rnd.round_id, ref)] = (rec.seq, box, str(rec.data.get("decision")))

    def _refs(self, rnd: StreamRound, rec: wire.WireRecord) -> None:
        # (a group of bets' one record holds its bets as the older ``bet_refs`` did its refs)
        for entry in rec.data.get("refs" if rec.name == "bet_refs" else "bets") or []:
            if isinstance(entry, list) and entry and entry[0] is None:
                continue  # (a bet with no ref: no debit to hold it against)
            if not isinstance(entry, list) or len(entry) < 4:
                continue
            ref, position, bet, amount = (str(x) for x in entry[:4])
            player = entry[4] if len(entry) > 4 and entry[4] else position
            try:
                value = read_amount(amount)
            except ValueError:
                continue
            if ref not in rnd.bets:
                rnd.bets[ref] = Bet(ref, str(player), value)
                self._seq_of[(rnd.table, rnd.round_id, ref)] = (rec.seq, position, bet)


def _ts(data: bytes) -> str:
    try:
        return str(json.loads(data)["record"].get("ts") or "")
    except (ValueError, KeyError, TypeError, AttributeError):
        return ""


def _sum(per: object) -> Decimal:
    total = ZERO
    if isinstance(per, dict):
        with exact():
            for bets in per.values():
                for value in (bets.values() if isinstance(bets, dict) else ()):
                    total += _signed(str(value))
    return total


def _signed(text: str) -> Decimal:
    """A result's amount: a loss is written with a minus (an amount read alone never is)."""
    return -read_amount(text[1:]) if text.startswith("-") else read_amount(text)


def _nets(result: dict, players: set[str]) -> dict[str, Decimal]:
    """Each player's net: their own part where the result names players,
    else their position's results (the player is the position)."""
    named = result.get("players") or {}
    results = result.get("results") or {}
    out = {}
    for player in players:
        if isinstance(named.get(player), dict):
            out[player] = _sum(named[player].get("results"))
        else:
            out[player] = _sum({player: results.get(player, {})})
    return out


def _since_text(since: datetime | None) -> str | None:
    if since is None:
        return None
    return since.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


async def read_rounds(url: str, trust: Trust) -> Rounds:
    """The stream's rounds as it holds them now."""
    from nats.js.errors import NotFoundError

    rounds = Rounds(trust)
    async with natsio.one_shot(url, "tablesim-wallet-reconcile") as nc:
        js = nc.jetstream(timeout=natsio.REQUEST_TIMEOUT)
        try:
            await js.stream_info(wire.STREAM)
        except NotFoundError:
            return rounds
        async for msg in natsio.read_messages(js, None, batch=1000):
            rounds.message(msg.subject, msg.msg_id, msg.sig, msg.data)
        return rounds


async def run(nats_url: str, wallet_url: str, secret: bytes, trust: Trust, *, since: datetime | None = None,
              grace: float = 60.0) -> tuple[Report, Rounds]:
    """The stream's rounds (those with a record since ``since``) against the wallet's transactions."""
    now = datetime.now(timezone.utc)
    rounds = await read_rounds(nats_url, trust)
    since_text = _since_text(since)
    picked = {k: r for k, r in rounds.rounds.items()
              if since is None or _after(r.last_ts, since)}
    async with WalletClient(wallet_url, secret, attempts=4, give_up_after=20.0) as wallet:
        moves = await wallet_rounds(wallet, picked, since=since_text, now=now)
    known = {table for table, _ in rounds.rounds}
    moves = {k: v for k, v in moves.items() if k[0] in known}
    for key in moves:  # a round the wallet has and the picked part of the stream not: whole from the stream
        if key not in picked and key in rounds.rounds:
            picked[key] = rounds.rounds[key]
    return reconcile(picked, moves, now=now, grace=grace), rounds


def _after(ts: str, since: datetime) -> bool:
    try:
        moment = datetime.fromisoformat(ts.replace("Z", "+00:00"))
    except ValueError:
        return True  # (a record without a readable time: checked rather than skipped)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment >= since
