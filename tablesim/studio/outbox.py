"""The table's outbox to the studio: it follows the journal and publishes
every committed record, in order, to the records stream.

The table never waits for it. The outbox runs on a thread of its own with
its own event loop, NATS connection and read-only connection to the journal
file; the table's only contact is ``wake()`` (a hint that a record was
committed). What is published is decided by the stream itself: on every
(re)connection the outbox asks the stream for the table's last record and
goes on from the next seq. So nothing is lost while the broker is down,
restarting or unreachable for hours, nor when the table was killed: the
journal holds every record, and the stream says where to resume. Resends
(a publish whose ack was lost) carry the same ``Nats-Msg-Id`` and are stored
once.

Every record and status message is signed with the table's Ed25519 key
(``tablesim.studio.signing``): the studio counts nothing the table did not
sign.

Before resuming, every message the stream holds on the table's subjects
must be the journal's record of its seq, byte for byte
(``tablesim.studio.streamcheck``: every message, not the last per subject, and
the highest seq is where publishing resumes); while publishing, a
"duplicate" acknowledgement is taken only after the stored message is read
back and found to be this record (someone may have published beside the
table under its next message id), and the count of the table's stored
messages is checked every few seconds against what the table published. If
anything is not the journal's (a record forged on the bus, or a journal
rewritten, truncated or replaced), the link stops in state ``diverged``,
says why, and publishes nothing more: a rewritten history is never
anchored, and a forged one never displaces the table's own unseen.

The published-up-to cursor is also kept in a small file beside the journal
(``<journal>.studio.json``, replaced atomically). It is advisory: it gives
the count of records still to go while the broker cannot be reached (at
start, at exit), and is never trusted for what to send. It is not a table in
the journal, because the journal has one writer (the table) and every write
from another connection would take the journal's write lock, which the
table would then wait for.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Awaitable, Callable

from tablecore.rest import rest
from tablecore.threadnames import name_this_thread
from tablesim.studio import natsio, presence, signing, streamcheck, wire

log = logging.getLogger("tablesim.studio")

#: records read from the journal and published per pipelined batch
BATCH = 256
#: seconds between two connection attempts while the broker is away or the stream has no leader
#: (doubling from FIRST_BACKOFF up to this): small, so that publishing resumes within a second or
#: two of the stream having a leader again however long the outage was
FIRST_BACKOFF = 0.1
MAX_BACKOFF = 0.5
#: seconds between two status messages (core NATS, not stored)
STATUS_EVERY = 2.0
#: seconds between saves of the advisory cursor file while records keep coming
CURSOR_EVERY = 1.0
#: seconds with nothing published after which the cursor file is brought up to date (a quiet
#: table's cursor is current; under a stream of groups it is saved once a second, not per group)
CURSOR_QUIET = 0.2
#: how long the outbox sleeps with nothing to publish when nobody wakes it
IDLE_WAIT = 0.25
#: seconds with records to publish and none published before the link counts as stalled (loud: an incident)
STALL_AFTER = 30.0

Hook = Callable[[Any], Awaitable[None]]


def cursor_path(journal_path: str) -> Path:
    return Path(f"{journal_path}.studio.json")


class Diverged(Exception):
    """The stream holds something on the table's subjects that is not its journal's."""


class StudioLink:
    """Publishes one table's journal to ``url``; ``hooks`` run on each new
    connection (e.g. the bus bet intake subscribing its subject)."""

    def __init__(self, url: str, journal_path: str, table_id: str, *, hooks: list[Hook] | None = None,
                 game: str | None = None, on_change: Callable[[], None] | None = None,
                 signing_key: str | Path | None = None) -> None:
        self.url = natsio.check_url(url)
        self.journal_path = journal_path
        self.table_id = wire.check_token(table_id, "table id")
        self.hooks = list(hooks or [])
        self.game = game
        #: called (on the outbox's thread) when the link's state changes: e.g. the console shows it
        self.on_change = on_change
        self.state = "connecting"
        self.diverged = False  # (stopped while diverged: what is left will not go at the next start either)
        self.error: str | None = None
        self.since = time.time()
        self.published = self._read_cursor()
        self._cursor_saved = 0.0
        self._cursor_said = self.published  # the ``published`` the cursor file holds
        self.journal_seq = 0
        self.loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._db = None
        self._db_lock = threading.RLock()  # the outbox's thread and stop() share the reader
        self.nc = None
        self.signing_key_path = Path(signing_key) if signing_key is not None else \
            signing.default_signing_key_path(self.table_id)
        self._key = None
        self._checked = 0  # the stream sequence up to which the table's messages were held against the journal
        self._was_up = False  # published on a connection before (a reconnection asks who else is live at once)
        self._checked_count = 0  # how many of the table's messages the stream held up to there
        self._highest = 0  # the highest seq of the table the stream holds, all of it the journal's
        self._acked_stream_seq = 0
        self._step = "connecting"  # what the link was doing (said with a failure)
        self._stored = 0  # how many of the table's messages the stream held then, plus those acked since
        self.presence = presence.Presence(self.table_id, journal_path)
        self.stall_after = STALL_AFTER
        self.stalled = False  # records to publish and none published for stall_after seconds
        self._progress_at = time.monotonic()  # when a record was last published, or none was left to publish
        for hook in self.hooks:  # (the bus bet intake signs its receipts with this link's key and journal)
            bind = getattr(getattr(hook, "__self__", None), "bind_link", None)
            if bind is not None:
                bind(self)

    # --- the table's side ----------------------------------------------------------

    def start(self) -> "StudioLink":
        self._key = signing.signing_key_for(self.signing_key_path)
        self._db = wire.open_reader(self.journal_path)
        self.journal_seq = self._journal_seq()
        self._thread = threading.Thread(target=self._run, name=f"studio-{self.table_id}", daemon=True)
        self._thread.start()
        self._ready.wait(5)
        return self

    def wake(self, *_: Any) -> None:
        """A record was committed (any thread; never blocks)."""
        loop, event = self.loop, self._wake
        if loop is not None and event is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(event.set)
            except RuntimeError:  # the loop just closed
                pass

    def pending(self) -> int:
        return max(self.journal_seq - self.published, 0)

    def status(self) -> dict[str, Any]:
        return {"url": natsio.shown(self.url), "state": self.state, "error": self.error, "published": self.published,
                "journal_seq": self.journal_seq, "pending": self.pending(), "stalled": self.stalled,
                "since": datetime.fromtimestamp(self.since, timezone.utc).isoformat(timespec="seconds")}

    def stop(self, drain: float = 0.0) -> int:
        """Stop, first waiting up to ``drain`` seconds for the outbox to empty
        while the link is connecting or up; returns how many records are still
        to go (they go at the next start)."""
        deadline = time.monotonic() + drain
        if self._db is not None:
            self.journal_seq = max(self.journal_seq, self._journal_seq())
        # (waited for only while the link is connecting or up: a link that found the broker away
        # publishes nothing in the meantime, and its records go at the next start as they would after)
        while drain and self.pending() and self.state in ("connecting", "up") and time.monotonic() < deadline:
            self.wake()
            time.sleep(0.02)
        self._stopping = True
        self.wake()
        if self._thread is not None:
            self._thread.join(10)
        with self._db_lock:
            if self._db is not None:
                self.journal_seq = max(self.journal_seq, self._journal_seq())
                self._db.close()
                self._db = None
        if self.published != self._cursor_said and (self._thread is None or not self._thread.is_alive()):
            self._save_cursor()  # (the next start's count of records to go: what was published up to now)
        self.diverged = self.state == "diverged"
        self.state = "stopped"
        return self.pending()

    # --- the outbox's thread -----------------------------------------------------------

    def _run(self) -> None:
        name_this_thread()
        asyncio.run(self._main())

    async def _main(self) -> None:
        self.loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        self._ready.set()
        backoff = FIRST_BACKOFF
        while not self._stopping:
            try:
                await self._session()
                backoff = FIRST_BACKOFF
            except Exception as exc:  # any failure of the link: start again from the stream's word
                if self.state != "diverged":
                    self._set("down", f"{type(exc).__name__}: {exc}".rstrip(": ") + f" ({self._step})")
                log.info("studio link down: %s", self.error)
            finally:
                await self._close()
            if self._stopping:
                break
            self.journal_seq = max(self.journal_seq, self._journal_seq())
            self._check_stall()
            # Not cut short by wake(): a table commits records many times a
            # second, and a link starting again at each of them would hammer
            # a cluster that is electing its leaders (seen: twenty new
            # connections a second per table, the cluster refusing them all).
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, MAX_BACKOFF)

    async def _close(self) -> None:
        nc, self.nc = self.nc, None
        if nc is not None:
            await natsio.close(nc)  # (a close cancelled under it does not end the link's loop)

    def _look(self) -> None:
        """Before the journal is read: a record committed from now on wakes the next rest.

        (Cleared as the rest began, a wake that came between the look and the rest, while
        the link sent its status or held the stream, was lost: the record committed then
        waited the whole idle wait.)"""
        assert self._wake is not None
        self._wake.clear()

    async def _rest(self, seconds: float) -> None:
        """Until a wake since the last look, or ``seconds`` passed."""
        assert self._wake is not None
        await rest(self._wake, seconds)

    async def _session(self) -> None:
        self._step = "connecting"
        self.nc = nc = await natsio.connect(self.url, f"tablesim-table-{self.table_id}")
        js = nc.jetstream(timeout=natsio.REQUEST_TIMEOUT)
        self._step = "asking for the stream"
        await natsio.first_answer(lambda: natsio.stream_info_or_none(js))  # (a stream electing a leader: asked again)
        kinds = natsio.stream_kinds(await natsio.ensure_stream(js))
        asking = await self._ask_who_else(nc)
        why = None
        try:
            self._step = "holding the stream against the journal"
            try:
                self.published = await self._hold(js, kinds)
            except Diverged as exc:  # (another process live as the table says more: asked first)
                why = str(exc)
            self._step = "asking who else is live as the table"
            other = await asking
        finally:
            asking.cancel()
        if other is not None:
            return await self._diverged(nc, f"another process is live on the bus as table {self.table_id} "
                                            f"({presence.describe(other)}): this one publishes nothing; give one of "
                                            "them another table id", status=False)
        if why is not None:
            return await self._diverged(nc, why)
        self._save_cursor()
        for hook in self.hooks:
            await hook(nc)
        # (the hooks' subscriptions went out buffered: a request sent as soon as the link
        # says up, the broker not yet knowing them, was answered "no responders")
        await nc.flush(natsio.REQUEST_TIMEOUT)
        self._set("up", None)
        self._was_up = True
        log.info("studio link up: publishing after record %d", self.published)
        self._step = "publishing"
        await self._status(nc)
        next_status = time.monotonic() + STATUS_EVERY
        try:
            while not self._stopping:
                if nc.is_closed or not nc.is_connected:
                    raise ConnectionError("connection to the broker lost")
                self._look()
                rows = self._rows(self.published, BATCH)
                if rows:
                    self.journal_seq = max(self.journal_seq, rows[-1][0])
                    new = {kind for _, _, kind, _ in rows} - kinds
                    if new:  # a record kind the stream does not take yet: add it before publishing
                        kinds = natsio.stream_kinds(await natsio.ensure_stream(js, kinds | new))
                    await self._publish(js, rows)
                else:
                    self.journal_seq = self._journal_seq()
                    if self.published != self._cursor_said \
                            and time.monotonic() - self._progress_at >= CURSOR_QUIET:
                        self._save_cursor()  # (quiet now: the file says what was published)
                if time.monotonic() >= next_status:
                    await self._recheck(js, kinds)
                    await self._status(nc)
                    next_status = time.monotonic() + STATUS_EVERY
                elif self._unchecked() > streamcheck.DIRECT_MAX - BATCH:  # (catching up: looked at sooner)
                    await self._recheck(js, kinds)
                if len(rows) < BATCH:
                    # (fewer than a batch: every record committed before the look was read, and one
                    # committed since woke the rest. Looking again at once found nothing after each
                    # group of bets, two reads of the journal a group for nothing)
                    await self._rest(IDLE_WAIT)
        except Diverged as exc:
            return await self._diverged(nc, str(exc))

    async def _ask_who_else(self, nc) -> asyncio.Future:
        """Who else is live as the table (answered while the stream is held).

        At the link's first connection it subscribes before it asks: of two
        started at once, one hears the other; the question then waits its
        whole timeout when nobody else answers (its own subscription hears
        it, so the broker never says "no responders"). Once the link has
        published, a reconnection (a node lost, a leader election) asks
        first, so that the broker's "no responders" comes back at once and
        publishing resumes without that wait; whoever started meanwhile
        asked or asks the same, and its records in the stream would not be
        this journal's (the holding says so)."""
        if self._was_up:
            other = await presence.ask(nc, self.table_id, self.presence.nonce)
            await self.presence.answer(nc)
            done = asyncio.get_running_loop().create_future()
            done.set_result(other)
            return done
        await self.presence.answer(nc)
        return asyncio.ensure_future(presence.ask(nc, self.table_id, self.presence.nonce))

    async def _hold(self, js, kinds: set[str]) -> int:
        """Hold the table's messages stored since the last look against the
        journal; the highest seq the stream holds of the table (Diverged if
        anything there is not the journal's)."""
        stored = await streamcheck.stored_count(js, self.table_id)  # (first: whatever comes later is looked at later)
        if stored <= self._stored:  # nothing stored but what it published: no need to read that back
            self._advance(stored)
        messages = await streamcheck.table_messages_from(js, self.table_id, kinds, self._checked + 1,
                                                     expected=stored - self._checked_count,
                                                     direct=not natsio.closed(self.url))
        h = streamcheck.hold(self.table_id, messages, self._journal_bodies, self._key.public_key())
        if h.why is not None:
            raise Diverged(f"{h.why}: run tablesim audit verify --anchor")
        if h.last_stream_seq > self._checked:
            self._checked, self._checked_count = h.last_stream_seq, self._checked_count + h.count
        self._stored = stored
        self._highest = max(self._highest, h.highest)
        return self._highest

    async def _recheck(self, js, kinds: set[str]) -> None:
        """Every few seconds: does the stream hold more of the table's
        messages than the table published? Then someone published beside it
        (a record far ahead, say): look at them."""
        stored = await streamcheck.stored_count(js, self.table_id)
        if stored > self._stored:
            await self._hold(js, kinds)
        else:
            self._advance(stored)

    def _advance(self, stored: int) -> None:
        """Every stored message of the table is one it published (fewer: an
        operator's limits dropped some): looked at up to its last ack."""
        self._stored = stored
        if self._acked_stream_seq > self._checked:
            self._checked, self._checked_count = self._acked_stream_seq, stored

    def _unchecked(self) -> int:
        """The table's messages stored since the last look (a reconnection
        reads them back): kept small, so that it reads them one by one."""
        return self._stored - self._checked_count

    async def _diverged(self, nc, why: str, status: bool = True) -> None:
        """Publish nothing more; say why, on the console and on the bus, until
        stopped. ``status=False`` (another process is live as this table): one
        status message only, so the floor alerts without the other's link
        being shown as this one's from then on."""
        self._set("diverged", why)
        log.error("studio link: %s", why)
        next_status = 0.0
        await self._status(nc)
        while not self._stopping:  # published nothing more; the operator must look
            if nc.is_closed or not nc.is_connected:
                raise ConnectionError("connection to the broker lost")
            if status and time.monotonic() >= next_status:  # (the floor shows the table as diverged, in red)
                await self._status(nc)
                next_status = time.monotonic() + STATUS_EVERY
            self._look()
            await self._rest(STATUS_EVERY)

    def _journal_bodies(self, first: int, last: int) -> dict[int, bytes]:
        with self._db_lock:
            if self._db is None:
                return {}
            try:
                return {seq: body for seq, _, _, body in wire.read_rows(self._db, first - 1, last - first + 1, last)}
            except wire.NotARecord:
                return {}

    async def _publish(self, js, rows: list[tuple[int, str, str, bytes]]) -> None:
        """Pipelined: every message of the batch is sent, then the acks are
        awaited in order; the cursor moves over each acked prefix only. A
        "duplicate" ack counts only once the stored message is read back and
        is this record."""
        if len(rows) > 1:
            # The first record alone, its ack awaited: a stream that acks has a
            # leader now, so the rest sent at once are stored as a prefix, never
            # with a hole (sent while the stream had no leader, the first records
            # of a batch could be dropped and the later ones stored by a leader
            # elected in the middle of it).
            await self._publish(js, rows[:1])
            rows = rows[1:]
        futures = []
        for seq, table_id, kind, body in rows:
            futures.append((seq, body, await js.publish_async(
                wire.record_subject(table_id, kind), body, stream=wire.STREAM,
                headers={wire.MSG_ID: wire.msg_id(table_id, seq), wire.SIG_HEADER: signing.sign(self._key, body)})))
        await self._acked(js, futures)

    async def _acked(self, js, futures) -> None:
        """The acks of ``futures`` (seq, body, the ack's future) taken in order."""
        loop = asyncio.get_running_loop()
        try:
            # (one timer for the batch, moved on at each ack: wait_for made a task for every record)
            async with asyncio.timeout(None) as deadline:
                for seq, body, fut in futures:
                    deadline.reschedule(loop.time() + natsio.REQUEST_TIMEOUT)
                    ack = await fut
                    self._took(seq, body, ack.seq, ack.duplicate and await self._stored_at(js, ack.seq))
        finally:
            for _, _, fut in futures:
                fut.cancel()
            # (advisory, and a file written and renamed: under a stream of bets once a second,
            # not after every batch; a table a group of bets at a time had all published after
            # each, and the file written and renamed per group was a quarter of the outbox
            # thread's CPU. Brought up to date once the outbox is quiet, and at stop)
            if time.monotonic() - self._cursor_saved >= CURSOR_EVERY:
                self._save_cursor()

    async def _stored_at(self, js, stream_seq: int):
        """The message the stream holds at ``stream_seq`` (a duplicate's): by number on
        an open bus, through a reader of the table's own subjects on a closed one."""
        if natsio.closed(self.url):
            return await natsio.own_message(js, self.table_id, stream_seq)
        return await js.get_msg(wire.STREAM, stream_seq)

    def _took(self, seq: int, body: bytes, stream_seq: int, stored) -> None:
        """Record ``seq`` acked at ``stream_seq`` (``stored``: the message the stream
        already held under its id, for a duplicate; else false)."""
        if stored:
            if stored.data != body:
                raise Diverged(
                    f"the stream took record {seq} of {self.table_id} as a duplicate, but the message it holds "
                    f"under that id (stream message {stream_seq}) is not the table's record: published beside the "
                    "table, forged on the bus; run tablesim audit verify --anchor")
        else:
            self._stored += 1
        self._acked_stream_seq = max(self._acked_stream_seq, stream_seq)
        self._highest = max(self._highest, seq)
        self.published = seq
        self._progress_at = time.monotonic()

    def _check_stall(self) -> None:
        """Whether the link stopped publishing: records to go, none published
        for ``stall_after`` seconds (the broker away, a full stream, a link
        that gave up). The console opens an incident, the floor an alert."""
        if self.pending() == 0:
            self._progress_at = time.monotonic()
        stalled = self.state != "diverged" and self.pending() > 0 and time.monotonic() - self._progress_at >= self.stall_after
        if stalled != self.stalled:
            self.stalled = stalled
            if stalled:
                log.warning("studio link: %d records not published for %.0f s (%s)", self.pending(),
                            self.stall_after, self.error or self.state)
            self._notify()

    def _notify(self) -> None:
        if self.on_change is not None:
            try:
                self.on_change()
            except Exception:  # the table's side must never break the link
                log.exception("studio link: on_change failed")

    async def _status(self, nc) -> None:
        self._check_stall()
        try:
            # (``sent``: signed with the rest, so a status recorded off the bus and played
            # back later is older than the last one the studio took, and left out)
            body = wire.canonical({"table_id": self.table_id, "game": self.game, **self.status(),
                                   "sent": time.time_ns()})
            await nc.publish(wire.status_subject(self.table_id), body,
                             headers={wire.SIG_HEADER: signing.sign(self._key, body, signing.STATUS)})
        except Exception:
            pass

    def _set(self, state: str, error: str | None) -> None:
        changed = state != self.state
        if changed:
            self.since = time.time()
        self.state, self.error = state, error
        if changed:
            self._notify()

    def _rows(self, after: int, limit: int) -> list[tuple[int, str, str, bytes]]:
        with self._db_lock:
            return wire.read_rows(self._db, after, limit) if self._db is not None else []

    def ref_records(self, round_id: str, after: int = 0) -> list[tuple[int, dict, bytes]]:
        """The round's committed records of bet refs (each group of bets' ``place_bets``
        record; an older journal's ``bet_refs``) after seq ``after``: (seq, data, message body)."""
        with self._db_lock:
            if self._db is None:
                return []
            out = []
            for row in self._db.rows(round_id=round_id, table_id=self.table_id, names=("bet_refs", "place_bets"),
                                     after=after):
                try:
                    body = wire.encode_row(row)
                    data = json.loads(row["data"])
                except (ValueError, TypeError):
                    continue
                out.append((row["seq"], data if isinstance(data, dict) else {}, body))
            return out

    def receipt(self, seq: int, body: bytes, ref: str) -> dict:
        from tablesim.studio import receipts

        return receipts.make(self._key, self.table_id, seq, body, ref)

    def group_proof(self, seq: int, round_id: str, ts: str, entries: list):
        """The receipts of a group of bets' record (its root signed once)."""
        from tablesim.studio import receipts

        return receipts.GroupProof(self._key, self.table_id, seq, round_id, ts, entries)

    def _journal_seq(self) -> int:
        with self._db_lock:
            if self._db is None:
                return self.journal_seq
            try:
                return self._db.last_seq()
            except Exception:  # the file is busy: keep what we knew
                return self.journal_seq

    def _read_cursor(self) -> int:
        try:
            data = json.loads(cursor_path(self.journal_path).read_text(encoding="utf-8"))
            return int(data.get("published", 0))
        except (OSError, ValueError, TypeError, AttributeError):
            return 0

    def _save_cursor(self) -> None:
        self._cursor_saved, self._cursor_said = time.monotonic(), self.published
        path = cursor_path(self.journal_path)
        tmp = path.with_name(path.name + ".tmp")
        try:
            tmp.write_text(json.dumps({"stream": wire.STREAM, "url": natsio.shown(self.url), "published": self.published}),
                           encoding="utf-8")
            os.replace(tmp, path)
        except OSError as exc:  # advisory only: the stream says what was published
            log.warning("studio cursor not saved: %s", exc)
