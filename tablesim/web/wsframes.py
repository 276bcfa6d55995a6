"""WebSocket frames written straight to a connection's transport.

A server's frames are not masked (RFC 6455, 5.1), so one message framed
once is the same bytes for every client: a fan-out to thousands frames it
once and hands each connection those bytes, one ``transport.write`` each,
instead of one ASGI ``send`` per client (a dict, an await, the protocol
library's framing and its buffers, about 30 µs a client).

``RawFrames`` is uvicorn's own WebSocket protocol (websockets' sans-I/O
one), changed in two things: it puts itself into the ASGI scope's
extensions (``SCOPE_KEY``), so an app that finds it there may write frames
itself; and a connection refused for a bad frame closes lingering, so its
client reads why. The handshake, reading, keep-alive pings and the close stay the
protocol's. Frames are written whole from the event loop, so they never
interleave with the protocol's own. No compression is negotiated
(``ws_per_message_deflate=False`` in the server's config): a frame written
here is sent as it is.

An app may also read a connection's plain messages itself (``on_text``):
whole, final, masked text frames, read straight off the bytes received,
each handed to it at once, in order. Through the protocol, a message cost
the protocol library's generator-driven parse, an ASGI event in a queue,
reading paused and resumed, and the app's task woken to await it (about as
much CPU as the platform's own work for a bet). Anything else (a control
frame, a fragment, a frame cut by the read, too big, not UTF-8, a closing
connection) goes to the protocol as before, from a frame's first byte.
"""

from __future__ import annotations

import asyncio
import logging
import struct
from typing import Callable

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.frames import apply_mask
from websockets.protocol import OPEN, Protocol
from websockets.server import ServerProtocol
from websockets.streams import StreamReader

#: where the connection is found in the ASGI scope's ``extensions``
SCOPE_KEY = "tablesim.raw_frames"
#: bytes waiting in a connection's buffer past which its client is too slow (dropped)
BEHIND = 1 << 20
#: seconds a connection refused for a bad frame is still read (and dropped) for its client to see the close
LINGER = 5.0
#: bytes read and dropped from such a connection before it is closed all the same
LINGER_BYTES = 16 << 20

log = logging.getLogger("tablesim.web")

#: where the protocol library's frame parser waits between two frames (the server's parser, in
#: the frames' parser, waiting in ``at_eof`` for a frame's first byte): only there may a frame
#: be read past it
_SERVER_PARSE, _PARSE, _AT_EOF = ServerProtocol.parse.__code__, Protocol.parse.__code__, StreamReader.at_eof.__code__


def text_frame(payload: bytes) -> bytes:
    """One unmasked, final text frame holding ``payload`` (UTF-8)."""
    n = len(payload)
    if n < 126:
        return bytes((0x81, n)) + payload
    if n < 1 << 16:
        return struct.pack("!BBH", 0x81, 126, n) + payload
    return struct.pack("!BBQ", 0x81, 127, n) + payload


class RawFrames(WebSocketsSansIOProtocol):
    #: called when the connection's buffer, once full, has drained (a writer waiting on it)
    on_writable = None
    #: set once a client's bad frame closed the connection (the lingering close below)
    _lingering = None

    def handle_parser_exception(self) -> None:
        """A frame the server refuses (too big, malformed): the close frame
        with its code, then a lingering close. uvicorn closes the socket at
        once; with the client's unread bytes still in it, the kernel then
        answers with a reset, and a client still sending (the rest of a
        megabyte) gets that reset before it reads the close frame: it sees an
        abnormal closure, not why. Here the server's side is shut after the
        close frame and what the client still sends is read and dropped
        (nothing is kept) until it closes, ``LINGER`` seconds pass or it has
        sent ``LINGER_BYTES`` more."""
        if self._lingering is not None:
            return
        close = self.conn.close_sent
        self.queue.put_nowait({"type": "websocket.disconnect", "code": close.code, "reason": close.reason})
        self.transport.write(b"".join(self.conn.data_to_send()))
        self.close_sent = True
        if self.transport.can_write_eof():
            self.transport.write_eof()
        # (as uvicorn's close timer: the app's end does not close the socket, its loss cancels the timer)
        if self.close_timer is not None:
            self.close_timer.cancel()
        self._lingering = self.close_timer = self.loop.call_later(LINGER, self.transport.close)
        self._dropped = 0

    #: the app's reader of the connection's plain text messages (``read_plain``), or None
    on_text: Callable[[str], None] | None = None

    #: ``loop.time()`` when the peer last sent anything (``send_keepalive_ping``)
    _heard = 0.0

    def data_received(self, data: bytes) -> None:
        self._heard = self.loop.time()
        if self._lingering is not None:
            self._dropped += len(data)  # (a refused connection: read, never parsed nor kept)
            if self._dropped > LINGER_BYTES:
                self.transport.close()
            return
        if self.on_text is None or not self._between_frames():
            super().data_received(data)
            return
        texts, at = self.read_plain(data)
        if at < len(data):  # (the rest to the protocol first: as there, a frame it refuses drops what came with it)
            self.conn.receive_data(data[at:])
            if self.conn.parser_exc is not None:
                self.handle_parser_exception()
                return
        for text in texts:
            try:
                self.on_text(text)
            except Exception:  # (as an app that failed on a message: logged, the connection closed)
                log.exception("a WebSocket app failed on a message")
                self.on_text = None
                self.transport.close()
                return
        if at < len(data):
            self.handle_events()

    def read_plain(self, data: bytes) -> tuple[list[str], int]:
        """The whole text frames at the start of ``data`` (their texts), and
        where the first frame that is not one starts (for the protocol)."""
        texts: list[str] = []
        at, end = 0, len(data)
        limit = self.conn.max_message_size
        while end - at >= 6 and data[at] == 0x81 and data[at + 1] >= 0x80:  # (FIN, text, no RSV; masked)
            n, head = data[at + 1] & 0x7F, at + 6
            if n == 126:
                if end - at < 8:
                    break
                n, head = (data[at + 2] << 8) | data[at + 3], at + 8
            elif n == 127:
                break
            if head + n > end or (limit is not None and n > limit):
                break
            try:
                texts.append(apply_mask(data[head:head + n], data[head - 4:head]).decode())
            except UnicodeDecodeError:  # (the protocol closes it: 1007)
                break
            at = head + n
        return texts, at

    def _between_frames(self) -> bool:
        """Open, nothing waiting for the app, and the protocol's parser at a
        frame's first byte (nothing of a frame buffered nor half read)."""
        conn = self.conn
        if self.close_sent or self.disconnected or not self.handshake_complete or self.frames \
                or not self.queue.empty() or conn.state is not OPEN or conn.reader.buffer or conn.extensions \
                or conn.current_size is not None or conn.parser_exc is not None:
            return False
        parser = conn.parser  # (the server's parser: its handshake's, then the frames' within it)
        if getattr(parser, "gi_code", None) is _SERVER_PARSE:
            parser = parser.gi_yieldfrom
        waiting = getattr(parser, "gi_yieldfrom", None)
        return getattr(parser, "gi_code", None) is _PARSE and getattr(waiting, "gi_code", None) is _AT_EOF

    def send_keepalive_ping(self) -> None:
        """The keepalive ping, only to a peer silent for a whole ping interval:
        one that sent anything since is there (a player's page sends its own
        latency pings), and its ping then waits for the interval to end after
        what it sent last. (5,000 pages pinged every 20 s were 250 pings and
        their pongs a second, about a twentieth of the platform's CPU while
        bets came.)"""
        interval = self.ping_interval
        if interval is not None and self.ping_timer is not None:
            quiet_since = self.loop.time() - self._heard
            if quiet_since < interval:
                self.ping_timer = self.loop.call_later(interval - quiet_since, self.send_keepalive_ping)
                return
        super().send_keepalive_ping()

    def resume_writing(self) -> None:
        super().resume_writing()
        if self.on_writable is not None:
            self.on_writable()

    def handle_connect(self, event) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)
        if scope is not None:  # (the app's task is made, not yet run: it sees the key)
            scope["extensions"][SCOPE_KEY] = self


class Wire:
    """Frames to one connection, from the event loop."""

    def __init__(self, protocol: RawFrames, behind: int = BEHIND) -> None:
        self.protocol = protocol
        self.transport: asyncio.Transport = protocol.transport
        self.behind = behind

    @property
    def open(self) -> bool:
        p = self.protocol
        return not (p.close_sent or p.disconnected or self.transport.is_closing())

    @property
    def buffered(self) -> int:
        """Bytes handed to the connection it could not send yet."""
        return self.transport.get_write_buffer_size()

    def write(self, frames: bytes) -> bool:
        """Hand ``frames`` to the connection; False when it is closed or has
        more than ``behind`` bytes it could not send yet (a client not reading)."""
        if not self.open:
            return False
        self.transport.write(frames)
        return self.transport.get_write_buffer_size() <= self.behind

    def abort(self) -> None:
        """Drop the connection now, with what it had not sent (a close frame
        would wait behind it for ever)."""
        self.transport.abort()
