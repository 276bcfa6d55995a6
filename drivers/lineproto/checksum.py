"""Checksums of line protocols, by name: what a table configuration's
``checksum`` names.

Each is written after the line's payload as uppercase hex digits (two for
an 8-bit sum, four for a CRC-16), as most ASCII device protocols do. The
CRC-16 variants are given by their catalogue parameters (width 16: poly,
init, reflected in and out, xorout) and checked against their catalogue
check value, the CRC of ``b"123456789"``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Crc16:
    poly: int
    init: int
    reflect: bool  # input and output reflected together (every variant here)
    xorout: int
    check: int  # the catalogue's CRC of b"123456789"

    def __call__(self, data: bytes) -> int:
        crc = self.init
        if self.reflect:
            poly = int(f"{self.poly:016b}"[::-1], 2)
            for byte in data:
                crc ^= byte
                for _ in range(8):
                    crc = (crc >> 1) ^ poly if crc & 1 else crc >> 1
        else:
            for byte in data:
                crc ^= byte << 8
                for _ in range(8):
                    crc = ((crc << 1) ^ self.poly) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
        return crc ^ self.xorout


def sum8(data: bytes) -> int:
    return sum(data) & 0xFF


def xor8(data: bytes) -> int:
    out = 0
    for byte in data:
        out ^= byte
    return out


CRC16 = {
    "crc-16/modbus": Crc16(0x8005, 0xFFFF, True, 0x0000, 0x4B37),
    "crc-16/ccitt-false": Crc16(0x1021, 0xFFFF, False, 0x0000, 0x29B1),
    "crc-16/xmodem": Crc16(0x1021, 0x0000, False, 0x0000, 0x31C3),
    "crc-16/kermit": Crc16(0x1021, 0x0000, True, 0x0000, 0x2189),
    "crc-16/arc": Crc16(0x8005, 0x0000, True, 0x0000, 0xBB3D),
    "crc-16/ibm-3740": Crc16(0x1021, 0xFFFF, False, 0x0000, 0x29B1),  # CCITT-FALSE's catalogue name
}


@dataclass(frozen=True)
class Checksum:
    name: str
    digits: int  # hex digits on the line (0: none)
    compute: Callable[[bytes], int]

    def text(self, payload: bytes) -> bytes:
        """The checksum of ``payload`` as it is written on the line."""
        if not self.digits:
            return b""
        return f"{self.compute(payload):0{self.digits}X}".encode("ascii")


NONE = Checksum("none", 0, lambda data: 0)
CHECKSUMS: dict[str, Checksum] = {
    "none": NONE,
    "sum-8": Checksum("sum-8", 2, sum8),
    "xor-8": Checksum("xor-8", 2, xor8),
    **{name: Checksum(name, 4, crc) for name, crc in CRC16.items()},
}


def checksum(name: str) -> Checksum:
    """The checksum called ``name`` (case-insensitive); KeyError if none is."""
    return CHECKSUMS[name.lower()]
