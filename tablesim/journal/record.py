"""A journal record, as the journal hands it out."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Iterator

from tablecore.frozen import built
from tablesim.journal.chain import COLUMNS


@dataclass(frozen=True)
class Record:
    seq: int
    ts: str
    table_id: str
    round_id: str
    kind: str  # input | event | operator | meta
    name: str
    actor: str
    data: dict[str, Any]
    prev_hash: str
    hash: str

    @classmethod
    def _of(cls, row: tuple, data: dict[str, Any]) -> "Record":
        """The record of a row just written (``data`` as given, not read back),
        built at once (``tablecore.frozen``: a group builds thousands)."""
        seq, ts, table_id, round_id, kind, name, actor, _, prev_hash, link = row
        return built(cls, {"seq": seq, "ts": ts, "table_id": table_id, "round_id": round_id, "kind": kind,
                           "name": name, "actor": actor, "data": data, "prev_hash": prev_hash, "hash": link})


def named(rows: Iterable[tuple]) -> Iterator[dict[str, Any]]:
    """Rows of the chain's columns, as stored, by column name (``data`` its
    text: what the studio publishes, byte for byte)."""
    for values in rows:
        yield dict(zip(COLUMNS, values))
