"""``tablesim studio init``: the records stream and the bucket of the
tables' public keys, created or brought to what the operator asks, on one
broker or a cluster (``--replicas``).

Idempotent: run again with the same options it changes nothing and says so.
It never makes a change that would lose records: a limit below what the
stream holds, a subject set other than the records' (the stream's subjects
are only ever added to), a retention that removes what was read, a memory
store. Such a change is refused in one line, nothing changed: the stream is
the anchor of every table's journal.
"""

from __future__ import annotations

from dataclasses import dataclass

from nats.js import api
from nats.js.errors import BucketNotFoundError, NotFoundError

from tablecore.errors import InputError
from tablesim.studio import natsio, wire

#: the JetStream key-value bucket of the tables' registered public keys
KEYS_BUCKET = "TABLESIM_KEYS"
#: the revisions of a table's key kept in the bucket (a replaced key stays on record)
KEYS_HISTORY = 10
#: the stream's duplicate window (seconds): a resend within it is stored once
DUPLICATE_WINDOW = 120.0


@dataclass(frozen=True)
class Wanted:
    replicas: int = 1
    max_msgs: int | None = None  # None: no limit (or the one the stream has)
    max_bytes: int | None = None


def _record_subject(subject: str) -> bool:
    parts = subject.split(".")
    return len(parts) == 3 and parts[:2] == ["tablesim", "*"] and parts[2] not in ("bets", "status", "*", ">")


def plan(config: api.StreamConfig, state: api.StreamState, wanted: Wanted) -> tuple[api.StreamConfig, list[str]]:
    """The existing stream's config brought to ``wanted``, and the changes in
    words; InputError for one that would lose records."""
    have = list(config.subjects or [])
    other = [s for s in have if not _record_subject(s)]
    if other:
        raise InputError(f"stream {wire.STREAM} takes {', '.join(other)} besides the records' subjects: a different "
                         "subject set (init only adds the record subjects, it never changes others)")
    if config.retention not in (None, api.RetentionPolicy.LIMITS):
        raise InputError(f"stream {wire.STREAM} has retention {config.retention.value}: it removes records once read; "
                         "the anchor needs limits retention (a new stream)")
    if config.storage == api.StorageType.MEMORY:
        raise InputError(f"stream {wire.STREAM} is kept in memory: a restart loses every record (a new stream, on file)")
    for name, limit, held in (("max_msgs", wanted.max_msgs, state.messages), ("max_bytes", wanted.max_bytes, state.bytes)):
        if limit is not None and limit >= 0 and limit < held:
            raise InputError(f"--{name.replace('_', '-')} {limit}: stream {wire.STREAM} holds {held}; a lower limit "
                             "would lose records")
    changes = []
    missing = [s for s in wire.stream_subjects() if s not in have]
    if missing:
        config.subjects = have + missing
        changes.append(f"subjects {', '.join(missing)} added")
    if (config.num_replicas or 1) != wanted.replicas:
        changes.append(f"replicas {config.num_replicas or 1} -> {wanted.replicas}")
        config.num_replicas = wanted.replicas
    for name in ("max_msgs", "max_bytes"):
        limit = getattr(wanted, name)
        if limit is not None and limit != (getattr(config, name) if getattr(config, name) is not None else -1):
            changes.append(f"{name} {getattr(config, name)} -> {limit}")
            setattr(config, name, limit)
            config.discard = api.DiscardPolicy.NEW  # (full: refuse new records, which wait in the journals)
    if (config.duplicate_window or 0) < DUPLICATE_WINDOW:
        changes.append(f"duplicate window {config.duplicate_window or 0:g} s -> {DUPLICATE_WINDOW:g} s")
        config.duplicate_window = DUPLICATE_WINDOW
    return config, changes


async def init(url: str, wanted: Wanted) -> list[str]:
    """Create or update the stream and the keys bucket; what was done, in lines."""
    async with natsio.one_shot(url, "tablesim-studio-init") as nc:
        js = nc.jetstream(timeout=10.0)  # (a replicated create waits for its peers)
        return [await _stream(js, wanted), await _bucket(js, wanted)]


def _describe(config: api.StreamConfig) -> str:
    limits = ", ".join(f"{n} {v}" for n, v in (("max_msgs", config.max_msgs), ("max_bytes", config.max_bytes))
                       if v is not None and v >= 0) or "no limits"
    return f"{config.num_replicas or 1} replica(s), {limits}, subjects {', '.join(config.subjects or [])}"


async def _stream(js, wanted: Wanted) -> str:
    try:
        info = await js.stream_info(wire.STREAM)
    except NotFoundError:
        limited = wanted.max_msgs is not None or wanted.max_bytes is not None
        config = api.StreamConfig(
            name=wire.STREAM, subjects=wire.stream_subjects(), storage=api.StorageType.FILE,
            retention=api.RetentionPolicy.LIMITS, num_replicas=wanted.replicas, duplicate_window=DUPLICATE_WINDOW,
            max_msgs=wanted.max_msgs if wanted.max_msgs is not None else -1,
            max_bytes=wanted.max_bytes if wanted.max_bytes is not None else -1,
            discard=api.DiscardPolicy.NEW if limited else api.DiscardPolicy.OLD)
        info = await js.add_stream(config)
        return f"stream {wire.STREAM}: created ({_describe(info.config)})"
    config, changes = plan(info.config, info.state, wanted)
    if not changes:
        return f"stream {wire.STREAM}: already as asked ({_describe(info.config)}, {info.state.messages} records)"
    info = await js.update_stream(config)
    return f"stream {wire.STREAM}: updated, {'; '.join(changes)} ({info.state.messages} records kept)"


async def _bucket(js, wanted: Wanted) -> str:
    try:
        await js.key_value(KEYS_BUCKET)
    except BucketNotFoundError:
        await js.create_key_value(bucket=KEYS_BUCKET, history=KEYS_HISTORY, replicas=wanted.replicas,
                                  storage=api.StorageType.FILE,
                                  description="tablesim: the tables' registered public keys")
        return f"bucket {KEYS_BUCKET}: created ({wanted.replicas} replica(s)), for tablesim studio register-key --nats"
    info = await js.stream_info(f"KV_{KEYS_BUCKET}")
    if (info.config.num_replicas or 1) == wanted.replicas:
        return f"bucket {KEYS_BUCKET}: already as asked ({wanted.replicas} replica(s), {info.state.messages} entries)"
    old = info.config.num_replicas or 1
    info.config.num_replicas = wanted.replicas
    await js.update_stream(info.config)
    return f"bucket {KEYS_BUCKET}: updated, replicas {old} -> {wanted.replicas}"
