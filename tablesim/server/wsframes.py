"""WebSocket frames written straight to a connection's transport.

A server's frames are not masked (RFC 6455, 5.1), so one message framed
once is the same bytes for every client: a fan-out to thousands frames it
once and hands each connection those bytes, one ``transport.write`` each,
instead of one ASGI ``send`` per client (a dict, an await, the protocol
library's framing and its buffers, about 30 µs a client).

``RawFrames`` is uvicorn's own WebSocket protocol (websockets' sans-I/O
one), unchanged but for one thing: it puts itself into the ASGI scope's
extensions (``SCOPE_KEY``), so an app that finds it there may write frames
itself. The handshake, reading, keep-alive pings and the close stay the
protocol's. Frames are written whole from the event loop, so they never
interleave with the protocol's own. No compression is negotiated
(``ws_per_message_deflate=False`` in the server's config): a frame written
here is sent as it is.
"""

from __future__ import annotations

import asyncio
import struct

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

#: where the connection is found in the ASGI scope's ``extensions``
SCOPE_KEY = "tablesim.raw_frames"
#: bytes waiting in a connection's buffer past which its client is too slow (dropped)
BEHIND = 1 << 20


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
