"""The journal's tables in SQLite, made by its first transaction, and the
check that a file holds those tables and nothing else (a trigger or a view
would change what a read returns without touching a record)."""

from __future__ import annotations

import sqlite3

SCHEMA = """
CREATE TABLE IF NOT EXISTS records (
    seq INTEGER PRIMARY KEY,
    ts TEXT NOT NULL,
    table_id TEXT NOT NULL,
    round_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    actor TEXT NOT NULL,
    data TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS records_round ON records (round_id);
CREATE TABLE IF NOT EXISTS head (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    seq INTEGER NOT NULL,
    hash TEXT NOT NULL,
    mac TEXT
);
CREATE TABLE IF NOT EXISTS checkpoint (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    seq INTEGER NOT NULL,
    hash TEXT NOT NULL,
    mac TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS bet_refs (
    table_id TEXT NOT NULL,
    player TEXT NOT NULL,
    ref TEXT NOT NULL,
    round_id TEXT NOT NULL,
    position TEXT NOT NULL,
    bet TEXT NOT NULL,
    amount TEXT NOT NULL,
    seq INTEGER NOT NULL,
    PRIMARY KEY (table_id, ref, player)
) WITHOUT ROWID;
"""


def create(db: sqlite3.Connection) -> None:
    """The tables, or a journal from before keyed chains brought up to them
    (a checkpoint table, a MAC on the head), inside the open transaction."""
    for statement in SCHEMA.split(";"):  # (executescript would commit an open transaction)
        if statement.strip():
            db.execute(statement)
    columns = {r[1] for r in db.execute("PRAGMA table_info(head)")}
    if "mac" not in columns:  # a head from before keyed chains
        db.execute("ALTER TABLE head ADD COLUMN mac TEXT")


def _expected() -> dict[str, set[str]]:
    """Each schema object a journal may hold and the SQL texts it may have
    (the head as created today, and as journals from before its MAC had it)."""
    db = sqlite3.connect(":memory:")
    try:
        db.executescript(SCHEMA)
        out = {name: {sql} for name, sql in db.execute("SELECT name, sql FROM sqlite_master")}
        db.execute("DROP TABLE head")
        db.execute("CREATE TABLE head (\n    id INTEGER PRIMARY KEY CHECK (id = 1),\n    seq INTEGER NOT NULL,\n"
                   "    hash TEXT NOT NULL\n)")
        out["head"].add(db.execute("SELECT sql FROM sqlite_master WHERE name = 'head'").fetchone()[0])
        db.execute("ALTER TABLE head ADD COLUMN mac TEXT")
        out["head"].add(db.execute("SELECT sql FROM sqlite_master WHERE name = 'head'").fetchone()[0])
    finally:
        db.close()
    return out


_EXPECTED = _expected()


def problem(objects: list[tuple]) -> str | None:
    """An altered table, or an object no journal has, among ``objects``
    (``sqlite_master``'s type, name and sql, read as bytes)."""
    for kind, name, sql in objects:
        kind, name = plain(kind), plain(name)
        if sql is None and name.startswith("sqlite_autoindex_"):
            continue
        if not isinstance(sql, bytes) or sql.decode("utf-8", "replace") not in _EXPECTED.get(name, ()):
            return f"the journal's schema was altered ({kind} {name})"
    return None


def plain(value: object) -> str:
    """A value from a damaged file, fit for a one-line message."""
    text = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
    return "".join(c if c.isprintable() else "?" for c in text)[:200]
