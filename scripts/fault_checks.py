"""What a wallet fault run (scripts/wallet_faults.py) checks once everything
is back: the tables' journals against the wallet's transactions.

From each table's journal (read-only): every bet the table accepted with
its ref (``bet_refs``: the ref is the debit's transaction id), and each
round's result: settled with each player's net, or void. From the wallet
(its ``transactions`` call): every transaction answered ``ok``. Then, per
player, the balance the journals say (opening balance plus the nets of the
settled rounds: what the stakes took and the returns gave back) against
the wallet's balance, to the unit; per round and player, the credits (for a
settled round with bets: each bet's debit named by exactly one credit, a
player with more than one credit names being credited in parts), the void rounds' debits (each
cancelled), and every debit not cancelled that no table accepted (an
orphan)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path

from tablesim.journal.journal import Journal
from tablesim.journal.placed import REF_NAMES, refs as placed_refs

ZERO = Decimal(0)


@dataclass
class JournalRound:
    table: str
    round_id: str
    refs: dict[str, tuple[str, Decimal]] = field(default_factory=dict)  # ref -> (player, amount)
    status: str | None = None  # settled, void, or None (no result: open)
    nets: dict[str, Decimal] = field(default_factory=dict)  # player -> net of the round

    def players(self) -> set[str]:
        return {player for player, _ in self.refs.values()}


def _total(per: dict) -> Decimal:
    return sum((Decimal(v) for bets in per.values() for v in bets.values()), ZERO)


def journal_rounds(table: str, journal: Path) -> dict[str, JournalRound]:
    """Every round of ``journal`` with its refs and its result."""
    rounds: dict[str, JournalRound] = {}
    opened = Journal(journal, readonly=True)
    try:
        records = list(opened.find(names=(*REF_NAMES, "decision", "result")))
    finally:
        opened.close()
    for rec in records:
        round_id, name, doc = rec.round_id, rec.name, rec.data
        rnd = rounds.setdefault(round_id, JournalRound(table, round_id))
        if name in REF_NAMES:
            for ref, position, _bet, amount, *player in placed_refs(rec):
                rnd.refs[ref] = ((player[0] if player and player[0] else position), Decimal(amount))
        elif name == "decision":  # a remote player's Play (Fortune 3): its debit is the decision's ref
            if isinstance(doc.get("ref"), str) and doc.get("stake") is not None:
                rnd.refs[doc["ref"]] = (str(doc.get("player") or doc.get("box")), Decimal(str(doc["stake"])))
        elif doc.get("status") in ("settled", "void") and rnd.status is None:
            rnd.status = doc["status"]
            if rnd.status == "settled":
                named = doc.get("players") or {}
                for player in rnd.players():
                    per = named[player]["results"] if player in named else {
                        player: (doc.get("results") or {}).get(player, {})}
                    rnd.nets[player] = _total(per)
    return rounds


@dataclass
class Moves:
    """The wallet's ok transactions of one player's round."""

    debits: dict[str, Decimal] = field(default_factory=dict)
    cancelled: set[str] = field(default_factory=set)
    credits: list[Decimal] = field(default_factory=list)
    named: list[str] = field(default_factory=list)  # the debits the credits name (a round may be credited in parts)


def wallet_moves(transactions) -> tuple[dict, dict[str, tuple]]:
    """(table, round, player) -> Moves, and every ok debit by id -> (table, round, player)."""
    moves: dict[tuple, Moves] = defaultdict(Moves)
    debits: dict[str, tuple] = {}
    for t in transactions:
        if t.status.value != "ok":
            continue
        key = (t.table, t.round, t.player)
        if t.kind == "debit":
            moves[key].debits[t.transaction_id] = t.amount
            debits[t.transaction_id] = key
        elif t.kind == "cancel":
            moves[key].cancelled.add(t.debit)
        elif t.kind == "credit":
            moves[key].credits.append(t.amount)
            moves[key].named.extend(t.debits or ())
    return moves, debits


def check(rounds: list[JournalRound], transactions, balances: dict[str, Decimal],
          opening: dict[str, Decimal]) -> dict:
    """The figures of the run's checks (each list empty when all is well)."""
    moves, debits = wallet_moves(transactions)
    refs = {ref for rnd in rounds for ref in rnd.refs}
    expected = dict(opening)
    out: dict[str, list] = {k: [] for k in ("balance_mismatches", "credits_doubled", "credits_missing",
                                            "debits_orphaned", "void_debits_not_cancelled", "bets_without_debit",
                                            "rounds_open")}
    for rnd in rounds:
        if rnd.refs and rnd.status is None:
            out["rounds_open"].append(f"{rnd.table} {rnd.round_id}")
        for ref, (player, _) in rnd.refs.items():
            if ref not in debits:
                out["bets_without_debit"].append(f"{rnd.table} {rnd.round_id} {player} {ref}")
            elif rnd.status == "void" and ref not in moves[(rnd.table, rnd.round_id, player)].cancelled:
                out["void_debits_not_cancelled"].append(f"{rnd.table} {rnd.round_id} {player} {ref}")
        if rnd.status != "settled":
            continue
        for player in sorted(rnd.players()):
            expected[player] = expected.get(player, ZERO) + rnd.nets[player]
            got = moves[(rnd.table, rnd.round_id, player)]
            standing = {ref for ref, (who, _) in rnd.refs.items() if who == player}
            if not got.credits:
                out["credits_missing"].append(f"{rnd.table} {rnd.round_id} {player}")
            elif len(got.named) != len(set(got.named)):  # (parts name their own debits: one named twice paid twice)
                out["credits_doubled"].append(f"{rnd.table} {rnd.round_id} {player}: {len(got.credits)} credits "
                                              f"name {len(got.named)} debits, {len(set(got.named))} of them apart")
            elif not standing <= set(got.named):
                out["credits_missing"].append(f"{rnd.table} {rnd.round_id} {player}: debits "
                                              f"{sorted(standing - set(got.named))[:3]} named by no credit")
    for debit, key in debits.items():
        if debit not in refs and debit not in moves[key].cancelled:
            out["debits_orphaned"].append(f"{key[0]} {key[1]} {key[2]} {debit}")
    for player, want in sorted(expected.items()):
        if balances.get(player) != want:
            out["balance_mismatches"].append(f"{player}: the wallet holds {balances.get(player)}, "
                                             f"the journals say {want}")
    return out


async def read_wallet(url: str, secret: bytes, players: list[str], currency: str, since: datetime):
    """Every transaction since ``since`` and each player's balance, through the protocol."""
    from tablesim.wallet.client import WalletClient

    until = datetime.now(timezone.utc) + timedelta(minutes=1)
    async with WalletClient(url, secret, attempts=8, give_up_after=60.0) as wallet:
        rows = await wallet.transactions(request_id="faults-run", since=since, until=until, limit=10000)
        balances = {}
        for player in players:
            account = await wallet.balance(player, currency, request_id=f"faults-b-{player}")
            balances[player] = account.balance
    return rows, balances
