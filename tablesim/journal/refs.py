"""Every bet ref a table ever placed, indexed in its journal.

The chain holds the refs (one ``meta``/``bet_refs`` record per group of
bets: ``[ref, position, bet, amount, player]`` each); the ``bet_refs``
table indexes them by (table, player, ref), written in the same transaction
as their record, so a retried ref is found however old it is, across
restarts, without holding the journal's whole life in memory. The index is
derived from the chain: a start that finds it short of the chain's refs (a
journal from before the index, or rows deleted behind the table's back)
builds it again from the records.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Iterable

#: whose ref an older journal's entry is (it names no player): anyone's
ANY_PLAYER = "\x00any"
#: the player of a bet of the position's own seat (no player named)
SEAT = ""


def _player(player: str | None) -> str:
    return SEAT if player is None else player


def placed(journal, table_id: str, player: str | None, ref: str) -> tuple[str, tuple[str, str, str]] | None:
    """(round, (position, bet, amount)) of the bet placed under ``ref`` by
    ``player`` (or by anyone, for an older journal's entry), or None."""
    try:
        row = journal.db.execute(
            "SELECT round_id, position, bet, amount FROM bet_refs WHERE table_id = ? AND ref = ? AND player IN (?, ?)"
            " ORDER BY player = ? LIMIT 1", (table_id, ref, _player(player), ANY_PLAYER, ANY_PLAYER)).fetchone()
    except sqlite3.OperationalError:  # (no index yet: a journal's tables come with its first record)
        return None
    return None if row is None else (row[0], (row[1], row[2], row[3]))


def index(journal, table_id: str, round_id: str, seq: int, entries: Iterable[list]) -> None:
    """A group's refs (as its record holds them), inside its transaction."""
    journal.db.executemany(
        "INSERT OR IGNORE INTO bet_refs VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
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
        journal._ensure_schema()
        indexed = journal.db.execute("SELECT COUNT(*) FROM bet_refs WHERE table_id = ?", (table_id,)).fetchone()[0]
        (chained,) = journal.db.execute(
            "SELECT COALESCE(SUM(json_array_length(data, '$.refs')), 0) FROM records"
            " WHERE kind = 'meta' AND name = 'bet_refs' AND table_id = ?", (table_id,)).fetchone()
        if indexed >= chained:
            return
        rows = journal.db.execute("SELECT seq, round_id, data FROM records WHERE kind = 'meta' AND name = 'bet_refs'"
                                  " AND table_id = ? ORDER BY seq", (table_id,)).fetchall()
        for seq, round_id, text in rows:
            index(journal, table_id, round_id, seq, json.loads(text)["refs"])
