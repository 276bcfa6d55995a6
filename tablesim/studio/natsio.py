"""Talking to NATS: connecting, the records stream, and reading a table's
records back (nats-py, asyncio).

Connections are made without the client's automatic reconnection: a link that
drops is closed and made again by its owner, so nothing buffered on a dead
connection is ever sent late, out of order with what was resent since.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import AsyncIterator
from urllib.parse import urlsplit

import nats
from nats.js import api
from nats.js.errors import NotFoundError

from tablecore.errors import InputError
from tablesim.studio import wire

#: how long one JetStream request may take before the link counts as down
REQUEST_TIMEOUT = 3.0


def check_url(url: str, where: str = "--studio") -> str:
    """``nats://HOST:PORT`` (or tls://); anything else is refused with the option named."""
    parts = urlsplit(url or "")
    try:
        port = parts.port
    except ValueError:
        port = None
    if parts.scheme not in ("nats", "tls") or not parts.hostname or port is None:
        raise InputError(f"{shown(url)!r} is not a NATS URL (nats://HOST:PORT)", where=where)
    return url


def shown(url: str) -> str:
    """The URL as shown, logged or sent (status messages, the console, the
    floor page): a password or token in it is never repeated."""
    parts = urlsplit(url or "")
    if "@" not in parts.netloc:
        return url
    user, _, host = parts.netloc.rpartition("@")
    name = user.split(":", 1)[0] if ":" in user else ""
    return parts._replace(netloc=f"{name + ':' if name else ''}***@{host}").geturl()


async def quiet(exc: Exception) -> None:
    """nats-py's error callback: the owner of the connection reports failures itself."""


async def connect(url: str, name: str, timeout: float = 2.0) -> nats.NATS:
    """One attempt (no reconnecting, see above); raises if the broker is not there."""
    return await nats.connect(url, name=name, allow_reconnect=False, connect_timeout=max(1, int(timeout)),
                              max_reconnect_attempts=1, reconnect_time_wait=0, error_cb=quiet)


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


async def read_messages(js, filter_subject: str | None, *, batch: int = 500, start_seq: int | None = None,
                        upto: int | None = None) -> AsyncIterator[StreamMsg]:
    """Every stored message on ``filter_subject``, in stream order, up to what
    the stream held when reading started (an ephemeral consumer, no acks)."""
    config = api.ConsumerConfig(
        ack_policy=api.AckPolicy.NONE, inactive_threshold=60.0, filter_subject=filter_subject,
        deliver_policy=api.DeliverPolicy.BY_START_SEQUENCE if start_seq else api.DeliverPolicy.ALL,
        opt_start_seq=start_seq, max_waiting=1,
    )
    sub = await js.pull_subscribe(filter_subject, stream=wire.STREAM, config=config)
    try:
        info = await sub.consumer_info()
        pending = info.num_pending
        while pending > 0:
            try:
                msgs = await sub.fetch(min(batch, pending), timeout=REQUEST_TIMEOUT)
            except asyncio.TimeoutError:
                break
            for msg in msgs:
                meta = msg.metadata
                if upto is not None and meta.sequence.stream > upto:
                    return
                headers = msg.headers or {}
                yield StreamMsg(meta.sequence.stream, msg.subject, headers.get(wire.MSG_ID), msg.data,
                                headers.get(wire.SIG_HEADER))
                pending = meta.num_pending
    finally:
        try:
            await sub.unsubscribe()
        except Exception:  # the connection may be gone: the consumer then expires on its own
            pass


async def table_messages(js, table_id: str, kinds: set[str]) -> list[StreamMsg]:
    """Every record message of one table, in stream order. One reader per
    kind (a consumer's filter must be a subset of one stream subject on
    nats-server 2.9), merged by stream sequence."""
    out: list[StreamMsg] = []
    for kind in sorted(kinds):
        out.extend([m async for m in read_messages(js, wire.record_subject(table_id, kind))])
    out.sort(key=lambda m: m.stream_seq)
    return out
