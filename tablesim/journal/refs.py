"""Every bet ref a table ever placed, indexed in its journal.

The chain holds the refs: each group of bets' one record (``input``/
``place_bets``, ``tablecore.betbatch``), or in older journals ``meta``/
``bet_refs`` records of up to 16 refs each, ``[ref, position, bet, amount,
player]`` each (a bet without a ref is not indexed); the ``bet_refs``
table indexes them by (table, ref, player), written in the same transaction
as their record, so a retried ref is found however old it is, across
restarts, without holding the journal's whole life in memory. The index is
derived from the chain: a start that finds it short of the chain's refs (a
journal from before the index, or rows deleted behind the table's back)
builds it again from the records.
"""

from __future__ import annotations

import json
from typing import Iterable

from tablecore import betbatch

#: whose ref an older journal's entry is (it names no player): anyone's
ANY_PLAYER = "\x00any"
#: the player of a bet of the position's own seat (no player named)
SEAT = ""


def _player(player: str | None) -> str:
    return SEAT if player is None else player


def placed_many(journal, table_id: str, refs: list[str]) -> dict[tuple[str, str], tuple[str, tuple[str, str, str]]]:
    """Every index entry under any of ``refs``: (player, ref) -> as
    :func:`placed` (a group's refs looked up at once, not bet by bet).
    The player is ``SEAT`` for a seat's own bet, ``ANY_PLAYER`` for an older
    journal's entry."""
    out: dict[tuple[str, str], tuple[str, tuple[str, str, str]]] = {}
    for player, ref, round_id, position, bet, amount in journal.store.ref_entries(table_id, list(dict.fromkeys(refs))):
        out[(player, ref)] = (round_id, (position, bet, amount))
    return out


def index(journal, table_id: str, round_id: str, seq: int, entries: Iterable[list]) -> None:
    """A group's refs (as its record holds them), inside its transaction."""
    journal.store.add_refs(
        [(table_id, _entry_player(e), e[0], round_id, e[1], e[2], e[3], seq) for e in entries])


def _entry_player(entry: list) -> str:
    if len(entry) < 5:
        return ANY_PLAYER  # an older journal's entry names no player
    return _player(entry[4])


def ensure_index(journal, table_id: str) -> None:
    """Make sure the index holds every ref of the chain (at start, the table's thread)."""
    if journal.path != ":memory:" and journal.seq == 0:
        return
    with journal.transaction():
        indexed, chained = journal.store.ref_counts(table_id)
        if indexed >= chained:
            return
        for rec in list(journal.find(kind="meta", names=("bet_refs",), table_id=table_id)):
            index(journal, table_id, rec.round_id, rec.seq, rec.data["refs"])
        for rec in list(journal.find(kind=betbatch.KIND, names=(betbatch.NAME,), table_id=table_id)):
            index(journal, table_id, rec.round_id, rec.seq,
                  [e for e in rec.data.get("bets") or () if isinstance(e, list) and len(e) >= 5 and e[0] is not None])
