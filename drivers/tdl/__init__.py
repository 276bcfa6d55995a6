"""TDL/1, the table device link: one implementation for every device and emulator.

The protocol is documented in docs/protocol.md. Layers, bottom up:
``crc16`` -> ``Frame``/``encode``/``decode`` -> ``StreamDecoder`` -> ``LinkSession``.
"""

from drivers.tdl.crc import crc16
from drivers.tdl.decoder import StreamDecoder
from drivers.tdl.errors import FrameError, LinkDown, LinkError, Nak, NakReason
from drivers.tdl.frame import (
    ACK,
    ANSWER_TYPES,
    MAX_FRAME_LEN,
    NAK,
    PNG,
    PON,
    DeviceAddr,
    Frame,
    decode,
    encode,
)
from drivers.tdl.session import LinkSession, OnFrame, OnLink, PonFields, Role, Transport

__all__ = [
    "ACK",
    "ANSWER_TYPES",
    "MAX_FRAME_LEN",
    "NAK",
    "PNG",
    "PON",
    "DeviceAddr",
    "Frame",
    "FrameError",
    "LinkDown",
    "LinkError",
    "LinkSession",
    "Nak",
    "NakReason",
    "OnFrame",
    "OnLink",
    "PonFields",
    "Role",
    "StreamDecoder",
    "Transport",
    "crc16",
    "decode",
    "encode",
]
