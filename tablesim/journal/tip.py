"""The writer's end of the chain: where it ends, and each next record's row.

Pure: records in, rows with their links out; no storage, no clock, no key
file (the journal hands in the time, the text of the data and the key).
A savepoint keeps a copy of the tip and puts it back when its action is
undone.
"""

from __future__ import annotations

from typing import Any

from tablecore import betbatch
from tablesim.journal.chain import ALGORITHM, GENESIS, record_hash, record_link
from tablesim.journal.keys import key_id


class Tip:
    """The last record (``seq``, ``link``), whether the keyed chain has begun,
    and the open round's tally (records, last seq, last link) that the next
    round's first record names."""

    __slots__ = ("seq", "link", "keyed", "round_id", "round_records", "round_last", "round_link")

    def __init__(self, seq: int = 0, link: str = GENESIS, keyed: bool = False, round_id: str = "",
                 round_records: int = 0, round_last: int = 0, round_link: str = GENESIS) -> None:
        self.seq, self.link, self.keyed, self.round_id = seq, link, keyed, round_id
        self.round_records, self.round_last, self.round_link = round_records, round_last, round_link

    def saved(self) -> tuple:
        """The tip as it is now, for :meth:`restore` (a savepoint takes one per bet)."""
        return (self.seq, self.link, self.keyed, self.round_id, self.round_records, self.round_last,
                self.round_link)

    def restore(self, saved: tuple) -> None:
        (self.seq, self.link, self.keyed, self.round_id, self.round_records, self.round_last,
         self.round_link) = saved

    def row(self, key: bytes | None, ts: str, table_id: str, round_id: str, kind: str, name: str, actor: str,
            text: str) -> tuple:
        """The next record's row (the chain's columns, ``text`` its data), the tip moved past it.
        ``key``: the chain's key once the keyed chain has begun (before it: a
        legacy journal's own records, plain SHA-256, never written now)."""
        seq = self.seq + 1
        if self.keyed:
            link = record_link(key, self.link, seq, ts, table_id, round_id, kind, name, actor, text)
        else:
            link = record_hash(self.link, seq, ts, table_id, round_id, kind, name, actor, text)
        row = (seq, ts, table_id, round_id, kind, name, actor, text, self.link, link)
        self.seq, self.link = seq, link
        if round_id:
            if round_id != self.round_id:
                self.round_id, self.round_records = round_id, 0
            self.round_records += 1
            self.round_last, self.round_link = seq, link
        return row

    def chain_data(self, key: bytes) -> dict[str, Any]:
        """The data of the chain record that begins the keyed chain here,
        sealing what precedes it; the tip is keyed from then on."""
        self.keyed = True
        return {"chain": ALGORITHM, "key_id": key_id(key), "legacy": {"records": self.seq, "link": self.link}}

    def round_data(self, profile: dict[str, str] | None, seal: str | None = None,
                   rules: dict[str, Any] | None = None) -> dict[str, Any]:
        """The data of a round's first record: its rule profile (and, given
        ``rules``, the profile's rules: what the players' pages show), the round closed
        before it, and the round's seal (the secret its face-down cards are
        published sealed under: ``tablesim.studio.sealed``; kept here so that
        whoever holds the journal makes the very bytes the table published)."""
        closed = []
        if self.round_id:
            closed.append({"round_id": self.round_id, "records": self.round_records, "last_seq": self.round_last,
                           "link": self.round_link})
        # (the format: how this round's records are written; 2: a group of bets is one record)
        data = {"profile": profile, "closed": closed, "format": betbatch.FORMAT}
        if rules is not None:
            data["rules"] = rules
        if seal is not None:
            data["seal"] = seal
        return data
