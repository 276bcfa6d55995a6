"""CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, not reflected, xorout 0.

Check value: ``crc16(b"123456789") == 0x29B1``.
"""

from __future__ import annotations

POLY = 0x1021
INIT = 0xFFFF


def _make_table() -> tuple[int, ...]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ POLY) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return tuple(table)


_TABLE = _make_table()


def crc16(data: bytes, crc: int = INIT) -> int:
    """CRC of ``data``; pass a previous result as ``crc`` to continue over more bytes."""
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ _TABLE[(crc >> 8) ^ byte]
    return crc
