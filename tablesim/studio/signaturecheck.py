"""What the studio lets onto the floor: only what a table signed.

Every record message and status message is checked against the public key
registered for the table its subject names (``tablesim.studio.trust``)
before it reaches the floor's picture (``tablesim.studio.floor``):

- a message of a table with no registered key, unsigned, badly signed, or
  whose subject, message id and record disagree, is left out: it is not
  counted, the table it names does not appear on the floor from it, and
  the floor raises an alert (one per table and reason for a table nobody
  registered, so a flood of forgeries cannot push the real alerts out);
- a signed record then still has to follow on the table's last one
  (the floor's own chain check): a record of the table replayed or
  reordered on the bus is alerted and left out too.

A message handed again under a stream seq the floor read before is passed
over, unless it is another message than the one read there: the stream
was numbered anew under the floor (a replicated stream's new leader
lacking messages its predecessor had handed out, then numbering new ones
in their place), and passing over would drop those new ones for good.
That raises ``Renumbered``; the consumer makes the picture again.
"""

from __future__ import annotations

import json
from collections import deque
from typing import Any

from tablesim.studio import signing, wire
from tablesim.studio.floor import Floor
from tablesim.studio.trust import Trust


#: the most table ids the left-out counts name (the rest count under "*": ids are the sender's to choose)
NAMED = 1000
#: the last stream messages whose ids are kept, by stream seq (to tell a message handed again from another)
KEPT_IDS = 65536


class Renumbered(Exception):
    """The stream holds another message under a stream seq the floor read before."""


def renumbered(stream_seq: int, found: str | None, read: str | None) -> str:
    return (f"stream message {stream_seq} is {found} where the floor read {read}: the stream was numbered anew "
            "(a new leader without the messages the floor had read)")


class Gate:
    def __init__(self, trust: Trust, floor: Floor | None = None) -> None:
        self.trust = trust
        self.floor = floor if floor is not None else Floor()
        self._said: set[tuple[str, str]] = set()
        self._ids: dict[int, str | None] = {}  # stream seq -> the message id read there
        self._kept: deque[int] = deque()

    def read_at(self, stream_seq: int) -> str | None:
        """The message id read at ``stream_seq`` (None: not read, or no longer kept)."""
        return self._ids.get(stream_seq)

    def check_same(self, stream_seq: int, msg_id: str | None) -> None:
        """Raise ``Renumbered`` if the floor read another message than ``msg_id`` at ``stream_seq``."""
        read = self._ids.get(stream_seq, msg_id)
        if read != msg_id:
            raise Renumbered(renumbered(stream_seq, msg_id, read))

    def record(self, subject: str, headers: dict[str, str] | None, data: bytes, stream_seq: int = 0) -> bool:
        """Apply one stream message if its table signed it; whether it was."""
        floor = self.floor
        msg_id = (headers or {}).get(wire.MSG_ID)
        if stream_seq and stream_seq <= floor.stream_seq:
            # A message the consumer handed before, handed again: after a leader
            # change the acks the new leader never got come round once more
            # (JetStream delivers at least once). It was taken, or refused, the
            # first time. A record stored twice in the stream would come under
            # a new stream seq, and its chain check alerts it.
            self.check_same(stream_seq, msg_id)
            floor.redelivered += 1
            return True
        floor.stream_seq = max(floor.stream_seq, stream_seq)
        if stream_seq:
            self._ids[stream_seq] = msg_id
            self._kept.append(stream_seq)
            if len(self._kept) > KEPT_IDS:
                del self._ids[self._kept.popleft()]
        parts = subject.split(".")
        table_id = parts[1] if len(parts) == 3 else "?"
        try:
            rec = wire.decode(data)
        except ValueError as exc:
            return self._refuse(table_id, f"stream message {stream_seq} is no record: {exc}", None)
        if (rec.table_id, rec.kind) != (table_id, parts[-1]) or msg_id != wire.msg_id(table_id, rec.seq):
            return self._refuse(table_id, f"stream message {stream_seq} ({subject}, id {msg_id}) does not match "
                                          f"the record it holds (table {rec.table_id}, record {rec.seq})", rec.seq)
        why = self._unsigned(table_id, data, (headers or {}).get(wire.SIG_HEADER), signing.RECORD)
        if why is not None:
            return self._refuse(table_id, f"record {rec.seq} (stream message {stream_seq}) is {why}", rec.seq)
        floor.apply(rec, stream_seq)
        return True

    def status(self, subject: str, headers: dict[str, str] | None, data: bytes) -> dict[str, Any] | None:
        """A status message's content if its table signed it, else None (alerted)."""
        parts = subject.split(".")
        table_id = parts[1] if len(parts) == 3 else "?"
        why = self._unsigned(table_id, data, (headers or {}).get(wire.SIG_HEADER), signing.STATUS)
        if why is None:
            try:
                doc = json.loads(data)
            except (ValueError, UnicodeDecodeError):
                doc = None
            if isinstance(doc, dict) and doc.get("table_id") == table_id:
                return doc
            why = "not a status message of this table"
        self._refuse(table_id, f"a status message {why}", None, once=True)
        return None

    def refuse_status(self, table_id: str, why: str) -> None:
        """A signed status message left out all the same (``why``), alerted once."""
        self._refuse(table_id, f"a status message {why}", None, once=True)

    def _unsigned(self, table_id: str, data: bytes, sig: str | None, what: bytes) -> str | None:
        pub = self.trust.key(table_id)
        if pub is None:
            return "from a table with no registered key (tablesim studio register-key)"
        return signing.verify(pub, data, sig, what)

    def _refuse(self, table_id: str, text: str, seq: int | None, once: bool = False) -> bool:
        floor = self.floor
        registered = self.trust.key(table_id) is not None
        if not registered and table_id not in floor.rejected and len(floor.rejected) >= NAMED:
            table_id = "*"  # (a flood under made-up ids must not grow the picture without end)
        floor.rejected[table_id] = floor.rejected.get(table_id, 0) + 1
        if once or not registered:  # one alert per table and reason: a flood must not push out the real alerts
            key = (table_id, "unregistered" if not registered else text)
            if key in self._said or len(self._said) >= 4 * NAMED:
                return False
            self._said.add(key)
        view = floor.tables.get(table_id) if registered else None
        if view is not None:
            view.alerts += 1
        floor.alerts.append({"table_id": table_id, "seq": seq, "text": f"left out: {text}"})
        return False
