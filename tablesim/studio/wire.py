"""The studio's wire format (version 1): subjects, message ids, and the exact
bytes a journal record is published as.

A record goes out as one JetStream message on ``tablesim.<table_id>.<kind>``
(``kind``: the record's kind, e.g. ``input``, ``event``, ``operator``), with
the header ``Nats-Msg-Id: <table_id>:<seq>`` so that a resend is stored once.
Its body is canonical JSON (sorted keys, no spaces) of::

    {"v": 1, "record": {<every column of the journal row, by name>}}

The row's ``data`` column stays the text the journal holds (not parsed), so
the message is a byte-exact copy of the row: ``encode_row`` of the journal's
row equals the stored message, which is what anchoring compares. A record
that names a card still face down goes out sealed instead
(``tablesim.studio.sealed``: ``read_rows`` makes every body), the same bytes
from the same journal.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Iterator

from tablecore.errors import InputError
from tablesim.journal.follower import Follower

VERSION = 1
#: the JetStream stream that holds every table's records
STREAM = "TABLESIM"
#: the record kinds the journal writes today; a record of another kind adds its subject to the stream first
RECORD_KINDS = ("input", "event", "operator", "meta")
#: the header that makes a resend idempotent
MSG_ID = "Nats-Msg-Id"
#: the header that carries the table's signature of the body (tablesim.studio.signing)
SIG_HEADER = "Tablesim-Sig"
#: what every receipt of one group's record shares (its signed root): a bus reply asked for it
#: (``"shared": true``) gives it once a record, not in each receipt
RECEIPT_SHARED = ("statement", "sig", "key")
#: what a table id must look like to be a subject token
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def check_token(value: str, what: str) -> str:
    if not _TOKEN.match(value or ""):
        raise InputError(f"{what} {value!r} cannot be a NATS subject token (letters, digits, '_' and '-')")
    return value


def record_subject(table_id: str, kind: str) -> str:
    return f"tablesim.{table_id}.{kind}"


def stream_subjects(kinds: tuple[str, ...] | list[str] = RECORD_KINDS) -> list[str]:
    """The stream takes the record subjects of every table, and nothing else:
    ``tablesim.<table_id>.bets`` (requests) and ``.status`` stay core NATS."""
    return [f"tablesim.*.{k}" for k in kinds]


def table_filter(table_id: str) -> str:
    return f"tablesim.{table_id}.*"


#: where the platform's processes tell one another of a balance settlement moved
#: (``tablesim.platform.balances``; no table may read it: a role's name is no table's)
CREDITED_SUBJECT = "tablesim.platform.credited"


def bets_subject(table_id: str) -> str:
    return f"tablesim.{table_id}.bets"


def decisions_subject(table_id: str) -> str:
    """A remote player's decision on a shared remote hand (``tablesim.studio.bus_decisions``)."""
    return f"tablesim.{table_id}.decisions"


def status_subject(table_id: str) -> str:
    return f"tablesim.{table_id}.status"


def msg_id(table_id: str, seq: int) -> str:
    return f"{table_id}:{seq}"


def canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


class NotARecord(ValueError):
    """A journal row that no table writes (e.g. a column stored as a BLOB)."""

    why = "not a record a table writes"


def encode_row(row: dict[str, Any]) -> bytes:
    for name, value in row.items():
        if not (value is None or isinstance(value, (str, int, float))):
            error = NotARecord(f"record {row.get('seq')}: its {name} is stored as a {type(value).__name__}, "
                               "which no table writes")
            error.why = f"its {name} is stored as a {type(value).__name__} (a BLOB), which no table writes"
            raise error
    return canonical({"v": VERSION, "record": row})


@dataclass(frozen=True)
class WireRecord:
    """A record as the stream carries it."""

    seq: int
    table_id: str
    round_id: str
    kind: str
    name: str
    data: dict[str, Any]
    prev_hash: str
    hash: str
    raw: bytes
    ts: str = ""  # when the table journaled it (ISO 8601, UTC)
    actor: str = ""  # who did it (``dealer:Ana``, ``table``, ``timer``...)


def decode(payload: bytes) -> WireRecord:
    """Parse a message body; ValueError for anything that is not a v1 record."""
    try:
        doc = json.loads(payload)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ValueError(f"not JSON: {exc}") from None
    if not isinstance(doc, dict) or doc.get("v") != VERSION or not isinstance(doc.get("record"), dict):
        raise ValueError(f"not a version {VERSION} record")
    rec = doc["record"]
    try:
        data = json.loads(rec["data"])
        return WireRecord(int(rec["seq"]), str(rec["table_id"]), str(rec["round_id"]), str(rec["kind"]),
                          str(rec["name"]), data if isinstance(data, dict) else {}, str(rec["prev_hash"]),
                          str(rec["hash"]), payload, str(rec.get("ts") or ""),
                          str(rec.get("actor") or ""))
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"record without {exc}") from None


def read_rows(journal: Follower, after: int, limit: int, upto: int | None = None) -> list[tuple[int, str, str, bytes]]:
    """Journal rows with seq > ``after`` (at most ``limit``): (seq, table_id, kind, message body),
    face-down cards sealed (``tablesim.studio.sealed``, which builds on this module)."""
    from tablesim.studio.sealed import Sealer

    rows = list(journal.rows(after=after, upto=upto, limit=limit))
    sealer = Sealer(journal.rows)  # (after the rows are read: what it looks up of their rounds is committed)
    return [(row["seq"], row["table_id"], row["kind"], sealer.body(row)) for row in rows]


def iter_rows(journal: Follower, batch: int = 2000) -> Iterator[tuple[int, str, str, bytes]]:
    after = 0
    while True:
        rows = read_rows(journal, after, batch)
        if not rows:
            return
        yield from rows
        after = rows[-1][0]


def open_reader(path: str) -> Follower:
    """A read-only opening of its own of a journal (never the table's)."""
    return Follower(path)
