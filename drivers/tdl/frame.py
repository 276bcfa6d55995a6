"""The TDL/1 frame codec: one complete frame to and from bytes, no I/O.

Wire format (ASCII)::

    STX ADDR "|" SEQ "|" TYPE ["|" field]* ETX CRC CR LF

ADDR and SEQ are 2 uppercase hex digits, TYPE 3 capital letters, fields
printable ASCII (0x20-0x7E) without "|", CRC 4 uppercase hex digits of
CRC-16/CCITT-FALSE over everything after STX up to and including ETX. A whole
frame is at most 256 bytes.

Decoding checks the checksum before the grammar, so line noise always shows
as CRC (worth a resend) and FMT means the sender itself built a bad frame.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

from drivers.tdl.crc import crc16
from drivers.tdl.errors import FrameError, NakReason

STX = 0x02
ETX = 0x03
MAX_FRAME_LEN = 256
TRAILER_LEN = 6  # CRC (4 hex digits) + CR LF, after ETX

# Frames the link layer itself handles.
ACK = "ACK"
NAK = "NAK"
PNG = "PNG"
PON = "PON"
ANSWER_TYPES = frozenset({ACK, NAK, PON})  # answers are never answered


class DeviceAddr(IntEnum):
    """ADDR of each device kind; a device uses its own address in both directions."""

    SHUFFLER = 0x01
    SHOE = 0x02
    DISPLAY = 0x03
    WHEEL = 0x04


_TYPE = re.compile(r"[A-Z]{3}")
_FIELD = re.compile(r"[\x20-\x7b\x7d\x7e]*")  # printable ASCII except "|" (0x7C)
_HEAD = re.compile(rb"\x02([0-9A-F]{2})\|([0-9A-F]{2})\|([A-Z]{3})?")
_BODY = re.compile(rb"([0-9A-F]{2})\|([0-9A-F]{2})\|([A-Z]{3})((?:\|[\x20-\x7b\x7d\x7e]*)*)")
_TRAILER = re.compile(rb"[0-9A-F]{4}\r\n")


@dataclass(frozen=True, slots=True)
class Frame:
    """One TDL/1 frame. ``fields`` may be given as any sequence; it is kept as a tuple."""

    addr: int
    seq: int
    type: str
    fields: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # A list passed by a caller would make the frozen frame unhashable.
        object.__setattr__(self, "fields", tuple(self.fields))


def _fmt(message: str) -> FrameError:
    return FrameError(NakReason.FMT, message)


def _check_byte(name: str, value: object) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 0xFF:
        raise _fmt(f"{name} must be an int 0-255, got {value!r}")


def encode(frame: Frame) -> bytes:
    """The wire bytes of ``frame``; FrameError("FMT") if it breaks the format."""
    _check_byte("addr", frame.addr)
    _check_byte("seq", frame.seq)
    if not isinstance(frame.type, str) or not _TYPE.fullmatch(frame.type):
        raise _fmt(f"type must be 3 capital letters A-Z, got {frame.type!r}")
    for i, field in enumerate(frame.fields):
        if not isinstance(field, str) or not _FIELD.fullmatch(field):
            raise _fmt(f"field {i} must be printable ASCII without '|', got {field!r}")
    body = "|".join((f"{frame.addr:02X}", f"{frame.seq:02X}", frame.type, *frame.fields))
    payload = body.encode("ascii") + bytes((ETX,))
    raw = bytes((STX,)) + payload + b"%04X\r\n" % crc16(payload)
    if len(raw) > MAX_FRAME_LEN:
        raise _fmt(f"frame would be {len(raw)} bytes, the limit is {MAX_FRAME_LEN}")
    return raw


def decode(raw: bytes) -> Frame:
    """The frame in ``raw`` (exactly one frame, STX to LF) or FrameError("CRC"/"FMT")."""
    raw = bytes(raw)
    head = _HEAD.match(raw)
    where: dict[str, Any] = {}  # header as read, so a receiver can NAK the SEQ
    if head:
        where = {
            "addr": int(head[1], 16),
            "seq": int(head[2], 16),
            "type": head[3].decode("ascii") if head[3] else None,
        }

    def error(reason: NakReason, message: str) -> FrameError:
        return FrameError(reason, message, **where)

    if len(raw) > MAX_FRAME_LEN:
        raise error(NakReason.FMT, f"frame is {len(raw)} bytes, the limit is {MAX_FRAME_LEN}")
    if len(raw) < 2 + TRAILER_LEN:
        raise error(NakReason.FMT, f"{len(raw)} bytes are too short for a frame")
    if raw[0] != STX:
        raise error(NakReason.FMT, f"frame starts with 0x{raw[0]:02X}, not STX")
    etx = len(raw) - TRAILER_LEN - 1
    if raw[etx] != ETX:
        raise error(NakReason.FMT, "no ETX before the 6-byte CRC+CRLF trailer")
    trailer = raw[etx + 1 :]
    # A damaged trailer is line noise like a damaged body, hence CRC, not FMT.
    if not _TRAILER.fullmatch(trailer):
        raise error(NakReason.CRC, f"unreadable CRC+CRLF trailer {trailer!r}")
    said, computed = int(trailer[:4], 16), crc16(raw[1 : etx + 1])
    if said != computed:
        raise error(NakReason.CRC, f"checksum {said:04X} in frame, {computed:04X} computed")
    body = _BODY.fullmatch(raw[1:etx])
    if not body:
        raise error(NakReason.FMT, f"body {raw[1:etx]!r} is not ADDR|SEQ|TYPE[|field]*")
    fields = body[4].decode("ascii").split("|")[1:]  # the group starts with "|"
    return Frame(int(body[1], 16), int(body[2], 16), body[3].decode("ascii"), tuple(fields))
