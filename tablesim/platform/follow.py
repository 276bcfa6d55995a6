"""Each platform process reads the whole stream, in order, into its own
picture of the tables and rounds (``Rounds``): an ephemeral pull consumer
without acks, made again from the next stream seq whenever the connection
or the consumer is lost.

Only what a table signed counts: a message whose subject, message id and
record disagree, of a table with no registered key, unsigned or badly
signed is left out and counted (``rejected``), so a forged result never
pays and a forged bet record never stands for a bet.
"""

from __future__ import annotations

import asyncio
import logging

from nats.js import api

from tablesim.platform.pull import Pull, make_consumer, pending_of, stream_seq_of
from tablesim.platform.rounds import APPLIED, Rounds
from tablesim.studio import signing, wire
from tablesim.studio.trust import Trust

log = logging.getLogger("tablesim.platform")

FETCH = 1000
#: the record kinds the picture takes nothing from
SKIPPED = (".input",)


def signed_record(trust: Trust, subject: str, headers: dict | None, data: bytes,
                  names: tuple[str, ...] | None = None) -> wire.WireRecord | str | None:
    """The record if its table signed it, else why not; None for a record
    whose name is not one of ``names`` (nothing is taken from it: its
    signature is not checked, a check of every bet's record costing more
    than the rest of the picture)."""
    if names is not None:
        peeked = _name_of(data)
        if peeked is not None and peeked not in names:
            return None
    parts = subject.split(".")
    table = parts[1] if len(parts) == 3 else "?"
    try:
        rec = wire.decode(data)
    except ValueError as exc:
        return f"no record: {exc}"
    headers = headers or {}
    if (rec.table_id, rec.kind) != (table, parts[-1]) or headers.get(wire.MSG_ID) != wire.msg_id(table, rec.seq):
        return f"{subject} does not match the record it holds (table {rec.table_id}, record {rec.seq})"
    if names is not None and rec.name not in names:
        return None
    pub = trust.key(table)
    if pub is None:
        return f"table {table} has no registered key"
    why = signing.verify(pub, data, headers.get(wire.SIG_HEADER), signing.RECORD)
    return rec if why is None else f"record {rec.seq} of {table} is {why}"


def _name_of(data: bytes) -> str | None:
    """A record's name read off its message body without parsing it (None if
    it cannot be). The body is canonical JSON whose record's ``data`` is a
    JSON string (its quotes escaped), so ``"name":"`` unescaped occurs once,
    in the record's own name: a record read by this name is read whole; one
    passed over is one that the whole read would have passed over too."""
    at = data.find(b'"name":"')
    if at < 0:
        return None
    end = data.find(b'"', at + 8)
    return data[at + 8:end].decode("utf-8", "replace") if end > 0 else None


class Follower:
    def __init__(self, js_source, trust: Trust, rounds: Rounds, nc_source) -> None:
        self.js_source = js_source  # () -> the JetStream context of the current connection
        self.nc_source = nc_source  # () -> that connection
        self.trust = trust
        self.rounds = rounds
        self.rejected = 0
        self.fetches = 0  # groups of messages read (for the health page)
        # the record names read (their signatures checked); the rest is passed over unread
        self.names: tuple[str, ...] = APPLIED
        self.caught_up = asyncio.Event()
        self._moved = asyncio.Condition()

    def read_also(self, names) -> None:
        """Read (and check) these record names too: what another reader of the picture shows (the players' hub)."""
        self.names = tuple(dict.fromkeys((*self.names, *names)))

    async def wait_past(self, stream_seq: int) -> None:
        """Until the picture holds every message up to ``stream_seq``."""
        async with self._moved:
            await self._moved.wait_for(lambda: self.rounds.stream_seq >= stream_seq)

    async def run(self) -> None:
        while True:
            try:
                await self._follow(self.js_source())
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the broker away, the consumer lost: made again from where it was
                log.info("platform: reading the stream: %s", f"{type(exc).__name__}: {exc}")
                await asyncio.sleep(0.5)

    async def _follow(self, js) -> None:
        start = self.rounds.stream_seq + 1
        config = api.ConsumerConfig(ack_policy=api.AckPolicy.NONE, inactive_threshold=60.0,
                                    deliver_policy=api.DeliverPolicy.BY_START_SEQUENCE, opt_start_seq=start)
        name = await make_consumer(js, wire.STREAM, config)
        try:
            await Pull(self.nc_source(), wire.STREAM, name, self._batch, batch=FETCH,
                       idle=self.caught_up.set, own=True).run()
        finally:
            try:
                await js.delete_consumer(wire.STREAM, name)
            except Exception:  # (gone with the connection: the server drops it once inactive)
                pass

    async def _batch(self, msgs: list) -> None:
        self.fetches += 1
        for msg in msgs:
            self._take(msg)
        async with self._moved:
            self._moved.notify_all()
        if pending_of(msgs[-1]) == 0:
            self.caught_up.set()
        self.rounds.forget_old()

    def _take(self, msg) -> None:
        seq = stream_seq_of(msg)
        if seq <= self.rounds.stream_seq:
            return  # (read again after a reconnection)
        if msg.subject.endswith(SKIPPED):  # (the tables' inputs: nothing here acts on them, none is checked)
            self.rounds.stream_seq = seq
            return
        got = signed_record(self.trust, msg.subject, msg.headers, msg.data, self.names)
        if got is None:
            pass
        elif isinstance(got, str):
            self.rejected += 1
            log.warning("platform: left out stream message %s: %s", seq, got)
        else:
            self.rounds.apply(got, seq)
        self.rounds.stream_seq = seq
