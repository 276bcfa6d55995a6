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
import logging
from pathlib import Path
from typing import Callable

from tablesim.engine.table import GameTable
from tablecore.errors import InputError
from tablesim.studio import holding, natsio, signing, wire
from tablesim.studio.outbox import Hook, StudioLink

log = logging.getLogger("tablesim.studio")
#: signing keys a table configuration names (``[studio] signing_key``), by table id
SIGNING_KEYS: dict[str, Path] = {}
#: the code of the incident a diverged studio link opens on the table's console
STUDIO_INCIDENT = 300
#: how long the start waits for the broker to hold the journal against the stream
START_TIMEOUT = 3.0


def diverged_incident(table: GameTable, link: StudioLink) -> None:
    """On the table's thread: the link diverged, an incident the dealer and
    supervisor see (not blocking: the table's own journal is sound, the
    studio's copy of it is not)."""
    table.open_incident(STUDIO_INCIDENT, f"studio link diverged: {link.error}", blocking=False)


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
    """Refuse (InputError) to start a table whose journal lacks records the
    stream holds of it, signed by it. Nothing is written before."""
    key_path = signing_key_path(table_id, chain_key)
    if not key_path.exists():
        return  # this table never signed a record: nothing in the stream can be its own
    pub = signing.load_signing_key(key_path).public_key()
    db = wire.open_reader(journal_path) if Path(journal_path).is_file() else None

    def bodies(first: int, last: int) -> dict[int, bytes]:
        if db is None:
            return {}
        try:
            return {seq: body for seq, _, _, body in wire.read_rows(db, first - 1, last - first + 1, last)}
        except Exception:  # an unreadable journal holds none of them (its own checks say why)
            return {}

    try:
        h = asyncio.run(asyncio.wait_for(_stream_holding(url, table_id, bodies, pub), START_TIMEOUT * 20))
    except Exception as exc:  # the broker away: the table never waits for it (the outbox checks on connecting)
        log.warning("studio: the journal was not held against the stream at start: %s", exc)
        return
    finally:
        if db is not None:
            db.close()
    if h is not None and h.lacked:
        raise InputError(f"the studio's stream holds {holding.records(h.lacked)} of {table_id}, signed by this "
                         "table, that the journal lacks or holds otherwise: the journal lost records it had committed "
                         f"(a lost or older WAL, a restored older copy); run tablesim audit verify --anchor "
                         f"{natsio.shown(url)}", where=journal_path)


async def _stream_holding(url: str, table_id: str, bodies, pub) -> holding.Holding | None:
    return await natsio.retrying(lambda: _stream_holding_once(url, table_id, bodies, pub))


async def _stream_holding_once(url: str, table_id: str, bodies, pub) -> holding.Holding | None:
    nc = await natsio.connect(url, f"tablesim-start-{table_id}", timeout=START_TIMEOUT)
    try:
        js = nc.jetstream(timeout=natsio.REQUEST_TIMEOUT)
        try:
            info = await js.stream_info(wire.STREAM)
        except natsio.NotFoundError:
            return None
        kinds = natsio.stream_kinds(info.config.subjects or [])
        messages = await holding.table_messages_from(js, table_id, kinds, 1)
        return holding.hold(table_id, messages, bodies, pub)
    finally:
        await nc.close()

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
    table.bus.subscribe(link.wake)  # a hint only: the outbox reads the committed records itself
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
