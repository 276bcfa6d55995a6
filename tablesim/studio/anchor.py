"""Anchoring: a table's journal held against its records in the stream.

The stream is kept off the table PC, so whoever controls the PC cannot
rewrite it. Every record the stream holds must be in the journal, byte for
byte, at the same seq and in the same order. What the check reports, with
the seq:

- a record of the stream missing from the journal (truncation, a round or
  everything deleted);
- a record changed in the journal (its content differs), or re-chained (same
  content, other links: the chain was rebuilt after an edit elsewhere);
- a record inserted into the journal (the stream's record N is the
  journal's N+1);
- a stream that is itself not whole (a gap or a record out of order there:
  the broker's store was damaged or someone published beside the table).

Journal records after the stream's last one are not errors: they are
unanchored (not published yet), and counted.

A message in the stream that the table did not sign (checked against its
public key, where one is known) was published beside the table: it is
named as forged on the bus and left out, so the journal's own record is
never blamed for it. The table held is the one the journal should be (the
``--table`` given, or the file's name ``<table_id>.journal.sqlite``): a file
that holds another table's records has every record of the named table in
the stream reported missing. Runs of records with the same problem are one
line each.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from pathlib import Path

from tablecore.errors import InputError
from tablesim.journal.journal import Journal
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from tablesim.studio import natsio, signing, wire
from tablesim.studio.sealed import Sealer

#: the record's own content (what "changed" means); links are compared apart
CONTENT = ("ts", "table_id", "round_id", "kind", "name", "actor", "data")
#: problems listed in full; the rest are counted
SHOWN = 20


@dataclass
class AnchorReport:
    table_id: str
    journal_records: int = 0
    anchored: int = 0  # journal records the stream holds, identical
    stream_records: int = 0
    unanchored: int = 0  # journal records after the stream's last (not published yet)
    problems: list[tuple[int, str]] = field(default_factory=list)
    note: str | None = None  # e.g. the file holds another table's records

    @property
    def ok(self) -> bool:
        return not self.problems

    def lines(self) -> list[str]:
        head = (f"table {self.table_id}: {self.stream_records} records in the stream, "
                f"{self.journal_records} in the journal, {self.anchored} anchored, {self.unanchored} unanchored")
        out = [head] + ([f"  {self.note}"] if self.note else [])
        grouped = _runs(self.problems)
        for first, last, text in grouped[:SHOWN]:
            out.append(f"  record {first}: {text}" if first == last else f"  records {first} to {last}: {text}")
        if len(grouped) > SHOWN:
            out.append(f"  ... and {len(grouped) - SHOWN} more")
        return out


def _runs(problems: list[tuple[int, str]]) -> list[tuple[int, int, str]]:
    """Consecutive records with the same problem as one (first, last, text)."""
    out: list[tuple[int, int, str]] = []
    for seq, text in problems:
        if out and out[-1][2] == text and out[-1][1] + 1 == seq:
            out[-1] = (out[-1][0], seq, text)
        else:
            out.append((seq, seq, text))
    return out


def _content(raw: bytes) -> tuple:
    rec = json.loads(raw)["record"]
    return tuple(rec.get(k) for k in CONTENT)


def compare(table_id: str, journal: dict[int, bytes], stream: list[natsio.StreamMsg],
            pub: Ed25519PublicKey | None = None) -> AnchorReport:
    """``journal``: the journal's records of the table by seq (message bodies,
    or ``wire.NotARecord`` for a row no table writes); ``stream``: the
    table's messages in stream order; ``pub``: the table's public key, if known."""
    report = AnchorReport(table_id, journal_records=len(journal), stream_records=len(stream))
    stream_by_seq = _stream_records(report, journal, stream, pub)
    _hold(report, journal, stream_by_seq)
    last = max(stream_by_seq, default=0)
    report.unanchored = sum(1 for s in journal if s > last)
    report.problems.sort(key=lambda p: p[0])
    return report


def _stream_records(report: AnchorReport, journal: dict[int, bytes], stream: list[natsio.StreamMsg],
                    pub: Ed25519PublicKey | None) -> dict[int, bytes]:
    """The stream's records of the table by seq, each once; what is wrong
    with the stream itself (no record, forged, beside the table, twice, a
    gap or out of order) goes to the report's problems."""
    problems, table_id = report.problems, report.table_id
    stream_by_seq: dict[int, bytes] = {}
    expected = 1
    for msg in stream:
        try:
            rec = wire.decode(msg.data)
        except ValueError as exc:
            problems.append((expected, f"the stream holds a message that is no record ({exc}): stream message {msg.stream_seq}"))
            continue
        if pub is not None and journal.get(rec.seq) != msg.data and signing.verify(pub, msg.data, msg.sig) is not None:
            problems.append((rec.seq, f"the stream's message {msg.stream_seq} under this record's seq is "
                                      f"{signing.verify(pub, msg.data, msg.sig)}: forged on the bus, left out "
                                      "(the journal is not blamed for it)"))
            report.stream_records -= 1
            continue
        if msg.msg_id != wire.msg_id(table_id, rec.seq) or msg.subject != wire.record_subject(table_id, rec.kind):
            problems.append((rec.seq, f"the stream's message {msg.stream_seq} does not match its subject or id "
                                      f"({msg.subject}, {msg.msg_id}): published beside the table"))
        if rec.seq in stream_by_seq:
            problems.append((rec.seq, "the stream holds this record twice"))
            continue
        if rec.seq != expected:
            what = "a gap in the stream" if rec.seq > expected else "out of order in the stream"
            problems.append((rec.seq, f"{what}: expected record {expected} next"))
        stream_by_seq[rec.seq] = msg.data
        expected = rec.seq + 1
    return stream_by_seq


def _hold(report: AnchorReport, journal: dict[int, bytes], stream_by_seq: dict[int, bytes]) -> None:
    """Each record of the stream held against the journal's at its seq:
    anchored (counted), or the problem (missing, changed, re-chained; the
    first change explained by an insertion or a renumbering where it is one)."""
    problems = report.problems
    journal_contents: dict[int, tuple] = {}

    def jcontent(seq: int) -> tuple | None:
        if not isinstance(journal.get(seq), bytes):
            return None
        if seq not in journal_contents:
            journal_contents[seq] = _content(journal[seq])
        return journal_contents[seq]

    explained = False
    for seq, body in stream_by_seq.items():
        mine = journal.get(seq)
        if mine == body:
            report.anchored += 1
            continue
        if mine is None:
            problems.append((seq, "in the stream, missing from the journal (deleted or truncated)"))
            continue
        if isinstance(mine, wire.NotARecord):
            problems.append((seq, f"changed: {mine.why}"))
            continue
        theirs = _content(body)
        if jcontent(seq) == theirs:
            problems.append((seq, "re-chained: same content, other links than the stream's"))
            continue
        why = "changed: the journal's record differs from the stream's"
        if not explained:
            cause = _moved(seq, theirs, stream_by_seq, jcontent)
            if cause:
                why += cause
                explained = True
        problems.append((seq, why))


def _moved(seq: int, theirs: tuple, stream_by_seq: dict[int, bytes], jcontent) -> str | None:
    """Why the journal's record ``seq`` differs, where records were inserted or removed before it."""
    if jcontent(seq + 1) == theirs:
        return f" (a record was inserted into the journal at {seq})"
    later = next((s for s in range(seq + 1, seq + 1000) if s in stream_by_seq
                  and _content(stream_by_seq[s]) == jcontent(seq)), None)
    if later is not None:
        return f" (the journal's record {seq} is the stream's {later}: {later - seq} removed and renumbered)"
    return None


def journal_bodies(path: str) -> dict[str, dict[int, bytes | wire.NotARecord]]:
    """Every record of the journal file as its message body, by table and seq
    (a row no table writes, e.g. a BLOB, as the reason it is none)."""
    # an audit leaves no -wal/-shm files behind, whether or not a table runs
    journal = Journal(path, readonly=True)  # (InputError: not a journal, or unreadable)
    try:
        out: dict[str, dict[int, bytes | wire.NotARecord]] = {}
        sealer = Sealer(journal.rows)  # (face-down cards as the table published them: sealed)
        for row in journal.rows():
            try:
                body: bytes | wire.NotARecord = sealer.body(row)
            except wire.NotARecord as exc:
                body = exc
            out.setdefault(str(row["table_id"]), {})[int(row["seq"])] = body
        return out
    except (*journal.errors, KeyError, TypeError, ValueError) as exc:
        raise InputError(f"cannot read the journal: {exc}", where=path) from None
    finally:
        journal.close()


async def stream_messages(url: str, table_id: str) -> list[natsio.StreamMsg]:
    """The table's messages in the stream (a leader election ridden out)."""
    return await natsio.retrying(lambda: _stream_messages(url, table_id))


async def _stream_messages(url: str, table_id: str) -> list[natsio.StreamMsg]:
    async with natsio.one_shot(url, "tablesim-audit") as nc:
        js = nc.jetstream(timeout=natsio.REQUEST_TIMEOUT)
        try:
            info = await js.stream_info(wire.STREAM)
        except natsio.NotFoundError:
            return []
        return await natsio.table_messages(js, table_id, natsio.stream_kinds(info.config.subjects or []))


def table_from_name(path: str) -> list[str]:
    """An empty journal names no table: its file name (``<table_id>.journal.sqlite``) does."""
    name = Path(path).name
    return [name.split(".journal", 1)[0]] if ".journal" in name else []


def verify_anchor(path: str, url: str, table_ids: list[str] | None = None,
                  keys: dict[str, Ed25519PublicKey] | None = None) -> list[AnchorReport]:
    """Hold the journal at ``path`` against the stream at ``url``: the table
    it should be (``table_ids``, else its file's name) and every table it holds."""
    try:
        bodies = journal_bodies(path) if Path(path).is_file() else {}
    except InputError:
        # Deleted, emptied, not a journal any more: it holds none of the
        # stream's records (its own verdict says why it cannot be read).
        bodies = {}
    named = list(table_ids or table_from_name(path))
    ids = list(dict.fromkeys(list(table_ids or []) + sorted(bodies) + named))
    reports = []
    for tid in ids:
        stream = asyncio.run(stream_messages(url, tid))
        if tid not in bodies and tid in named and not stream and bodies and not table_ids:
            continue  # a file name that names no table of the stream (e.g. fortune3.journal.sqlite)
        report = compare(tid, bodies.get(tid, {}), stream, (keys or {}).get(tid))
        others = sorted(set(bodies) - {tid})
        if tid in named and others and tid not in bodies:
            report.note = (f"the journal holds table {', '.join(others)}'s records, not {tid}'s: another table's "
                           "journal")
        reports.append(report)
    return reports
