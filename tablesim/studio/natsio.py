"""Talking to NATS: connecting, the records stream, and reading a table's
records back (nats-py, asyncio).

Connections are made without the client's automatic reconnection: a link that
drops is closed and made again by its owner, so nothing buffered on a dead
connection is ever sent late, out of order with what was resent since.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from dataclasses import dataclass
from typing import AsyncIterator, Awaitable, Callable, TypeVar

import nats
from nats.js import api
from nats.js.errors import NotFoundError

from tablecore import natsurl
from tablecore.errors import InputError
from tablesim.studio import wire

T = TypeVar("T")

#: how long one JetStream request may take before the link counts as down
REQUEST_TIMEOUT = 3.0


def check_url(url: str, where: str = "--studio") -> str:
    """``nats://HOST:PORT`` (or tls://), or several, comma-separated (the
    nodes of a cluster); anything else is refused with the option named."""
    why, urls = natsurl.check(url)
    if why is not None:
        raise InputError(why, where=where)
    return urls


def servers(url: str) -> list[str]:
    return natsurl.split(url)


def inbox_prefix(url: str) -> str:
    """The connection's reply inbox prefix: the user's own where the URL names one."""
    return natsurl.inbox_prefix(url)


def shown(url: str) -> str:
    """The URL(s) as shown, logged or sent (status messages, the console, the
    floor page): a password or token in it is never repeated."""
    return natsurl.shown(url)


async def quiet(exc: Exception) -> None:
    """nats-py's error callback: the owner of the connection reports failures itself."""


async def connect(url: str, name: str, timeout: float = 2.0, error_cb=quiet) -> nats.NATS:
    """One attempt at each listed node in turn (no reconnecting, see above);
    raises if none is there. The client also learns the cluster's other nodes
    from the one it reaches, for its owner's next attempt."""
    return await nats.connect(servers(url), name=name, allow_reconnect=False, connect_timeout=max(1, int(timeout)),
                              inbox_prefix=natsurl.inbox_prefix(url),
                              max_reconnect_attempts=1, reconnect_time_wait=0, error_cb=error_cb)


class Refused(Exception):
    """The broker refused this user a subject (a permissions violation):
    asking again cannot help, so it is said at once, in these words."""

    def __init__(self, violation: str) -> None:
        super().__init__(f"the studio's NATS refused this user: {violation}")


#: how nats-py words the broker's refusal of a subject to a user
PERMISSIONS = "permissions violation"


@contextlib.asynccontextmanager
async def one_shot(url: str, name: str, timeout: float = 2.0) -> AsyncIterator[nats.NATS]:
    """A connection for one job of a command (``studio init``, a report, the
    anchor). A subject the broker refuses this user stops the job at once
    with ``Refused``: the broker answers a refused publish or subscription
    with an error on the connection and never answers the request itself,
    which would otherwise wait out its timeout and be retried as if a leader
    election were under way (20 s for ``studio register-key`` as a user
    that may not register keys)."""
    task = asyncio.current_task()
    refusal: list[str] = []

    async def on_error(exc: Exception) -> None:
        if PERMISSIONS in str(exc).lower() and not refusal and task is not None:
            refusal.append(str(exc).removeprefix("nats: "))
            task.cancel()

    nc = await connect(url, name, timeout, error_cb=on_error)
    try:
        yield nc
    except asyncio.CancelledError:
        if refusal and task is not None and task.uncancel() == 0:
            raise Refused(refusal[0]) from None
        raise
    finally:
        await nc.close()


async def connect_following(url: str, name: str, **callbacks) -> nats.NATS:
    """A connection that reconnects by itself, to any node of the cluster
    (a reader such as the studio's consumer: it sends nothing that could go
    out late)."""
    return await nats.connect(servers(url), name=name, max_reconnect_attempts=-1, reconnect_time_wait=0.5,
                              inbox_prefix=natsurl.inbox_prefix(url),
                              connect_timeout=2, error_cb=quiet, **callbacks)


#: how long a one-shot reader (the anchor, the report, the start's check) rides out a leader election
ELECTION_BUDGET = 20.0


async def close(nc, timeout: float = 2.0) -> None:
    """Close ``nc``, waiting at most ``timeout`` seconds, whatever the close meets.

    Under load (seen with a cluster's leader killed and the machine full), nats-py's
    close can end in a ``CancelledError`` of its own: its transport's close waiter is
    cancelled under it. That error is no ``Exception``; it went out of the reconnecting
    loop's ``finally`` and ended the loop for good (the floor never followed the
    stream again). It is swallowed here unless the caller's own task is being
    cancelled (a stop), which it still ends."""
    try:
        await asyncio.wait_for(nc.close(), timeout)
    except asyncio.CancelledError:
        task = asyncio.current_task()
        if task is not None and task.cancelling():
            raise
    except Exception:
        pass


def transient(exc: BaseException) -> bool:
    """A failure a leader election causes (the stream or the cluster's
    meta leader away for seconds): a request timing out, "no responders",
    "JetStream temporarily unavailable", the connected node gone. Not: no
    node reachable at all (that is said at once)."""
    from nats.js.errors import APIError

    if isinstance(exc, nats.errors.NoServersError):
        return False
    if isinstance(exc, APIError):
        return exc.code == 503 or exc.err_code == 10008
    return isinstance(exc, (StaleRead, asyncio.TimeoutError, TimeoutError, nats.errors.NoRespondersError,
                            nats.errors.ConnectionClosedError, nats.errors.StaleConnectionError))


async def retrying(attempt: Callable[[], Awaitable[T]], budget: float = ELECTION_BUDGET) -> T:
    """``attempt()`` again (on a new connection: it makes its own) after a
    transient failure, until ``budget`` seconds are spent."""
    deadline = time.monotonic() + budget
    while True:
        try:
            return await attempt()
        except Exception as exc:
            if not transient(exc) or time.monotonic() >= deadline:
                raise
        await asyncio.sleep(0.25)


#: while the stream may be electing a leader, a request is asked again this often (each waits REQUEST_TIMEOUT)
ASK_AGAIN = 0.5


async def first_answer(ask: Callable[[], Awaitable[T]], every: float = ASK_AGAIN,
                       window: float = REQUEST_TIMEOUT) -> T:
    """The first answer to ``ask()``, asked again every ``every`` s while none
    came (the earlier asks still wait), for ``window`` s in all.

    A request sent while the stream has no leader is never answered: one
    ask waiting its whole timeout would cost up to that long after the new
    leader was there. Asked again, the answer comes within ``every`` s of
    the stream having a leader. Only for looks at the stream, never for a
    publish: records sent again every half second through elections left
    the replicas of a stream numbering its messages differently
    (nats-server 2.9.10), so a publish is sent again only by a new
    session, after its ack timed out."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + window
    next_ask = loop.time()
    tasks: list[asyncio.Future] = []
    last: BaseException = nats.errors.TimeoutError()
    try:
        while loop.time() < deadline:
            if loop.time() >= next_ask:
                tasks.append(asyncio.ensure_future(ask()))
                next_ask += every
            done, _ = await asyncio.wait(tasks, timeout=max(0.0, min(next_ask, deadline) - loop.time()),
                                         return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                tasks.remove(task)
                exc = task.exception()
                if exc is None:
                    return task.result()
                if not transient(exc):
                    raise exc
                last = exc
        raise last
    finally:
        for task in tasks:
            task.cancel()


async def stream_info_or_none(js):
    """The records stream's info (None: there is no such stream yet)."""
    try:
        return await js.stream_info(wire.STREAM)
    except NotFoundError:
        return None


async def ensure_stream(js, kinds: set[str] | None = None) -> list[str]:
    """Create the records stream if it is missing, and make it take the record
    subjects of ``kinds``. An operator's own settings (replicas, limits) are
    kept: only missing subjects are added."""
    wanted = wire.stream_subjects(sorted(set(wire.RECORD_KINDS) | (kinds or set())))
    try:
        info = await js.stream_info(wire.STREAM)
    except NotFoundError:
        await js.add_stream(name=wire.STREAM, subjects=wanted, storage=api.StorageType.FILE,
                            duplicate_window=120.0)
        return wanted
    have = list(info.config.subjects or [])
    missing = [s for s in wanted if s not in have]
    if missing:
        info.config.subjects = have + missing
        await js.update_stream(info.config)
    return have + missing


def stream_kinds(subjects: list[str]) -> set[str]:
    return {s.rsplit(".", 1)[-1] for s in subjects if s.startswith("tablesim.*.")}


@dataclass(frozen=True)
class StreamMsg:
    stream_seq: int
    subject: str
    msg_id: str | None
    data: bytes
    sig: str | None = None  # the Tablesim-Sig header (tablesim.studio.signing)


class StaleRead(Exception):
    """A read of the stream came up short of what its leader says it holds:
    the reader's consumer was served by a replica still catching up (after a
    node's restart). Transient: read again."""


async def _expected(js, filter_subject: str | None) -> tuple[int, int]:
    """(messages on ``filter_subject``, last stream sequence), as the stream's leader says."""
    if filter_subject is None:
        info = await js.stream_info(wire.STREAM)
        return info.state.messages, info.state.last_seq
    info = await js.stream_info(wire.STREAM, subjects_filter=filter_subject)
    return sum((info.state.subjects or {}).values()), info.state.last_seq


async def read_messages(js, filter_subject: str | None, *, batch: int = 500, start_seq: int | None = None,
                        upto: int | None = None) -> AsyncIterator[StreamMsg]:
    """Every stored message on ``filter_subject``, in stream order, up to what
    the stream held when reading started (an ephemeral consumer, no acks).

    A read from the start is held against the count the stream's leader
    gives: a consumer is served from its own node's copy of the stream, and
    a node that was restarted may lack messages until it caught up; a short
    read raises StaleRead (read again) rather than pass for the whole.

    The reader's name is new (random, so no other user of the bus can guess
    it) and chosen here, before asking, so that a reader whose creation
    timed out (its request may still be carried out) is removed all the same."""
    expected, last = await _expected(js, filter_subject) if not start_seq or start_seq <= 1 else (None, 0)
    name = f"tablesim-reader-{secrets.token_hex(8)}"
    config = api.ConsumerConfig(
        name=name, ack_policy=api.AckPolicy.NONE, inactive_threshold=60.0, filter_subject=filter_subject,
        deliver_policy=api.DeliverPolicy.BY_START_SEQUENCE if start_seq else api.DeliverPolicy.ALL,
        opt_start_seq=start_seq, max_waiting=1,
    )
    seen, sub = 0, None
    try:
        sub = await _reader(js, config)
        info = await sub.consumer_info()
        pending = info.num_pending
        while pending > 0:
            # A fetch that times out while messages are pending (the stream's
            # leader changing) raises: a reader must never take part of the
            # stream for all of it (its owner retries).
            msgs = await sub.fetch(min(batch, pending), timeout=REQUEST_TIMEOUT)
            for msg in msgs:
                meta = msg.metadata
                if upto is not None and meta.sequence.stream > upto:
                    return
                seen += meta.sequence.stream <= last
                headers = msg.headers or {}
                yield StreamMsg(meta.sequence.stream, msg.subject, headers.get(wire.MSG_ID), msg.data,
                                headers.get(wire.SIG_HEADER))
                pending = meta.num_pending
        if expected is not None and seen < expected:
            raise StaleRead(f"read {seen} of the {expected} messages the stream holds on {filter_subject or 'it'}: "
                            "a node still catching up served the read")
    finally:
        try:
            if sub is not None:
                await sub.unsubscribe()
            # (gone at once: on a cluster every consumer is the meta leader's work)
            await asyncio.wait_for(js.delete_consumer(wire.STREAM, name), 1.0)
        except Exception:  # the connection may be gone: the consumer then expires on its own
            pass


async def _reader(js, config: api.ConsumerConfig):
    """The pull subscription of a new reader made with ``config``."""
    await js.add_consumer(wire.STREAM, config=config)
    return await js.pull_subscribe_bind(consumer=config.name, stream=wire.STREAM)


async def table_messages(js, table_id: str, kinds: set[str]) -> list[StreamMsg]:
    """Every record message of one table, in stream order. One reader per
    kind (a consumer's filter must be a subset of one stream subject on
    nats-server 2.9), merged by stream sequence.

    Each reader is served from its own node's copy of the stream, and after
    a leader was killed under load the copies of a replicated stream were
    seen to number the same messages differently: merged, readers served by
    two nodes put the table's records out of order, a different order at
    each read (each node's copy held them in order; nothing was lost). So a
    merge that is not in the table's own order is read again from the
    stream's leader, one message after another (slow for a long stream, and
    only then): what the leader holds is the stream's order."""
    out: list[StreamMsg] = []
    for kind in sorted(kinds):
        out.extend([m async for m in read_messages(js, wire.record_subject(table_id, kind))])
    out.sort(key=lambda m: m.stream_seq)
    if _in_order(table_id, out):
        return out
    return await leader_messages(js, table_id, kinds)


def _in_order(table_id: str, msgs: list[StreamMsg]) -> bool:
    """Whether the messages' ids name the table's records one after another,
    each once (from wherever the stream begins the table)."""
    prefix, last = f"{table_id}:", None
    for m in msgs:
        seq = m.msg_id[len(prefix):] if m.msg_id and m.msg_id.startswith(prefix) else ""
        if not seq.isdigit() or (last is not None and int(seq) != last + 1):
            return False
        last = int(seq)
    return True


async def own_message(js, table_id: str, seq: int) -> StreamMsg | None:
    """The stream's message ``seq`` if it is on the table's own subjects, read
    through a reader filtered on them: a table's user may not read the stream
    by message number (that API reads any table's messages, a face-down card
    among them: ``credentials``)."""
    async for msg in read_messages(js, wire.table_filter(table_id), start_seq=seq, upto=seq):
        if msg.stream_seq == seq:
            return msg
    return None


def closed(url: str) -> bool:
    """Whether a connection with these URLs runs under a role of the closed bus (its URL names a user):
    it may use only what its role's permissions give (``credentials``)."""
    return natsurl.inbox_prefix(url) != "_INBOX"


async def leader_messages(js, table_id: str, kinds: set[str], start_seq: int = 1,
                          limit: int | None = None) -> list[StreamMsg] | None:
    """The table's record messages from ``start_seq``, as the stream's leader
    holds them: each asked of it as the next one on the table's subjects
    (None: more than ``limit``)."""
    subjects = {wire.record_subject(table_id, k) for k in kinds}
    out: list[StreamMsg] = []
    seq = max(start_seq, 1)
    while True:
        try:
            raw = await js.get_msg(wire.STREAM, seq=seq, next=True, subject=wire.table_filter(table_id))
        except NotFoundError:  # none after seq
            return out
        if limit is not None and len(out) >= limit:
            return None
        if raw.subject in subjects:
            headers = raw.headers or {}
            out.append(StreamMsg(raw.seq, raw.subject, headers.get(wire.MSG_ID), raw.data or b"",
                                 headers.get(wire.SIG_HEADER)))
        seq = raw.seq + 1
