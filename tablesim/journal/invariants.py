"""The promises a journal must keep, checked after any number of crashes.

- the audit chain verifies;
- every round has at most one result, and every round but possibly the
  last has exactly one;
- every bet accepted (placed and not withdrawn while betting was open) is
  settled (it appears in the round's results) or returned (the round's void
  lists it, with any stake made on it during the round, such as a play),
  exactly once.
- where a settled result records its stakes at risk, every bet accepted is
  among them at its amount, and every stake beyond the bets (a play) is
  settled.
"""

from __future__ import annotations

from collections import Counter
from decimal import Decimal

from tablecore import betbatch
from tablesim.journal.audit import verify
from tablesim.journal.journal import Journal

#: result keys that settle a stake of another name (fortune3's play and ante
#: bonus ride on the ante)
SETTLED_BY = {"play": "ante", "ante_bonus": "ante"}


def check(journal: Journal, *, allow_open_last: bool = True) -> list[str]:
    problems: list[str] = []
    audit = verify(journal)
    if not audit.ok:
        problems.append(f"audit chain broken at record {audit.first_bad}: {audit.reason}")
    accepted: dict[str, dict[tuple[str, str], Decimal]] = {}
    results: Counter[str] = Counter()
    result_data: dict[str, dict] = {}
    for rec in journal.records():
        if betbatch.is_batch(rec.kind, rec.name):  # a group of bets (older journals: a bet event each)
            book = accepted.setdefault(rec.round_id, {})
            for bet in betbatch.bets_of(rec.data):
                key = (bet["position"], bet["bet"])
                book[key] = book.get(key, Decimal(0)) + Decimal(bet["amount"])
            continue
        if rec.kind != "event":
            continue
        rid = rec.round_id
        if rec.name == "bet":
            key = (rec.data["position"], rec.data["bet"])
            book = accepted.setdefault(rid, {})
            book[key] = book.get(key, Decimal(0)) + Decimal(rec.data["amount"])
        elif rec.name == "bet_withdrawn":
            accepted.setdefault(rid, {}).pop((rec.data["position"], rec.data["bet"]), None)
        elif rec.name == "result":
            results[rid] += 1
            result_data[rid] = rec.data
        elif rec.name == "void":
            result_data.setdefault(f"{rid}#void", rec.data)
    rounds = journal.round_ids()
    for i, rid in enumerate(rounds):
        n = results[rid]
        last = i == len(rounds) - 1
        if n > 1:
            problems.append(f"round {rid} has {n} results (settled twice)")
        if n == 0 and accepted.get(rid) and not (last and allow_open_last):
            problems.append(f"round {rid} never finished: its bets were neither settled nor returned")
        if n != 1:
            continue
        data = result_data[rid]
        bets = accepted.get(rid, {})
        if data["status"] == "void":
            returned = result_data.get(f"{rid}#void", {}).get("returned", {})
            got = {(p, b): Decimal(a) for p, per in returned.items() for b, a in per.items()}
            # (a stake made during the round rides on a bet and goes back with it: fortune3's play)
            staked = {(p, b) for p, b in got.keys() - bets.keys() if (p, SETTLED_BY.get(b)) in bets}
            if {k: a for k, a in got.items() if k not in staked} != bets:
                problems.append(f"round {rid} void returned {got} but had accepted {bets}")
        else:
            settled = {
                (p, SETTLED_BY.get(b, b)) for p, per in data["results"].items() for b in per
            }
            for key in bets:
                if key not in settled:
                    problems.append(f"round {rid}: bet {key[1]} of {key[0]} was accepted but never settled")
            for key in settled:
                if key not in bets:
                    problems.append(f"round {rid}: {key[1]} of {key[0]} settled but never accepted")
            if "stakes" in data:
                problems += _stake_problems(rid, bets, data["stakes"], data["results"])
    return problems


def _stake_problems(rid: str, bets: dict[tuple[str, str], Decimal], stakes: dict, results: dict) -> list[str]:
    """What is wrong with a settled result's ``stakes``: a bet accepted that
    is not at risk at its amount, or a stake beyond the bets never settled."""
    problems = []
    at_risk = {(p, b): Decimal(a) for p, per in stakes.items() for b, a in per.items()}
    for key, amount in bets.items():
        if at_risk.get(key) != amount:
            problems.append(f"round {rid}: bet {key[1]} of {key[0]} ({amount}) is at risk as {at_risk.get(key)} "
                            "in the result's stakes")
    for position, stake in sorted(at_risk.keys() - bets.keys()):
        if stake not in results.get(position, {}):
            problems.append(f"round {rid}: stake {stake} of {position} was at risk but never settled")
    return problems


def states_at_crash(journal: Journal) -> Counter[str]:
    """The state each recovered round was in when the table stopped."""
    return Counter(rec.data.get("state", "?") for rec in journal.records() if rec.kind == "operator" and rec.name == "recovery")
