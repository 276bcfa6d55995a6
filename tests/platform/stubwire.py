"""A stand-in for a player's connection (``tablesim.web.wsframes.Wire``):
each write kept as it came, and the text frames of a write read back."""

from __future__ import annotations


class StubWire:
    open = True

    def __init__(self) -> None:
        self.writes: list[bytes] = []

    def write(self, frames: bytes) -> bool:
        self.writes.append(frames)
        return True

    def abort(self) -> None:
        self.open = False


def texts(frames: bytes) -> list[str]:
    """The texts of a write's frames (a server's: unmasked, each a whole text frame)."""
    out, at = [], 0
    while at < len(frames):
        assert frames[at] == 0x81
        size, head = frames[at + 1] & 0x7F, 2
        if size >= 126:
            head = 4 if size == 126 else 10
            size = int.from_bytes(frames[at + 2:at + head], "big")
        out.append(frames[at + head:at + head + size].decode())
        at += head + size
    return out
