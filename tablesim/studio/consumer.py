"""The studio's side of the bus: every table's records, through one durable
consumer, folded into the floor's picture.

The studio keeps no state of its own: at start it (re)creates its durable
consumer from the first record of the stream and rebuilds the picture from
there, so a restarted studio shows the same figures. While it runs, the
durable consumer keeps its place on the broker, so a broker restart costs
nothing but the wait. The tables' status messages (core NATS, not stored)
give each table's studio-link health live.

Nothing reaches the picture that its table did not sign
(``tablesim.studio.gate``, against the keys file an operator keeps). When
that file changes (a key registered), the picture is rebuilt from the
stream's first record under the new keys.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Callable

import nats
from nats.js import api
from nats.js.errors import NotFoundError

from tablecore.errors import InputError
from pathlib import Path

from tablesim.studio import natsio, trust, wire
from tablesim.studio.floor import Floor
from tablesim.studio.gate import Gate

log = logging.getLogger("tablesim.studio")

DURABLE = "tablesim-studio"
#: records asked for per fetch
FETCH = 1000


class _Rebuild(Exception):
    """The registered keys changed: the picture is made again from the stream."""


def _stamp(path: Path) -> tuple | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


class StudioConsumer:
    def __init__(self, url: str, *, durable: str = DURABLE, on_change: Callable[[], None] | None = None,
                 keys: str | Path | None = None) -> None:
        self.url = natsio.check_url(url, where="--nats")
        self.durable = durable
        self.keys_path = Path(keys) if keys is not None else trust.default_keys_path()
        self._keys_stamp = _stamp(self.keys_path)
        self.gate = Gate(trust.load_trust(self.keys_path))
        self.floor = self.gate.floor
        self._fresh = True
        self.on_change = on_change
        self.connected = False
        self.error: str | None = None
        self.pending = 0  # records in the stream the studio has not read yet
        self.rate = 0.0  # records/s over the last second of work
        self.caught_up = asyncio.Event()
        self._stop = False

    def status(self) -> dict:
        return {"url": natsio.shown(self.url), "connected": self.connected, "error": self.error, "pending": self.pending,
                "records_per_second": round(self.rate, 1), "records": self.floor.records,
                "stream_seq": self.floor.stream_seq}

    def stop(self) -> None:
        self._stop = True

    async def run(self) -> None:
        """Follow the stream until stopped; the broker may come and go."""
        nc = None
        while not self._stop:
            try:
                nc = await nats.connect(self.url, name="tablesim-studio", max_reconnect_attempts=-1,
                                        reconnect_time_wait=0.5, connect_timeout=2, error_cb=natsio.quiet,
                                        disconnected_cb=self._down, reconnected_cb=self._up)
                await nc.subscribe("tablesim.*.status", cb=self._status)
                js = nc.jetstream(timeout=natsio.REQUEST_TIMEOUT)
                await natsio.ensure_stream(js)
                sub = await self._subscribe(js)
                self.connected, self.error = True, None
                await self._follow(sub)
            except asyncio.CancelledError:
                break
            except _Rebuild:
                self._reload()
            except Exception as exc:
                self.connected, self.error = False, f"{type(exc).__name__}: {exc}".rstrip(": ")
                log.info("studio consumer: %s", self.error)
                self._changed()
                await asyncio.sleep(1.0)
            finally:
                if nc is not None:
                    try:
                        await asyncio.wait_for(nc.close(), 2)
                    except Exception:
                        pass
                    nc = None

    def _reload(self) -> None:
        """A fresh picture under the keys file as it is now (a bad file keeps the keys it had)."""
        self._keys_stamp = _stamp(self.keys_path)
        try:
            keys = trust.load_trust(self.keys_path)
        except InputError as exc:
            log.error("studio: %s: the keys registered before stay", exc)
            keys = self.gate.trust
        self.gate = Gate(keys)
        self.floor = self.gate.floor
        self._fresh = True
        self._changed()

    async def _down(self) -> None:
        self.connected = False
        self._changed()

    async def _up(self) -> None:
        self.connected, self.error = True, None
        self._changed()

    async def _subscribe(self, js):
        """A fresh durable consumer from the stream's first record: the
        picture is rebuilt from the stream, never from anything kept."""
        if self._fresh:  # (a new picture: from the stream's first record)
            self._fresh = False
            try:
                await js.delete_consumer(wire.STREAM, self.durable)
            except NotFoundError:
                pass
        config = api.ConsumerConfig(durable_name=self.durable, ack_policy=api.AckPolicy.ALL,
                                    deliver_policy=api.DeliverPolicy.ALL, max_ack_pending=-1)
        return await js.pull_subscribe("", durable=self.durable, stream=wire.STREAM, config=config)

    async def _follow(self, sub) -> None:
        window_start, window_count = time.monotonic(), 0
        while not self._stop:
            if _stamp(self.keys_path) != self._keys_stamp:  # a key registered: the picture made again
                raise _Rebuild()
            try:
                msgs = await sub.fetch(FETCH, timeout=1.0)
            except (asyncio.TimeoutError, nats.errors.TimeoutError):
                self.pending = 0
                self.caught_up.set()
                self._changed()
                continue
            for msg in msgs:
                self.gate.record(msg.subject, msg.headers, msg.data, msg.metadata.sequence.stream)
            if msgs:
                last = msgs[-1]
                await last.ack()
                self.pending = last.metadata.num_pending
                window_count += len(msgs)
                if self.pending == 0:
                    self.caught_up.set()
            now = time.monotonic()
            if now - window_start >= 1.0:
                self.rate = window_count / (now - window_start)
                window_start, window_count = now, 0
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


async def read_floor(url: str, keys: trust.Trust | None = None) -> Floor:
    """The floor as the stream holds it now (``tablesim studio report``)."""
    gate = Gate(keys if keys is not None else trust.Trust())
    floor = gate.floor
    nc = await natsio.connect(url, "tablesim-studio-report")
    try:
        js = nc.jetstream(timeout=natsio.REQUEST_TIMEOUT)
        try:
            await js.stream_info(wire.STREAM)
        except NotFoundError:
            return floor
        async for msg in natsio.read_messages(js, None, batch=FETCH):
            gate.record(msg.subject, {wire.MSG_ID: msg.msg_id, wire.SIG_HEADER: msg.sig}, msg.data, msg.stream_seq)
        return floor
    finally:
        await nc.close()
