"""A JetStream pull consumer's messages in the batches they come in, without
a task per message.

The platform reads every record the tables publish twice (its picture of
the stream, and settlement's durable consumer): thousands a second while
players bet. nats-py's ``fetch`` waits for each message of a batch with
its own task, timer and uuid, which cost the platform more than applying
the message. ``Pull`` keeps one pull request open on the consumer, for up
to ``batch`` messages: the server delivers each as soon as it is in the
stream, and the messages the connection's reader delivered meanwhile are
handed to ``handle`` together. A request that is filled or expired is made
again at once. An open request carries the server's heartbeats; nothing
heard for ``LOST`` heartbeats (the connection or the consumer is gone), or
a consumer the server no longer has, and ``run`` raises ``Lost``: the
caller makes its consumer again from where it was.

So does a delivery that never arrived, on a consumer of the reader's own
(``own=True``: made by it just now, without acknowledgements). The server
counts a message as delivered once it handed it to a connection; one that
died with it (nats-py reconnects underneath, the open request goes on)
loses it, and with no acknowledgements it is never sent again. Every
delivery carries the consumer's own sequence number, and every heartbeat
the last one handed out: a number that jumps, or a heartbeat past the last
message received, means deliveries were lost on the way. On a consumer that
others read too (settlement's durable, shared by every platform process)
the numbers jump at every delivery another process took, and nothing is
lost for good: what is not acknowledged comes again after the ack wait.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Awaitable, Callable

from nats.aio.msg import Msg
from nats.js import api

from tablecore.rest import rest

#: the tokens of an ack subject: $JS.ACK.<stream>.<consumer>.<delivered>.<stream seq>.<consumer seq>.<time>.<pending>,
#: or the newer form with the domain and the account first (and a random token last)
_V1, _V2 = 9, 11
#: heartbeats missed before the consumer counts as lost
LOST = 3
_STATUS = api.Header.STATUS
#: a heartbeat's header: the consumer sequence of the last message the server handed out
_LAST_DELIVERED = "Nats-Last-Consumer"


def _ack_fields(msg) -> list[str]:
    tokens = msg.reply.split(".") if msg.reply else []
    if not (len(tokens) == _V1 or len(tokens) >= _V2) or tokens[0] != "$JS" or tokens[1] != "ACK":
        raise ValueError(f"not a JetStream message: {msg.reply!r}")
    return tokens


def stream_seq_of(msg) -> int:
    """The message's stream seq, off its ack subject (nats-py's ``metadata``
    parses every field into objects, a timestamp too: most of a message's
    cost to the platform)."""
    tokens = _ack_fields(msg)
    return int(tokens[5] if len(tokens) == _V1 else tokens[Msg.Ack.StreamSeq])


def consumer_seq_of(msg) -> int:
    """The consumer's own sequence number of this delivery (one more for every message it hands out, again or not)."""
    tokens = _ack_fields(msg)
    return int(tokens[6] if len(tokens) == _V1 else tokens[Msg.Ack.ConsumerSeq])


def pending_of(msg) -> int:
    """The messages left in the stream for the consumer after this one."""
    tokens = _ack_fields(msg)
    return int(tokens[8] if len(tokens) == _V1 else tokens[Msg.Ack.NumPending])


class Lost(Exception):
    """The consumer or the connection is gone: make the consumer again."""


async def make_consumer(js, stream: str, config: api.ConsumerConfig) -> str:
    """The consumer's name: a durable one found or made, an ephemeral one made (``config.name`` set)."""
    if config.durable_name:
        config.name = config.durable_name
        try:
            await js.consumer_info(stream, config.durable_name)
            return config.durable_name
        except Exception as exc:  # (nats.js.errors.NotFoundError: made below)
            if type(exc).__name__ != "NotFoundError":
                raise
    info = await js.add_consumer(stream, config=config)
    return info.name


class Pull:
    """``await Pull(nc, stream, consumer, handle).run()``: ``handle(msgs)`` for
    each group of messages, in stream order; ``idle()`` when the server
    says the request has nothing more for now (caught up)."""

    def __init__(self, nc, stream: str, consumer: str, handle: Callable[[list], Awaitable[None]], *,
                 batch: int = 1000, expires: float = 5.0, heartbeat: float = 1.0,
                 idle: Callable[[], None] | None = None, own: bool = False) -> None:
        self.nc = nc
        self.subject = f"$JS.API.CONSUMER.MSG.NEXT.{stream}.{consumer}"
        self.handle = handle
        self.batch = batch
        self.request = json.dumps({"batch": batch, "expires": int(expires * 1e9),
                                   "idle_heartbeat": int(heartbeat * 1e9)}).encode()
        self.heartbeat = heartbeat
        self.idle = idle
        self._got: list = []
        self._left = 0  # messages the open request may still bring
        self._ended = False  # the open request was answered whole (expired, or a status ended it)
        self._lost: str | None = None
        self._conflicts = 0  # requests ended by the server (409) in a row, no message between
        self._heard = time.monotonic()
        self._wake = asyncio.Event()
        #: whether deliveries are counted (``own``); the consumer sequence of the last one received
        #: (a consumer just made hands out 1 first)
        self.own = own
        self._delivered = 0

    async def run(self) -> None:
        inbox = self.nc.new_inbox()
        sub = await self.nc.subscribe(inbox, cb=self._on)
        try:
            await self._ask(inbox)
            while True:
                await rest(self._wake, self.heartbeat)  # (not asyncio.wait_for: see tablecore.rest)
                self._wake.clear()
                if self._lost is not None:
                    raise Lost(self._lost)
                if time.monotonic() - self._heard > LOST * self.heartbeat:
                    raise Lost(f"nothing heard from the consumer for {LOST * self.heartbeat:g} s")
                if self._got:
                    got, self._got = self._got, []
                    await self.handle(got)
                if self._ended or self._left <= 0:
                    await self._ask(inbox)
        finally:
            try:
                await sub.unsubscribe()
            except Exception:  # (the connection is gone already)
                pass

    def _arrived(self, delivered: int) -> bool:
        """Whether the delivery numbered ``delivered`` follows the last one
        received (one that goes back is a new leader handing out again what
        it never saw acknowledged: followed). If deliveries were skipped,
        the consumer is lost (and nothing after it is taken)."""
        if not self.own:
            return True
        if self._lost is not None:
            return False
        if delivered > self._delivered + 1:
            self._lost = f"deliveries {self._delivered + 1} to {delivered - 1} never arrived"
            return False
        self._delivered = delivered
        return True

    def _handed(self, last: int) -> bool:
        """Whether the server's last delivery (a heartbeat's word) is the last one received."""
        if not self.own:
            return True
        if self._lost is not None:
            return False
        if last > self._delivered:
            self._lost = f"deliveries {self._delivered + 1} to {last} never arrived"
            return False
        return True

    async def _ask(self, inbox: str) -> None:
        self._left, self._ended = self.batch, False
        await self.nc.publish(self.subject, self.request, reply=inbox)

    async def _on(self, msg) -> None:
        """The connection's reader: a message, or a status of the open request."""
        self._heard = time.monotonic()
        status = msg.headers.get(_STATUS) if msg.headers else None
        if not status:
            if self._arrived(consumer_seq_of(msg)):
                self._got.append(msg)
                self._left -= 1
                self._conflicts = 0
        elif status == "100":  # a heartbeat: the request is open, nothing new
            last = msg.headers.get(_LAST_DELIVERED)
            if last is None or self._handed(int(last)):
                if self.idle is not None and not self._got:
                    self.idle()
                return
        elif status in ("404", "408", "409"):  # the request ended (expired, no messages, or the server's reason)
            self._ended = True
            self._conflicts = self._conflicts + 1 if status == "409" else 0
            if self._conflicts >= LOST:  # (e.g. the consumer deleted: asked again, refused again)
                self._lost = f"the server ends every request: {msg.headers.get(api.Header.DESCRIPTION)}"
            if self.idle is not None and not self._got:
                self.idle()
        else:  # 503: nobody answers for the consumer
            self._lost = f"the consumer is not there (status {status}: {msg.headers.get(api.Header.DESCRIPTION)})"
        self._wake.set()
