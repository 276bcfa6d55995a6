"""Cuts a byte stream into TDL/1 frames, resynchronising after noise.

Rules: bytes before an STX are discarded; an STX inside a frame means the
frame was cut short and a new one begins; a frame that cannot end within
256 bytes is dropped; a partial frame that has been silent for ``max_gap``
seconds is dropped. Dropped bytes produce nothing: only a frame delimited by
STX ... ETX + 6 bytes is reported, as a Frame or as a FrameError that the
session can NAK.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from drivers.tdl.errors import FrameError
from drivers.tdl.frame import ETX, MAX_FRAME_LEN, STX, TRAILER_LEN, Frame, decode

# The last index an ETX may have in a frame of at most MAX_FRAME_LEN bytes.
_LAST_ETX = MAX_FRAME_LEN - TRAILER_LEN - 1


class StreamDecoder:
    """Feed it bytes as they arrive; it returns the frames they complete.

    ``max_gap`` is a silence between bytes, not an age of the frame: at 9600
    baud a 256-byte frame takes 267 ms on the wire, and must still decode.
    """

    def __init__(self, *, max_gap: float = 0.1, clock: Callable[[], float] = time.monotonic) -> None:
        self._max_gap = max_gap
        self._clock = clock
        self._buf = bytearray()
        self._last_byte_at = 0.0

    @property
    def buffered(self) -> int:
        """Bytes held for a frame not yet complete (never more than a frame's worth)."""
        return len(self._buf)

    def reset(self) -> None:
        """Forget any partial frame."""
        self._buf.clear()

    def feed(self, data: bytes) -> list[Frame | FrameError]:
        """Frames (or errors of delimited frames) completed by ``data``; never raises.

        Feeding ``b""`` only lets a silent partial frame expire.
        """
        now = self._clock()
        if self._buf and now - self._last_byte_at > self._max_gap:
            # Every buffered byte is older than the gap, so the whole buffer is stale.
            self._buf.clear()
        if not data:
            return []
        self._last_byte_at = now
        self._buf += data
        return self._cut()

    def _cut(self) -> list[Frame | FrameError]:
        out: list[Frame | FrameError] = []
        buf = self._buf
        while buf:
            start = buf.find(STX)
            if start < 0:
                buf.clear()
                break
            del buf[:start]
            next_stx = buf.find(STX, 1)
            # Fields are printable, so an ETX after a later STX belongs to that frame.
            etx = buf.find(ETX, 1, next_stx if next_stx >= 0 else len(buf))
            if etx < 0:
                if next_stx >= 0:
                    del buf[:next_stx]  # cut short: a new frame began
                    continue
                if len(buf) > _LAST_ETX:
                    buf.clear()  # too long to be a frame, and no other STX in it
                break
            if etx > _LAST_ETX:
                del buf[:1]  # too long; the trailer bytes may hold the next STX
                continue
            end = etx + 1 + TRAILER_LEN
            if len(buf) < end:
                break
            try:
                out.append(decode(bytes(buf[:end])))
                del buf[:end]
            except FrameError as exc:
                out.append(exc)
                # Rescan after this STX: a damaged trailer may hold the next frame's STX.
                del buf[:1]
        return out
