"""Reconciliation: what the tables recorded of each round held against what
the wallet's ``transactions`` hold of it.

The rounds come in as ``StreamRound`` (the bets the table accepted, each
under its ref, which is the id of the debit that paid for it; the bets
withdrawn; the round's end: settled with each player's net, or void), read
from wherever the tables' records are (``tablesim.studio.reconcile`` reads
the studio stream). This module knows only the wallet protocol: a debit is
its transaction id, a credit names the debits it closes, a cancel names
the one debit it returns. Only transactions the wallet answered ``ok``
moved money; the others are ignored.

What is found, one ``Finding`` each:

- ``credit_missing``: a settled round, a player with standing bets, no credit;
- ``credit_doubled``: a debit named by more than one credit (a round may be credited in
  parts, each naming debits of its own);
- ``credit_wrong_amount``: credits that do not add up to the stakes plus the net;
- ``credit_wrong_debits``: credits that do not name, together, exactly the standing debits;
- ``credit_without_bet``: a credit of a player who has no standing bet in the round;
- ``credit_in_void_round``: a void round credited;
- ``debit_without_bet``: a debit, neither cancelled nor a bet the table accepted
  (in a closed round; in a round the tables never had once it is ``grace`` old);
- ``debit_wrong_amount``: a bet's debit of another player or amount than the bet;
- ``bet_without_debit``: a bet the table accepted whose ref no debit has;
- ``void_debit_not_cancelled``: a void round's bet whose debit stands;
- ``withdrawn_debit_not_cancelled``: a withdrawn bet whose debit stands.

A round still open (no result yet) is only checked for bets without
debits and debits of the wrong amount: its credits are not due.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta, timezone
from decimal import Decimal

from tablecore.money import ZERO, exact, fmt
from tablesim.wallet.client import Transaction, WalletClient
from tablesim.wallet.protocol import Status

KINDS = ("credit_missing", "credit_doubled", "credit_wrong_amount", "credit_wrong_debits", "credit_without_bet",
         "credit_in_void_round", "debit_without_bet", "debit_wrong_amount", "bet_without_debit",
         "void_debit_not_cancelled", "withdrawn_debit_not_cancelled")
#: the earliest time a wallet is asked about when no ``since`` is given
EPOCH = "2000-01-01T00:00:00.000Z"


@dataclass
class Bet:
    ref: str  # the id of the debit that paid for it
    player: str
    amount: Decimal
    withdrawn: bool = False


@dataclass
class StreamRound:
    table: str
    round_id: str
    status: str | None = None  # settled | void | None (open)
    bets: dict[str, Bet] = field(default_factory=dict)
    #: a settled round's net per player (the winnings, or minus the stakes lost)
    nets: dict[str, Decimal] = field(default_factory=dict)
    last_ts: str = ""  # the time of the round's last record (for ``since``)

    def standing(self, player: str) -> list[Bet]:
        return [b for b in self.bets.values() if b.player == player and not b.withdrawn]


@dataclass(frozen=True)
class Finding:
    kind: str
    table: str
    round: str
    player: str | None
    transaction_id: str | None
    text: str

    def line(self) -> str:
        who = f" player {self.player}" if self.player else ""
        return f"{self.kind}: table {self.table} round {self.round}{who}: {self.text}"


class _Moves:
    """A round's transactions that moved money (status ok), by kind."""

    def __init__(self, rows: list[Transaction]) -> None:
        ok = [r for r in rows if r.status is Status.OK]
        self.debits = {r.transaction_id: r for r in ok if r.kind == "debit"}
        self.cancelled = {r.debit for r in ok if r.kind == "cancel"}
        self.credits: dict[str, list[Transaction]] = defaultdict(list)
        for r in ok:
            if r.kind == "credit":
                self.credits[r.player].append(r)

    def standing(self, debit: str) -> bool:
        return debit in self.debits and debit not in self.cancelled


def check_round(sr: StreamRound | None, table: str, round_id: str, rows: list[Transaction], *,
                now: datetime, grace: float) -> list[Finding]:
    """Every discrepancy of one round."""
    moves = _Moves(rows)
    found: list[Finding] = []

    def add_finding(kind: str, player: str | None, tx: str | None, text: str) -> None:
        found.append(Finding(kind, table, round_id, player, tx, text))

    bets = sr.bets if sr is not None else {}
    status = sr.status if sr is not None else None
    _bets_and_debits(bets, moves, add_finding)
    for debit, row in sorted(moves.debits.items()):
        if debit in bets or debit in moves.cancelled:
            continue
        if status is not None or (sr is None and _age(row.at, now) > grace):
            where = "a round the tables never had" if sr is None else f"a {status} round"
            add_finding("debit_without_bet", row.player, debit,
                        f"debit {debit} of {fmt(row.amount)} in {where} is no bet the table accepted and is not "
                        "cancelled")
    if status == "void":
        _void(bets, moves, add_finding)
    elif status == "settled":
        _settled(sr, moves, add_finding)
    return found


def _bets_and_debits(bets: dict[str, Bet], moves: _Moves, add_finding) -> None:
    for ref, bet in sorted(bets.items()):
        row = moves.debits.get(ref)
        if row is None:
            add_finding("bet_without_debit", bet.player, ref,
                        f"the table accepted bet {ref} of {fmt(bet.amount)} and no debit {ref} was made")
        elif (row.player, row.amount) != (bet.player, bet.amount):
            add_finding("debit_wrong_amount", bet.player, ref,
                        f"debit {ref} took {fmt(row.amount)} from {row.player}, the bet is {fmt(bet.amount)} "
                        f"of {bet.player}")
        if bet.withdrawn and moves.standing(ref):
            add_finding("withdrawn_debit_not_cancelled", bet.player, ref,
                        f"bet {ref} was withdrawn and its debit of {fmt(row.amount)} is not cancelled")


def _void(bets: dict[str, Bet], moves: _Moves, add_finding) -> None:
    for ref, bet in sorted(bets.items()):
        if not bet.withdrawn and moves.standing(ref):
            add_finding("void_debit_not_cancelled", bet.player, ref,
                        f"the round is void and debit {ref} of {fmt(moves.debits[ref].amount)} is not cancelled")
    for player, credits in sorted(moves.credits.items()):
        for c in credits:
            add_finding("credit_in_void_round", player, c.transaction_id,
                        f"credit {c.transaction_id} of {fmt(c.amount)} in a void round (its debits are cancelled, "
                        "never credited)")


def _settled(sr: StreamRound, moves: _Moves, add_finding) -> None:
    players = sorted({b.player for b in sr.bets.values()} | set(moves.credits))
    for player in players:
        standing = sr.standing(player)
        credits = moves.credits.get(player, [])
        if not standing:
            for c in credits:
                add_finding("credit_without_bet", player, c.transaction_id,
                            f"credit {c.transaction_id} of {fmt(c.amount)}, and the player has no standing bet")
            continue
        if any(b.ref not in moves.debits for b in standing):
            continue  # (a bet without its debit, found above: what the credit should be cannot be told)
        expected = _total([*(b.amount for b in standing), sr.nets.get(player, ZERO)])
        if not credits:
            add_finding("credit_missing", player, None,
                        f"no credit of the round (due: {fmt(expected)} for debits "
                        f"{', '.join(sorted(b.ref for b in standing))})")
            continue
        # (a round may be credited in parts, each naming its own debits: the
        # parts together pay the return and name each standing debit once)
        named: dict[str, str] = {}
        for c in credits:
            for debit in c.debits or ():
                if debit in named:
                    add_finding("credit_doubled", player, c.transaction_id,
                                f"debit {debit} is named by credit {named[debit]} and again by {c.transaction_id} "
                                f"({len(credits)} credits paying {fmt(_total(x.amount for x in credits))}; due "
                                f"once: {fmt(expected)})")
                    break
                named[debit] = c.transaction_id
        first, paid = credits[0], _total(c.amount for c in credits)
        if paid != expected:
            add_finding("credit_wrong_amount", player, first.transaction_id,
                        f"credit {' + '.join(c.transaction_id for c in credits)} paid {fmt(paid)}, due "
                        f"{fmt(expected)} (stakes {fmt(_total(b.amount for b in standing))}, net "
                        f"{fmt(sr.nets.get(player, ZERO))})")
        due = {b.ref for b in standing}
        if set(named) != due:
            add_finding("credit_wrong_debits", player, first.transaction_id,
                        f"the credits name debits {', '.join(sorted(named)) or 'none'}, the standing bets are "
                        f"{', '.join(sorted(due))}")


def _total(amounts) -> Decimal:
    with exact():  # (the trapping context: an amount is never rounded)
        return sum(amounts, ZERO)


def _age(at: str, now: datetime) -> float:
    try:
        then = datetime.strptime(at, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)
    except ValueError:
        return float("inf")
    return (now - then).total_seconds()


def time_text(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


async def wallet_rounds(wallet: WalletClient, rounds: dict[tuple[str, str], StreamRound], *, since: str | None,
                        now: datetime) -> dict[tuple[str, str], list[Transaction]]:
    """The wallet's transactions of every round to check: the rounds it has
    any transaction of since ``since`` (all time when None) on the tables
    of ``rounds``, and, with a ``since``, every round of ``rounds`` asked
    for by round (so a round begun before ``since`` is whole)."""
    tables = {table for table, _ in rounds}
    until = time_text(now + timedelta(minutes=1))
    listed = await wallet.transactions(request_id=f"reconcile-{time_text(now)}", since=since or EPOCH, until=until)
    by_round: dict[tuple[str, str], list[Transaction]] = defaultdict(list)
    for row in listed:
        if row.table in tables:
            by_round[(row.table, row.round)].append(row)
    if since is not None:
        for n, (table, round_id) in enumerate(sorted(set(rounds) | set(by_round))):
            by_round[(table, round_id)] = await wallet.transactions(
                request_id=f"reconcile-{n}-{time_text(now)}", table=table, round=round_id)
    return dict(by_round)


@dataclass
class Report:
    rounds: int
    settled: int
    void: int
    open: int
    transactions: int
    findings: list[Finding]

    @property
    def clean(self) -> bool:
        return not self.findings

    def as_json(self) -> dict:
        counts = {kind: sum(f.kind == kind for f in self.findings) for kind in KINDS}
        return {"clean": self.clean, "rounds": self.rounds, "settled": self.settled, "void": self.void,
                "open": self.open, "transactions": self.transactions, "counts": counts,
                "findings": [asdict(f) for f in self.findings]}


def reconcile(rounds: dict[tuple[str, str], StreamRound], moves: dict[tuple[str, str], list[Transaction]], *,
              now: datetime, grace: float) -> Report:
    findings: list[Finding] = []
    for key in sorted(set(rounds) | set(moves)):
        findings += check_round(rounds.get(key), *key, moves.get(key, []), now=now, grace=grace)
    statuses = [r.status for r in rounds.values()]
    return Report(len(set(rounds) | set(moves)), statuses.count("settled"), statuses.count("void"),
                  statuses.count(None), sum(len(v) for v in moves.values()), findings)
