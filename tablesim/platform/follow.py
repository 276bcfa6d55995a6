"""Each platform process reads the whole stream, in order, into its own
picture of the tables and rounds (``Rounds``): an ephemeral pull consumer
without acks, made again from the next stream seq whenever the connection
or the consumer is lost.

Only what a table signed counts: a message whose subject, message id and
record disagree, of a table with no registered key, unsigned or badly
signed is left out and counted (``rejected``), so a forged result never
pays and a forged bet record never stands for a bet.

A replicated stream can be numbered anew under a reader (a new leader that
lacked the last messages its predecessor handed out numbers the next ones
in their place): a reader that goes on from its stream seq after a
reconnection would pass over them for good, a round's bets or result among
them. So the message read last is held against the one the stream's
leader has there, at each reconnection or once the stream reaches it
again; another one there makes the whole stream read again, and a table's
record is applied only once, by the table's own seq, whatever its stream
seq.
"""

from __future__ import annotations

import asyncio
import logging

from nats.js import api
from nats.js.errors import NotFoundError

from tablecore import betbatch
from tablesim.platform.pull import Lost, Pull, make_consumer, pending_of, stream_seq_of
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
        self.again = 0  # records applied before, read again under another stream seq (not applied twice)
        self.renumbered = 0  # times the stream was found numbered anew (and read again whole)
        self._last_id: str | None = None  # the id of the message read last (at ``rounds.stream_seq``)
        self._place: tuple[int, str] | None = None  # a place to hold against the stream once it reaches it
        self._from_first = False  # the stream to be read again whole at the next consumer

    def read_also(self, names) -> None:
        """Read (and check) these record names too: what another reader of the picture shows (the players' hub)."""
        self.names = tuple(dict.fromkeys((*self.names, *names)))

    async def wait_for_record(self, table: str, seq: int) -> None:
        """Until the picture holds the table's record ``seq`` (and its records before it)."""
        async with self._moved:
            await self._moved.wait_for(lambda: self.rounds.table_seq.get(table, 0) >= seq)

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
        if self._last_id is not None and self.rounds.stream_seq and not self._from_first:
            self._place = (self.rounds.stream_seq, self._last_id)
        await self._same_place(js)
        start = 1 if self._from_first else self.rounds.stream_seq + 1
        if self._from_first:
            self.rounds.stream_seq, self._from_first = 0, False
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

    async def _same_place(self, js, past: bool = False) -> bool:
        """The place to check, if the stream holds it: whether another
        message is there than the one read there (the stream is then read
        again whole, from the next consumer on). One not there is checked
        again once the reader is ``past`` it; then it was deleted."""
        if self._place is None:
            return False
        seq, read = self._place
        try:
            there = await js.get_msg(wire.STREAM, seq)
        except NotFoundError:
            if past:
                self._place = None
            return False
        self._place = None
        found = (there.headers or {}).get(wire.MSG_ID)
        if found == read:
            return False
        self.renumbered += 1
        self._from_first = True
        log.warning("platform: stream message %d is %s where %s was read: the stream was numbered anew; "
                    "it is read again whole", seq, found, read)
        return True

    async def _batch(self, msgs: list) -> None:
        self.fetches += 1
        for msg in msgs:
            self._take(msg)
        if self._place is not None and self.rounds.stream_seq >= self._place[0] \
                and await self._same_place(self.js_source(), past=True):
            raise Lost("the stream was numbered anew")
        async with self._moved:
            self._moved.notify_all()
        if pending_of(msgs[-1]) == 0:
            self.caught_up.set()
        self.rounds.forget_old()

    def _take(self, msg) -> None:
        seq = stream_seq_of(msg)
        if seq <= self.rounds.stream_seq:
            return  # (read again after a reconnection)
        self._last_id = msg.headers.get(wire.MSG_ID) if msg.headers else None
        if msg.subject.endswith(SKIPPED) and _name_of(msg.data) != betbatch.NAME:
            # (the tables' inputs: nothing here acts on them, none is checked, but a group of bets)
            self.rounds.stream_seq = seq
            return
        got = signed_record(self.trust, msg.subject, msg.headers, msg.data, self.names)
        if got is None:
            pass
        elif isinstance(got, str):
            self.rejected += 1
            log.warning("platform: left out stream message %s: %s", seq, got)
        elif got.seq <= self.rounds.table_seq.get(got.table_id, 0):
            self.again += 1  # (applied before under another stream seq: the stream read again)
        else:
            self.rounds.apply(got, seq)
        self.rounds.stream_seq = seq
