"""The studio's side of the bus: every table's records, through one durable
consumer, folded into the floor's picture.

The studio keeps no state of its own: at start it (re)creates its durable
consumer from the first record of the stream and rebuilds the picture from
there, so a restarted studio shows the same figures. The place it reads
from is the floor's own, never the consumer's: after every reconnection
the consumer is made again from the message after the last one the floor
took, and a delivery that never arrived (the consumer's sequence jumps:
messages handed to a connection that died, or lost with a leader) makes
it again from there too. The broker's idea of what was delivered is no
proof that it arrived, and acknowledging past it would skip records for
good (the consumer acknowledges all up to the one it names). The tables'
status messages (core NATS, not stored) give each table's studio-link
health live.

Nothing reaches the picture that its table did not sign
(``tablesim.studio.signaturecheck``, against the keys file an operator keeps). When
that file changes (a key registered), the picture is rebuilt from the
stream's first record under the new keys.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from typing import Callable

import nats
from nats.js import api
from nats.js.errors import NotFoundError

from tablecore.errors import InputError
from pathlib import Path

from tablesim.studio import natsio, trust, wire
from tablesim.studio.floor import Floor
from tablesim.studio.signaturecheck import Gate, Renumbered, renumbered

log = logging.getLogger("tablesim.studio")

DURABLE = "tablesim-studio"
#: records asked for per fetch
FETCH = 1000
#: seconds between two looks at the keys bucket for a key registered meanwhile
BUCKET_EVERY = 2.0


#: seconds without a status message from a table before the floor flags it (``studio serve --silent-after``)
SILENT_AFTER = 30.0
#: seconds the first connection attempt may take before the studio says the broker cannot be reached
CONNECT_WAIT = 3.0
#: seconds between two looks at the stream's own state (reset, lost records, how far behind)
CHECK_EVERY = 2.0
#: seconds a stream must keep ending before what the floor read before the floor calls it lost: a
#: replicated stream's newly elected leader can answer its info before it applied the last records
SHORT_GRACE = 5.0


class _Resume(Exception):
    """Deliveries were lost between the broker and the floor: the consumer
    is made again from the message after the floor's last one."""


class _Rebuild(Exception):
    """The registered keys changed, or the stream was reset or lost records:
    the picture is made again from what the stream holds."""

    def __init__(self, alert: str | None = None) -> None:
        super().__init__(alert or "keys changed")
        self.alert = alert


def _stamp(path: Path) -> tuple | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


class StudioConsumer:
    def __init__(self, url: str, *, durable: str = DURABLE, on_change: Callable[[], None] | None = None,
                 keys: str | Path | None = None, silent_after: float = SILENT_AFTER, shifts=None) -> None:
        self.url = natsio.check_url(url, where="--nats")
        self.durable = durable
        self.keys_path = Path(keys) if keys is not None else trust.default_keys_path()
        self._keys_stamp = _stamp(self.keys_path)
        self.shifts = shifts
        self.gate = Gate(trust.load_trust(self.keys_path), Floor(shifts))
        self.floor = self.gate.floor
        self.on_change = on_change
        self.silent_after = silent_after
        self.nc = None
        self._following = False  # subscribed to the stream and reading it (not between connections)
        self._stream_created = None  # the stream's creation time when the picture began: another means a reset
        self._checked_at = 0.0
        self._short_since: float | None = None  # since when the stream has seemed to end before the floor
        self._short_at = 0  # ... and at which message
        self._resets: deque = deque(maxlen=20)  # the stream's resets seen, alerted on every picture since
        self.error: str | None = None
        self.pending = 0  # records in the stream the studio has not read yet
        self.rate = 0.0  # records/s over the last second of work
        self.caught_up = asyncio.Event()
        self._stop = False
        self._delivered = 0  # the consumer sequence of the last message received on this subscription
        self._shortfall: tuple[int, int] | None = None  # (received, delivered) at the last empty fetch short of it
        self.resumed = 0  # times lost deliveries made the consumer again from the floor's place
        self.renumbered = 0  # times the stream was found numbered anew under the floor (the picture made again)
        self._places: dict[int, str] = {}  # stream seqs to check -> the message id the floor read there
        self.metrics = None  # the floor's metrics (``tablesim.studio.metrics``): told each record taken

    @property
    def connected(self) -> bool:
        """True only while the connection is up and the stream is being read
        (asked of the connection itself, never a flag left from earlier)."""
        nc = self.nc
        return bool(self._following and nc is not None and nc.is_connected)

    def status(self) -> dict:
        return {"url": natsio.shown(self.url), "connected": self.connected, "error": self.error, "pending": self.pending,
                "records_per_second": round(self.rate, 1), "records": self.floor.records,
                "stream_seq": self.floor.stream_seq, "resumed": self.resumed, "renumbered": self.renumbered}

    def stop(self) -> None:
        self._stop = True

    async def run(self) -> None:
        """Follow the stream until stopped; the broker may come and go."""
        down_said = False
        while not self._stop:
            try:
                self.nc = await self._connect()
                await self.nc.subscribe("tablesim.*.status", cb=self._status)
                js = self.nc.jetstream(timeout=natsio.REQUEST_TIMEOUT)
                await natsio.ensure_stream(js)
                await self._take_bucket(js)
                sub = await self._subscribe(js)
                self._following, self.error = True, None
                if down_said:
                    log.warning("studio: following %s again", natsio.shown(self.url))
                    down_said = False
                while True:
                    try:
                        await self._follow(js, sub)
                        break
                    except _Resume as lost:
                        self.resumed += 1
                        log.warning("studio: %s: reading again from stream message %d", lost,
                                    self.floor.stream_seq + 1)
                        await sub.unsubscribe()
                        sub = await self._subscribe(js)
            except asyncio.CancelledError:
                break
            except _Rebuild as rebuild:
                self._reload(rebuild.alert)
            except Renumbered as renumbered:  # (what was read stands no longer: all of it read again)
                self.renumbered += 1
                log.warning("studio: %s: the floor is made again from the stream's first record", renumbered)
                self._reload()
            except Exception as exc:
                self._following, self.error = False, f"{type(exc).__name__}: {exc}".rstrip(": ")
                if not down_said:  # (once per outage: the floor page shows it meanwhile)
                    log.warning("studio: cannot reach the studio's NATS at %s (%s): the floor says so, and the "
                                "studio keeps trying", natsio.shown(self.url), self.error)
                    down_said = True
                self._changed()
                await asyncio.sleep(1.0)
            finally:
                self._following = False
                nc, self.nc = self.nc, None
                if nc is not None:
                    await natsio.close(nc)  # (a close cancelled under it does not end the loop)

    async def _connect(self):
        """A connection that reconnects by itself once made; the first attempt
        is bounded (nats-py would try for ever, silently) and says why it failed."""
        last: list[str] = []

        async def seen(exc: Exception) -> None:
            last[:] = [f"{type(exc).__name__}: {exc}".rstrip(": ")]

        try:
            return await asyncio.wait_for(
                nats.connect(natsio.servers(self.url), name="tablesim-studio", max_reconnect_attempts=-1,
                             inbox_prefix=natsio.inbox_prefix(self.url),
                             reconnect_time_wait=0.5, connect_timeout=2, error_cb=seen, disconnected_cb=self._down, reconnected_cb=self._up),
                CONNECT_WAIT)
        except asyncio.TimeoutError:
            raise ConnectionError(f"no broker answered within {CONNECT_WAIT:g} s"
                                  + (f" ({last[0]})" if last else "")) from None

    def _reload(self, alert: str | None = None) -> None:
        """A fresh picture under the keys file as it is now (a bad file keeps
        the keys it had), from the stream's first record; ``alert``: why (a
        reset stream), kept on the new picture."""
        self._keys_stamp = _stamp(self.keys_path)
        try:
            keys = trust.load_trust(self.keys_path)
        except InputError as exc:
            log.error("studio: %s: the keys registered before stay", exc)
            keys = self.gate.trust
        self._places.clear()
        self.gate = Gate(keys, Floor(self.shifts))
        self.floor = self.gate.floor
        self._stream_created = None
        if alert is not None:
            log.error("studio: %s", alert)
            self._resets.append({"table_id": "*", "seq": None, "text": alert, "at": time.time()})
        self.floor.alerts.extend(self._resets)  # (a rebuild for a key registered later keeps them)
        self._changed()

    async def _take_bucket(self, js) -> None:
        """The keys registered in the studio's bucket (``tablesim studio
        register-key --nats``) beside the keys file's: a change makes the
        picture again from the stream's first record."""
        from tablesim.studio import keyring

        self._js, self._bucket_stamp = js, await keyring.bucket_stamp(js)
        self._bucket_checked = time.monotonic()
        try:
            file_keys = trust.load_trust(self.keys_path)
        except InputError:
            file_keys = self.gate.trust
        keys, conflicts = keyring.merged(file_keys, await keyring.bucket_keys(js))
        for text in conflicts:
            log.error("studio: %s", text)
        if keys.hexes != self.gate.trust.hexes:
            self.gate = Gate(keys, Floor(self.shifts))
            self.floor = self.gate.floor
            self._changed()

    async def _bucket_changed(self) -> bool:
        from tablesim.studio import keyring

        if time.monotonic() - self._bucket_checked < BUCKET_EVERY:
            return False
        self._bucket_checked = time.monotonic()
        return await keyring.bucket_stamp(self._js) != self._bucket_stamp

    async def _down(self) -> None:
        self.error = "connection to the broker lost"
        self._changed()

    async def _up(self) -> None:
        self.error = None
        self._changed()

    async def _subscribe(self, js):
        """The durable consumer made again from the message after the last one
        the floor took (from the stream's first for a new picture): what the
        broker thinks it delivered before is never trusted to have arrived."""
        try:
            await js.delete_consumer(wire.STREAM, self.durable)
        except NotFoundError:
            pass
        info = await js.stream_info(wire.STREAM)
        if self._stream_created is None:
            self._stream_created = info.created
        else:
            self._check_reset(info)  # (a broker back on an empty store: the durable consumer went with it)
            self._to_check()
            await self._same_places(js, info.state)
        start = self.floor.stream_seq + 1
        config = api.ConsumerConfig(durable_name=self.durable, ack_policy=api.AckPolicy.ALL,
                                    deliver_policy=api.DeliverPolicy.ALL, max_ack_pending=-1)
        if start > 1:
            config.deliver_policy, config.opt_start_seq = api.DeliverPolicy.BY_START_SEQUENCE, start
        self._delivered, self._shortfall = 0, None
        await js.add_consumer(wire.STREAM, config)
        return await js.pull_subscribe_bind(self.durable, wire.STREAM)

    async def _follow(self, js, sub) -> None:
        window_start, window_count = time.monotonic(), 0
        while not self._stop:
            if _stamp(self.keys_path) != self._keys_stamp or await self._bucket_changed():
                raise _Rebuild()  # a key registered: the picture made again
            if time.monotonic() - self._checked_at >= CHECK_EVERY:
                await self._check(js, sub)
            try:
                msgs = await sub.fetch(FETCH, timeout=1.0)
            except (asyncio.TimeoutError, nats.errors.TimeoutError):
                await self._check(js, sub, idle=True)  # (nothing came: is that because nothing is there?)
                self._changed()
                continue
            taken = self._take(msgs)
            if self.metrics is not None:
                self.metrics.taken(taken)
            if self._places and min(self._places) <= self.floor.stream_seq:
                await self._same_places(js)  # (read past a place to check: checked before going on)
            if taken:
                last = taken[-1]
                await last.ack()  # (all up to it: never past a delivery that did not arrive)
                self.pending = last.metadata.num_pending
                window_count += len(taken)
                if self.pending == 0:
                    self.caught_up.set()
            if len(taken) < len(msgs):
                jumped = msgs[len(taken)].metadata.sequence.consumer
                raise _Resume(f"deliveries {self._delivered + 1} to {jumped - 1} of the studio's consumer never "
                              "reached it")
            now = time.monotonic()
            if now - window_start >= 1.0:
                self.rate = window_count / (now - window_start)
                window_start, window_count = now, 0
            self._changed()

    def _take(self, msgs: list) -> list:
        """Apply ``msgs`` in order up to the first that does not follow the
        last delivery received (its consumer sequence jumps: the ones between
        were handed to a connection that died, or lost with a leader); the
        ones applied. A sequence that goes back (a new leader handing out
        again what it never saw acknowledged) is followed: the gate counts
        what the floor already took as redelivered."""
        for i, msg in enumerate(msgs):
            delivered = msg.metadata.sequence.consumer
            if delivered > self._delivered + 1:
                return msgs[:i]
            self._delivered = delivered
            self.gate.record(msg.subject, msg.headers, msg.data, msg.metadata.sequence.stream)
        return msgs

    async def _check(self, js, sub, idle: bool = False) -> None:
        """The stream's word on where the floor stands: a stream reset, or
        one that lost records, rebuilds the picture (with an alert); the
        count behind is the consumer's own; tables gone silent are flagged."""
        self._checked_at = time.monotonic()
        self._silent()
        try:
            info = await js.stream_info(wire.STREAM)
        except NotFoundError:
            raise _Rebuild("the studio's stream is gone (the broker lost its store, or the stream was deleted): "
                           "the floor is rebuilt from what the stream holds now") from None
        self._check_reset(info)
        self._to_check()
        await self._same_places(js, info.state)
        try:
            ci = await sub.consumer_info()
        except NotFoundError:
            raise _Rebuild("the studio's durable consumer is gone (the broker lost its store): the floor is rebuilt "
                           "from what the stream holds now") from None
        if idle:
            self._lost_tail(ci.delivered.consumer_seq, sub)
        self.pending = ci.num_pending + ci.num_ack_pending
        if self.pending == 0:
            self.caught_up.set()

    def _lost_tail(self, delivered: int, sub) -> None:
        """The last deliveries lost with nothing after them to show the jump:
        the consumer says it handed more than arrived, and still says so at
        the next empty fetch with nothing waiting here (not a batch on its way)."""
        shortfall = (self._delivered, delivered) if delivered > self._delivered and not sub.pending_msgs else None
        seen, self._shortfall = self._shortfall, shortfall
        if shortfall is not None and shortfall == seen:
            raise _Resume(f"deliveries {self._delivered + 1} to {delivered} of the studio's consumer never reached it")

    def _to_check(self) -> None:
        """The floor's place, to be held against the message the stream's
        leader has there (now, or once the stream reaches it again)."""
        seq = self.floor.stream_seq
        read = self.gate.read_at(seq)
        if read is not None:
            self._places[seq] = read

    async def _same_places(self, js, state=None) -> None:
        """Each place to check that the stream holds: the message there is
        the one read there, else ``Renumbered``. One not there is checked
        again later (a new leader still applying, or a stream that ends
        before it and numbers new messages there next: checked once they
        come, however far the floor has read meanwhile); one the stream no
        longer holds (``state``: its first message is later, or it was
        deleted) is dropped."""
        for seq in sorted(self._places):
            try:
                there = await js.get_msg(wire.STREAM, seq)
            except NotFoundError:
                if state is not None and (seq < state.first_seq or seq <= state.last_seq):
                    del self._places[seq]
                continue
            read, found = self._places.pop(seq), (there.headers or {}).get(wire.MSG_ID)
            if found != read:
                raise Renumbered(renumbered(seq, found, read))

    def _check_reset(self, info) -> None:
        state = info.state
        if info.created is not None and self._stream_created is not None and info.created != self._stream_created:
            raise _Rebuild(f"the studio's stream was reset (created again at {info.created}; the floor had read "
                           f"{self.floor.records} records of the old one): the floor is rebuilt from what it holds now")
        if state.last_seq >= self.floor.stream_seq or not _settled(info):
            self._short_since = None
        elif self._still_short(state.last_seq):
            raise _Rebuild(f"the studio's stream lost records (it ends at message {state.last_seq}, the floor had read "
                           f"up to {self.floor.stream_seq}): the floor is rebuilt from what it holds now")
        lost = getattr(state, "lost", None)
        if lost and not getattr(self, "_lost_said", False):
            self._lost_said = True
            self.floor.alerts.append({"table_id": "*", "seq": None, "text": f"the broker reports lost messages in "
                                      f"the studio's stream: {str(lost)[:300]}"})

    def _still_short(self, last_seq: int) -> bool:
        """Whether the stream has ended at the same message before the floor's place for SHORT_GRACE
        seconds (looked at again meanwhile): only then are records lost, not a new leader still
        applying them or replicas catching up one after the other."""
        now = time.monotonic()
        if self._short_since is None or self._short_at != last_seq:
            self._short_since, self._short_at = now, last_seq
            return False
        return now - self._short_since >= SHORT_GRACE

    def _silent(self) -> None:
        """Flag (once, with an alert) each table whose last status message is older than ``silent_after``."""
        now = time.time()
        for view in self.floor.tables.values():
            link = view.link
            if link is None or link.get("silent") or now - float(link.get("seen") or now) < self.silent_after:
                continue
            link["silent"] = True
            view.alerts += 1
            self.floor.alerts.append({"table_id": view.table_id, "seq": None,
                                      "text": f"not heard from for {self.silent_after:g} s (its studio link was "
                                              f"{link.get('state')}, {link.get('pending')} to publish)"})
            self._changed()

    async def _status(self, msg) -> None:
        try:
            table_id = wire.check_token(msg.subject.split(".")[1], "table id")
        except (IndexError, InputError):
            return
        data = self.gate.status(msg.subject, msg.headers, msg.data)
        if data is None:  # unsigned, badly signed, of no registered table: alerted, never on the floor
            self._changed()
            return
        # A table heard from before its first record is on the floor too (its
        # records may be unable to reach the stream: that is what to show).
        view = self.floor.heard(table_id)
        sent = data.get("sent")
        if not view.takes_status(sent):  # signed by the table, but played back
            self.gate.refuse_status(table_id, "older than the last one taken (played back)")
            self._changed()
            return
        view.status_sent = sent or 0
        game = data.get("game")
        view.game = view.game or (game if isinstance(game, str) else None)  # (until its first result names it)
        if data.get("state") == "diverged" and (view.link or {}).get("state") != "diverged":
            view.alerts += 1  # (loud: the stream holds something of this table that its journal does not)
            self.floor.alerts.append({"table_id": table_id, "seq": None,
                                      "text": f"studio link diverged: {str(data.get('error'))[:300]}"})
        if data.get("stalled") is True and not (view.link or {}).get("stalled"):
            view.alerts += 1  # (loud: records wait at the table, none reach the stream)
            self.floor.alerts.append({"table_id": table_id, "seq": None,
                                      "text": f"studio link stopped publishing: {data.get('pending')} records not "
                                              f"published ({str(data.get('error') or data.get('state'))[:300]})"})
        view.link = {**{k: data.get(k) for k in ("state", "pending", "published", "error", "stalled")},
                     "seen": time.time()}
        self._changed()

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()


async def read_floor(url: str, keys: trust.Trust | None = None, shifts=None) -> Floor:
    """The floor as the stream holds it now (``tablesim studio report``;
    ``shifts``: the shift boundaries its figures by shift and day use)."""
    gate = Gate(keys if keys is not None else trust.Trust(), Floor(shifts))
    floor = gate.floor
    async with natsio.one_shot(url, "tablesim-studio-report") as nc:
        js = nc.jetstream(timeout=natsio.REQUEST_TIMEOUT)
        try:
            await js.stream_info(wire.STREAM)
        except NotFoundError:
            return floor
        async for msg in natsio.read_messages(js, None, batch=FETCH):
            gate.record(msg.subject, {wire.MSG_ID: msg.msg_id, wire.SIG_HEADER: msg.sig}, msg.data, msg.stream_seq)
        return floor


def _settled(info) -> bool:
    """Whether a replicated stream's answer can be believed about where it ends: it has a leader and
    every replica that is up is current (while an election or a catch-up runs, the answer may be a
    replica's older state). A stream of one node always can."""
    cluster = getattr(info, "cluster", None)
    if cluster is None or not getattr(cluster, "replicas", None):
        return True
    return bool(cluster.leader) and all(p.current for p in cluster.replicas if not p.offline)
