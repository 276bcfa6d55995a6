"""Plugging a studio link into a running table (``run`` and ``serve``).

Before the table starts, ``hold_at_start`` holds its journal against the
stream: a stream that holds records of the table, signed by it, that the
journal lacks (a lost or older WAL, a restored older copy, an emptied or
new journal under a table id the stream knows) stops the start in one line
naming them. A broker that cannot be reached does not stop a table (it
never waits for the broker); the outbox holds the journal against the
stream again when it connects, and diverges then.
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from tablesim.engine.table import GameTable
from tablecore.errors import InputError
from tablecore.wording import CORE_WORDS as W
from tablesim.studio import natsio, presence, signing, streamcheck, wire
from tablesim.studio.outbox import Hook, StudioLink

log = logging.getLogger("tablesim.studio")
#: signing keys a table configuration names (``[studio] signing_key``), by table id
SIGNING_KEYS: dict[str, Path] = {}
#: the code of the incident a diverged studio link opens on the table's console
STUDIO_INCIDENT = 300
#: the code of the incident a studio link that stopped publishing opens (the broker away, a full stream)
STALLED_INCIDENT = 301
#: how long the start waits for the broker to hold the journal against the stream
START_TIMEOUT = 3.0


def diverged_incident(table: GameTable, link: StudioLink) -> None:
    """On the table's thread: the link diverged, an incident the dealer and
    supervisor see (not blocking: the table's own journal is sound, the
    studio's copy of it is not)."""
    table.open_incident(STUDIO_INCIDENT, W("incident.studio_diverged", error=link.error), blocking=False)


def stalled_incident(table: GameTable, link: StudioLink) -> None:
    """On the table's thread: the link has records to publish and published
    none for a while (not blocking: they wait in the journal)."""
    table.open_incident(STALLED_INCIDENT, W("incident.studio_stalled", pending=link.pending(),
                                            seconds=f"{link.stall_after:.0f}", why=link.error or link.state),
                        blocking=False)


def loud(table: GameTable, link: StudioLink, said: set[str]) -> str | None:
    """On the table's thread, whenever the link changed: the incident a
    diverged or stalled link opens, once per episode; the line to show."""
    if link.state == "diverged" and "diverged" not in said:
        said.add("diverged")
        diverged_incident(table, link)
        return f"studio: the link diverged ({link.error}): publishing stopped"
    if link.stalled and "stalled" not in said:
        said.add("stalled")
        stalled_incident(table, link)
        return f"studio: {link.pending()} records not published for {link.stall_after:.0f} s ({link.error or link.state})"
    if not link.stalled:
        said.discard("stalled")  # (published again: a later stall is a new incident)
    return None


def use_signing_key(table_id: str, path: str | Path | None) -> None:
    """The signing key a table configuration names for ``table_id``."""
    if path is not None:
        SIGNING_KEYS[table_id] = Path(path)


def signing_key_path(table_id: str, chain_key: str | Path | None = None) -> Path:
    """The configured signing key, else beside the journal chain's key."""
    if table_id in SIGNING_KEYS:
        return SIGNING_KEYS[table_id]
    if chain_key is not None:
        return Path(chain_key).parent / f"{table_id}.sign.key"
    return signing.default_signing_key_path(table_id)


def hold_at_start(url: str, journal_path: str, table_id: str, chain_key: str | Path | None = None) -> None:
    """Refuse (InputError) to start a table whose id another process is live
    under on the bus, whose stream holds another journal's chain under its
    id, or whose journal lacks records the stream holds of it, signed by it.
    Nothing is written before."""
    key_path = signing_key_path(table_id, chain_key)
    pub = signing.load_signing_key(key_path).public_key() if key_path.exists() else None
    try:
        db = wire.open_reader(journal_path) if Path(journal_path).is_file() else None
    except InputError:  # a file with no records table yet (a table killed as it first started): holds nothing
        db = None

    def bodies(first: int, last: int) -> dict[int, bytes]:
        if db is None:
            return {}
        try:
            return {seq: body for seq, _, _, body in wire.read_rows(db, first - 1, last - first + 1, last)}
        except Exception:  # an unreadable journal holds none of them (its own checks say why)
            return {}

    try:
        found = asyncio.run(asyncio.wait_for(_stream_holding(url, table_id, bodies, pub), START_TIMEOUT * 20))
    except Exception as exc:  # the broker away: the table never waits for it (the outbox checks on connecting)
        log.warning("studio: the journal was not held against the stream at start: %s", exc)
        return
    finally:
        if db is not None:
            db.close()
    _refuse(found, url, journal_path, table_id, bodies_empty=db is None)


def _refuse(found: "_AtStart", url: str, journal_path: str, table_id: str, bodies_empty: bool) -> None:
    """The one line a start is refused with, if it must be."""
    audit = f"run tablesim audit verify --anchor {natsio.shown(url)}"
    if found.live is not None:
        raise InputError(f"table {table_id} is already live on the bus ({presence.describe(found.live)}): one "
                         "process per table id; give this table another id (--table-id ID, or [table] id in its "
                         "configuration)", where=journal_path)
    if found.first is not None:
        signer = "signed by this table's key" if found.first_mine else "signed by another key"
        raise InputError(f"the studio's stream holds another journal's chain as table {table_id} (its record 1 of "
                         f"{found.first}, {signer}, is not this journal's record 1): another table runs or ran "
                         "under this id; give this table another id (--table-id ID), or name its own journal "
                         f"(--journal); {audit}", where=journal_path)
    h = found.holding
    if h is not None and h.lacked:
        why = ("the journal is empty: another journal of this table id published them (another --journal or data "
               "folder), or this one was emptied" if bodies_empty else
               "the journal lost records it had committed (a lost or older WAL, a restored older copy)")
        raise InputError(f"the studio's stream holds {streamcheck.records(h.lacked)} of {table_id}, signed by this "
                         f"table, that the journal lacks or holds otherwise: {why}; {audit}", where=journal_path)


@dataclass
class _AtStart:
    live: dict | None = None  # another process live under the table id
    first: str | None = None  # the time of the stream's record 1 of the table, where it is not the journal's
    first_mine: bool = False  # ... signed by this table's key
    holding: streamcheck.Holding | None = None


async def _stream_holding(url: str, table_id: str, bodies, pub) -> _AtStart:
    return await natsio.retrying(lambda: _stream_holding_once(url, table_id, bodies, pub))


async def _stream_holding_once(url: str, table_id: str, bodies, pub) -> _AtStart:
    nc = await natsio.connect(url, f"tablesim-start-{table_id}", timeout=START_TIMEOUT)
    found = _AtStart()
    try:
        found.live = await presence.ask(nc, table_id)
        if found.live is not None:
            return found
        js = nc.jetstream(timeout=natsio.REQUEST_TIMEOUT)
        try:
            info = await js.stream_info(wire.STREAM)
        except natsio.NotFoundError:
            return found
        kinds = natsio.stream_kinds(info.config.subjects or [])
        messages = await streamcheck.table_messages_from(js, table_id, kinds, 1,
                                                     expected=await streamcheck.stored_count(js, table_id),
                                                     direct=not natsio.closed(url))
        _first_record(found, table_id, messages, bodies, pub)
        if pub is not None:  # (a table that never signed a record has none of its own in the stream)
            found.holding = streamcheck.hold(table_id, messages, bodies, pub)
        return found
    finally:
        await nc.close()


def _first_record(found: _AtStart, table_id: str, messages, bodies, pub) -> None:
    """The stream's first record 1 of the table, where it is not the journal's
    record 1 (another journal's chain under this id): the journal holds
    another record 1, or none and the stream's is not signed by this table."""
    first = next((m for m in messages if m.msg_id == wire.msg_id(table_id, 1)), None)
    if first is None:
        return
    mine = bodies(1, 1).get(1)
    if mine == first.data:
        return
    try:
        rec = wire.decode(first.data)
    except ValueError:
        return  # not a record at all: forged, the outbox's holding names it
    signed_here = pub is not None and signing.verify(pub, first.data, first.sig) is None
    if rec.table_id != table_id or rec.seq != 1 or (mine is None and signed_here):
        return  # (this table's own record 1, which its emptied journal lacks: the holding says so)
    found.first = str(json.loads(first.data)["record"].get("ts"))[:40]
    found.first_mine = signed_here

#: how long ``tablesim run`` waits at exit for the outbox to drain (seconds)
DRAIN_SECONDS = 5.0


def start_link(table: GameTable, url: str, hooks: list[Hook] | None = None,
               on_change: Callable[[], None] | None = None) -> StudioLink:
    """Start publishing ``table``'s journal to the studio at ``url``."""
    journal = table.journal
    if journal is None or journal.path == ":memory:":
        raise InputError("--studio needs a journal file: the studio publishes the table's journal")
    link = StudioLink(url, journal.path, table.table_id, hooks=hooks, game=table.game, on_change=on_change,
                      signing_key=signing_key_path(table.table_id, journal.key_path(table.table_id))).start()
    journal.on_commit.append(link.wake)  # a hint only: the outbox reads the committed records itself
    return link


def stop_link(link: StudioLink) -> str:
    """Stop the link, waiting up to DRAIN_SECONDS for the outbox to drain;
    what to tell the operator."""
    remaining = link.stop(drain=DRAIN_SECONDS)
    records = f"{remaining} record{'s' if remaining != 1 else ''}"
    if link.diverged:
        # never "at the next start": a diverged link publishes nothing until someone looks
        return (f"studio: the link diverged ({link.error}): {records} not published, and none will be while the "
                "journal and the stream disagree")
    if remaining == 0:
        return "studio: every record published"
    return f"studio: {records} still to go (published at the next start)"
