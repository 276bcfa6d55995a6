"""The tables' public keys in the studio's JetStream key-value bucket
(``TABLESIM_KEYS``, made by ``tablesim studio init``): one entry per table
id, its value the public key file ``tablesim keys export-public`` writes.

``tablesim studio register-key --nats URL`` writes it (a key already there
is replaced only with ``--replace``, checked against the entry's revision so
two operators cannot overwrite each other unseen); the studio reads it
beside its keys file. Only the studio's operator may write the bucket: the
tables', platform's and studio's users have no permission on it
(config/nats/users.conf), so whoever publishes on the bus cannot register a
key.
"""

from __future__ import annotations

import json

from nats.js import api
from nats.js.errors import KeyWrongLastSequenceError, NotFoundError

from tablecore.errors import InputError
from tablesim.journal.keys import TABLE_ID
from tablesim.studio import natsio, signing, trust
from tablesim.studio.setup import KEYS_BUCKET

STREAM = f"KV_{KEYS_BUCKET}"
PREFIX = f"$KV.{KEYS_BUCKET}."


def entry(table_id: str, hex_key: str) -> bytes:
    return trust.public_key_document(table_id, hex_key).encode()


def parse(table_id: str, value: bytes) -> str:
    """The key hex of a bucket entry (ValueError if it is not the table's key file)."""
    doc = json.loads(value)
    if not isinstance(doc, dict) or doc.get("v") != trust.VERSION or doc.get("table_id") != table_id:
        raise ValueError("not the table's public key file")
    signing.public_key(doc.get("ed25519"))
    return doc["ed25519"]


async def bucket_stamp(js) -> int | None:
    """The bucket's last sequence (changes with every write); None: no bucket."""
    try:
        return (await js.stream_info(STREAM)).state.last_seq
    except NotFoundError:
        return None


async def bucket_keys(js) -> dict[str, str]:
    """table id -> key hex, as the bucket holds them now (no bucket: none).
    An entry that is not a table's key file is left out (logged by the caller)."""
    if await bucket_stamp(js) is None:
        return {}
    config = api.ConsumerConfig(ack_policy=api.AckPolicy.NONE, inactive_threshold=60.0,
                                deliver_policy=api.DeliverPolicy.LAST_PER_SUBJECT, filter_subject=PREFIX + ">",
                                max_waiting=1)
    sub = await js.pull_subscribe(PREFIX + ">", stream=STREAM, config=config)
    out: dict[str, str] = {}
    try:
        pending = (await sub.consumer_info()).num_pending
        while pending > 0:
            for msg in await sub.fetch(min(pending, 500), timeout=natsio.REQUEST_TIMEOUT):
                pending = msg.metadata.num_pending
                table_id = msg.subject[len(PREFIX):]
                if (msg.headers or {}).get("KV-Operation") in ("DEL", "PURGE"):
                    out.pop(table_id, None)
                    continue
                try:
                    if not TABLE_ID.fullmatch(table_id):
                        raise ValueError("not a table id")
                    out[table_id] = parse(table_id, msg.data)
                except ValueError:
                    continue
    finally:
        try:
            await sub.unsubscribe()
        except Exception:
            pass
    return out


async def register(url: str, table_id: str, hex_key: str, replace: bool) -> str:
    async with natsio.one_shot(url, "tablesim-register-key") as nc:
        js = nc.jetstream(timeout=natsio.REQUEST_TIMEOUT)
        try:
            kv = await js.key_value(KEYS_BUCKET)
        except NotFoundError:
            raise InputError(f"the studio's NATS has no bucket {KEYS_BUCKET}: run tablesim studio init first") from None
        try:
            current = await kv.get(table_id)
        except NotFoundError:
            current = None
        if current is not None and current.value:
            try:
                old = parse(table_id, current.value)
            except ValueError:
                old = None
            if old == hex_key:
                return f"{table_id}: this key is already registered (bucket {KEYS_BUCKET})"
            if not replace:
                raise InputError(f"{table_id} has another key registered in bucket {KEYS_BUCKET}: give --replace to "
                                 "change it (a new table PC)")
            try:
                await kv.update(table_id, entry(table_id, hex_key), last=current.revision)
            except KeyWrongLastSequenceError:
                raise InputError(f"{table_id}'s key in bucket {KEYS_BUCKET} changed meanwhile: look, then run again") from None
            return f"{table_id}: key replaced (bucket {KEYS_BUCKET})"
        try:
            await kv.create(table_id, entry(table_id, hex_key))
        except KeyWrongLastSequenceError:
            raise InputError(f"{table_id}'s key in bucket {KEYS_BUCKET} was registered meanwhile: run again") from None
        return f"{table_id}: key registered (bucket {KEYS_BUCKET})"


def merged(file_keys: trust.Trust, bucket: dict[str, str]) -> tuple[trust.Trust, list[str]]:
    """The keys file's and the bucket's keys as one; a table both register
    with different keys is left out (neither counts: one of them was changed
    without the other), with the reason."""
    out, conflicts = trust.Trust(), []
    for table_id, hex_key in file_keys.hexes.items():
        out.add(table_id, hex_key)
    for table_id, hex_key in bucket.items():
        if table_id in out.hexes and out.hexes[table_id] != hex_key:
            conflicts.append(f"{table_id}: the keys file and bucket {KEYS_BUCKET} register different keys; "
                             "neither counts until one is corrected")
            del out.hexes[table_id]
            del out.keys[table_id]
        elif table_id not in file_keys.hexes:
            out.add(table_id, hex_key)
    return out, conflicts



async def keys_at(url: str) -> dict[str, str]:
    """The bucket's keys, on a connection of its own (``studio report``, the anchor)."""
    async with natsio.one_shot(url, "tablesim-keys") as nc:
        return await bucket_keys(nc.jetstream(timeout=natsio.REQUEST_TIMEOUT))
