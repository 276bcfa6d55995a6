"""The floor's figures computed straight from journal files (read through the journal,
independently of the studio's code), to hold the studio's report against: used by
``studio_load.py`` and by the studio's tests."""

from __future__ import annotations

from decimal import Decimal

from tablecore import betbatch
from tablesim.journal.journal import Journal


def journal_figures(path) -> dict:
    rounds = void = bets = 0
    wagered = paid = house = Decimal(0)
    books: dict[str, dict] = {}
    journal = Journal(path, readonly=True)
    try:
        for rec in journal.records():
            rid, name, data = rec.round_id, rec.name, rec.data
            if rec.kind != "event" and not betbatch.is_batch(rec.kind, name):
                continue
            book = books.setdefault(rid, {})
            if name == "bet" or betbatch.is_batch(rec.kind, name):  # (a group of bets is one record)
                for bet in ([data] if name == "bet" else betbatch.bets_of(data)):
                    key = (bet["position"], bet["bet"])
                    book[key] = book.get(key, Decimal(0)) + Decimal(bet["amount"])
            elif name == "bet_withdrawn":
                book.pop((data["position"], data["bet"]), None)
            elif name == "result":
                if data["status"] != "settled":
                    void += 1
                    continue
                rounds += 1
                # what was at risk: the stakes the result records (a play
                # made by a decision included), else the bets placed
                stakes = ([Decimal(a) for per in data["stakes"].values() for a in per.values()]
                          if "stakes" in data else list(book.values()))
                bets += len(stakes)
                wagered += sum(stakes, Decimal(0))
                for per in data["results"].values():
                    paid += sum((Decimal(v) for v in per.values() if Decimal(v) > 0), Decimal(0))
                house -= sum((Decimal(v) for v in data["net"].values()), Decimal(0))
    finally:
        journal.close()
    return {"rounds": rounds, "void": void, "bets": bets, "wagered": wagered, "paid": paid, "house_result": house}


def add(a: dict, b: dict) -> dict:
    return {k: a.get(k, 0) + b[k] for k in b}


def as_numbers(fig: dict) -> dict:
    """A figures object of the studio's JSON, in the form ``journal_figures`` gives."""
    keys = ("rounds", "void", "bets", "wagered", "paid", "house_result")
    return {k: (Decimal(fig[k]) if isinstance(fig[k], str) else fig[k]) for k in keys}
