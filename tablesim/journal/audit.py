"""Verifying the journal's hash chain."""

from __future__ import annotations

from dataclasses import dataclass

from tablesim.journal.store import GENESIS, Journal, record_hash


@dataclass(frozen=True)
class AuditResult:
    ok: bool
    records: int
    first_bad: int | None = None  # position (1-based) of the first bad record
    reason: str = ""


def verify(journal: Journal) -> AuditResult:
    """Walk the records in storage order; the first that breaks the chain is named.

    A record is bad if its sequence number is not the next one (deleted or
    reordered records), if it does not carry the previous record's hash, or
    if its own hash does not match its content (edited).
    """
    prev = GENESIS
    count = 0
    for position, row in enumerate(journal.raw_rows(), 1):
        seq, ts, table_id, round_id, kind, name, actor, data, prev_hash, digest = row
        count = position
        if seq != position:
            return AuditResult(False, count, position, f"record {position} has sequence number {seq}: a record was deleted or moved")
        if prev_hash != prev:
            return AuditResult(False, count, position, f"record {seq} does not follow record {seq - 1} (chain broken)")
        if record_hash(prev_hash, seq, ts, table_id, round_id, kind, name, actor, data) != digest:
            return AuditResult(False, count, position, f"record {seq} was altered (hash mismatch)")
        prev = digest
    head = journal.head()
    if head is not None and (head[0] != count or head[1] != prev):
        return AuditResult(
            False, count, count + 1,
            f"the journal ends at record {count} but its head names record {head[0]}: records were removed from the end",
        )
    return AuditResult(True, count)
