"""The SQL of the journal's reads, built from a filter (one text per shape
of filter, made once)."""

from __future__ import annotations

import functools

from tablesim.journal.chain import COLUMNS

#: every column as the chain covers it: a value stored as anything but text
#: (a blob of the same bytes, a number) reads as other bytes, so its link
#: does not verify (the link covers the bytes; the column's type is part of
#: what was written)
AS_STORED = "seq, " + ", ".join(
    f"CASE typeof({c}) WHEN 'text' THEN {c} ELSE 'stored as ' || typeof({c}) END" for c in COLUMNS[1:])

#: the columns by name, in the chain's order (never ``*``: a column added
#: behind the journal's back changes nothing that is read)
ALL = ", ".join(COLUMNS)


@functools.lru_cache(maxsize=64)
def where(after: bool, upto: bool, kind: bool, names: int, table_id: bool, round_id: bool,
          in_round: bool) -> str:
    """The WHERE clause of a filter's shape (which parts it has; ``names``: how many)."""
    parts = []
    if after:
        parts.append("seq > ?")
    if upto:
        parts.append("seq <= ?")
    if kind:
        parts.append("kind = ?")
    if names:
        parts.append(f"name IN ({','.join('?' * names)})")
    if table_id:
        parts.append("table_id = ?")
    if round_id:
        parts.append("round_id = ?")
    if in_round:
        parts.append("round_id != ''")
    return " WHERE " + " AND ".join(parts) if parts else ""


def select(columns: str, after: int | None, upto: int | None, kind: str | None, names: tuple[str, ...],
           table_id: str | None, round_id: str | None, in_round: bool, newest: bool,
           limit: int | None) -> tuple[str, list]:
    """(SQL, parameters) of the records matching, by seq (``newest``: the latest first)."""
    sql = f"SELECT {columns} FROM records" + where(after is not None, upto is not None, kind is not None,
                                                   len(names), table_id is not None, round_id is not None,
                                                   in_round)
    params: list = [v for v in (after, upto, kind) if v is not None] + list(names)
    params += [v for v in (table_id, round_id) if v is not None]
    sql += " ORDER BY seq DESC" if newest else " ORDER BY seq"
    if limit is not None:
        sql += " LIMIT ?"
        params.append(limit)
    return sql, params
