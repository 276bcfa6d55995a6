"""Reading a journal: its records by what they are, as stored, and its seals
(the part of :class:`tablesim.journal.journal.Journal` that only reads its store)."""

from __future__ import annotations

import json
from typing import Any, Iterator, Sequence

from tablesim.journal.chain import ROUND_KIND, ROUND_NAME
from tablesim.journal.record import Record, named


class Reading:
    """What a journal opened on ``self.store`` reads (``storage.Store``)."""

    store: Any

    # --- the seals ---------------------------------------------------------------

    def head(self) -> tuple[int, str] | None:
        """(seq, link) the head names, or None (the audit reads it with its MAC)."""
        return self.store.head()

    def checkpoint(self) -> tuple | None:
        """(seq, link, mac) of the checkpoint, or None."""
        return self.store.checkpoint()

    # --- reading -----------------------------------------------------------------

    def records(self, round_id: str | None = None) -> Iterator[Record]:
        return self.find(round_id=round_id)

    def find(self, *, after: int | None = None, upto: int | None = None, kind: str | None = None,
             names: Sequence[str] = (), table_id: str | None = None, round_id: str | None = None,
             in_round: bool = False, newest: bool = False, limit: int | None = None) -> Iterator[Record]:
        """The records matching every part given (as ``Store.select``), their data decoded."""
        for row in self.store.select(after=after, upto=upto, kind=kind, names=names, table_id=table_id,
                                     round_id=round_id, in_round=in_round, newest=newest, limit=limit):
            yield Record(*row[:7], json.loads(row[7]), row[8], row[9])

    def latest(self, **where: Any) -> Record | None:
        """The last record matching ``where`` (as :meth:`find`), or None."""
        return next(self.find(newest=True, limit=1, **where), None)

    def rows(self, **where: Any) -> Iterator[dict[str, Any]]:
        """The records matching ``where`` (as :meth:`find`) as stored, by column
        name, ``data`` as its text (what the studio publishes, byte for byte)."""
        return named(self.store.select(**where))

    def raw_rows(self, after: int = 0) -> Iterator[tuple]:
        """Every record from ``after + 1`` on as stored (bytes), in storage order."""
        return self.store.raw_rows(after)

    def raw_rounds(self, round_ids: list[str]) -> list[tuple]:
        """The records of ``round_ids`` as stored (bytes, as :meth:`raw_rows`), by seq."""
        return self.store.raw_rounds(round_ids)

    def round_ids(self) -> list[str]:
        return self.store.round_ids()

    def round_profile(self, round_id: str) -> dict[str, str] | None:
        """The rule profile a round was played under (its first record), or None."""
        row = next(iter(self.store.select(round_id=round_id, kind=ROUND_KIND, names=(ROUND_NAME,), limit=1)), None)
        return json.loads(row[7]).get("profile") if row else None

    def last_round_id(self, table_id: str | None = None) -> str | None:
        """The latest round (of ``table_id`` when given: tables never take
        over each other's rounds in a shared file)."""
        row = next(iter(self.store.select(in_round=True, table_id=table_id, newest=True, limit=1)), None)
        return row[3] if row else None
