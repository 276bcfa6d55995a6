"""The table's own check of the stream against its journal: what the outbox
does on every connection (and ``start_link`` once before the table starts).

Every message the stream holds on the table's record subjects must be the
journal's record of its seq, byte for byte. What is looked at is every
message of the table (from a stream sequence on), not the last message per
subject, so a record published beside the table anywhere (the next seq, or
far ahead) is seen; the highest record seq found is where publishing
resumes. A message that differs is told apart by its signature: one the
table's key did not sign was forged on the bus; one it did sign is the
table's own, and the journal no longer holds it (lost, rolled back or
rewritten).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from tablesim.studio import natsio, signing, wire


#: a seq beyond any journal's (and within what SQLite can look up)
MAX_SEQ = 2 ** 62


@dataclass
class Holding:
    highest: int = 0  # the highest record seq of the table in the stream (all of them the journal's)
    last_stream_seq: int = 0  # the last stream sequence looked at
    count: int = 0  # the table's messages looked at
    lacked: list[int] = field(default_factory=list)  # the table's own records the journal lacks or holds otherwise
    forged: list[int] = field(default_factory=list)  # stream sequences of messages the table did not sign
    why: str | None = None  # the first problem, in words (None: the stream is the journal's)


def runs(seqs: list[int]) -> str:
    """``[1, 2, 3, 7]`` -> ``"1 to 3, 7"``: one item per run of consecutive numbers."""
    out: list[str] = []
    seqs = sorted(set(seqs))
    i = 0
    while i < len(seqs):
        j = i
        while j + 1 < len(seqs) and seqs[j + 1] == seqs[j] + 1:
            j += 1
        out.append(str(seqs[i]) if i == j else f"{seqs[i]} to {seqs[j]}")
        i = j + 1
    shown = out[:10]
    return ", ".join(shown) + (f" and {len(out) - 10} more runs" if len(out) > 10 else "")


def records(seqs: list[int]) -> str:
    """``record 7`` or ``records 1 to 3, 7``."""
    return ("record " if len(set(seqs)) == 1 else "records ") + runs(seqs)


def hold(table_id: str, messages: list[natsio.StreamMsg], journal_rows: Callable[[int, int], dict[int, bytes]],
         pub: Ed25519PublicKey) -> Holding:
    """Hold ``messages`` (the table's, in stream order) against the journal
    (``journal_rows(first, last)``: the journal's bodies by seq)."""
    h = Holding()
    decoded = []
    for msg in messages:
        h.count += 1
        h.last_stream_seq = max(h.last_stream_seq, msg.stream_seq)
        try:
            rec = wire.decode(msg.data)
        except ValueError:
            h.forged.append(msg.stream_seq)
            continue
        if not 0 < rec.seq < MAX_SEQ:  # (no journal holds it, and SQLite could not even look it up)
            h.forged.append(msg.stream_seq)
            continue
        decoded.append((rec, msg))
    mine = journal_rows(min(r.seq for r, _ in decoded), max(r.seq for r, _ in decoded)) if decoded else {}
    for rec, msg in decoded:
        if mine.get(rec.seq) == msg.data:  # the journal's own record (signed or, published before signing, not)
            h.highest = max(h.highest, rec.seq)
        elif (signing.verify(pub, msg.data, msg.sig) is None and rec.table_id == table_id
              and msg.msg_id == wire.msg_id(table_id, rec.seq)):
            h.lacked.append(rec.seq)
            h.highest = max(h.highest, rec.seq)
        else:
            h.forged.append(msg.stream_seq)
    if h.forged:
        h.why = (f"the stream holds {len(h.forged)} message(s) on {table_id}'s subjects that this table did not "
                 f"sign (stream message {runs(h.forged)}): published beside the table, forged on the bus")
    elif h.lacked:
        h.why = (f"the stream holds {records(h.lacked)} of {table_id}, signed by this table, which the journal "
                 "does not have or holds with other content")
    return h


#: at most this many of a table's messages are read one request each (below): more than the
#: outbox leaves unlooked at (a batch in flight, BATCH, beyond up to as many acknowledged)
DIRECT_MAX = 512


async def table_messages_from(js, table_id: str, kinds: set[str], start_seq: int,
                              expected: int | None = None, direct: bool = True) -> list[natsio.StreamMsg]:
    """The table's record messages from stream sequence ``start_seq`` on, in stream order.

    ``expected``: about how many there are. Up to DIRECT_MAX are asked of the
    stream one by one: only the stream's leader answers those, so a table
    resumes as soon as the stream has a leader again, without a reader
    (whose making, on a cluster, waits for the cluster's metadata leader:
    after the node that led both was killed, a loaded cluster took tens of
    seconds more to make readers again). More go through the table's reader,
    and all of them on a closed bus (``direct`` False: a table's role may not
    read the stream by number, which reads any table's messages)."""
    start_seq = max(start_seq, 1)
    if direct and expected is not None and expected <= DIRECT_MAX:
        direct = await natsio.leader_messages(js, table_id, kinds, start_seq, limit=DIRECT_MAX)
        if direct is not None:
            return direct
    out: list[natsio.StreamMsg] = []
    for kind in sorted(kinds):
        out.extend([m async for m in natsio.read_messages(js, wire.record_subject(table_id, kind),
                                                          start_seq=start_seq)])
    out.sort(key=lambda m: m.stream_seq)
    return out


async def stored_count(js, table_id: str) -> int:
    """How many messages the stream holds on the table's record subjects (one request)."""
    info = await js.stream_info(wire.STREAM, subjects_filter=wire.table_filter(table_id))
    return sum((info.state.subjects or {}).get(wire.record_subject(table_id, k), 0)
               for k in natsio.stream_kinds(info.config.subjects or []))
