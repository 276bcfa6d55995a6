"""The bets a journal holds, in either of its formats.

A journal written before batch records holds each bet as a ``bet`` event
(beside its ``place_bet`` input) and its ref in a ``bet_refs`` record of up
to 16 refs; since, a group of bets is one ``place_bets`` record holding
both (``tablecore.betbatch``). Readers that count or list bets take them
from here, so every journal reads the same.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator

from tablecore import betbatch

#: the names of the records that hold bets placed (filter ``find`` by them)
BET_NAMES = ("bet", betbatch.NAME)
#: the names of the records that hold bet refs
REF_NAMES = ("bet_refs", betbatch.NAME)


def bets(rec: Any) -> Iterator[dict[str, Any]]:
    """The bets record ``rec`` placed (``{position, bet, amount, player, ...}``): one for a
    ``bet`` event, each of a batch record's, none for any other record."""
    if rec.kind == "event" and rec.name == "bet":
        yield rec.data
    elif betbatch.is_batch(rec.kind, rec.name):
        yield from betbatch.bets_of(rec.data, rec.actor)


def placed(records: Iterable[Any]) -> Iterator[tuple[Any, dict[str, Any]]]:
    """(record, bet) for each bet the records placed, in order."""
    for rec in records:
        for bet in bets(rec):
            yield rec, bet


def refs(rec: Any) -> list[list]:
    """The ``[ref, position, bet, amount(, player)]`` entries a record holds refs
    under (a ``bet_refs`` record's, a batch record's bets with a ref), else none."""
    if rec.kind == "meta" and rec.name == "bet_refs":
        return [e for e in rec.data.get("refs") or () if isinstance(e, list) and len(e) >= 4]
    if betbatch.is_batch(rec.kind, rec.name):
        return [e[:5] for e in rec.data.get("bets") or () if isinstance(e, list) and len(e) >= 5 and e[0] is not None]
    return []
