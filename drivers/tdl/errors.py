"""Errors of the TDL/1 link layer, and the NAK reasons they carry."""

from __future__ import annotations

from enum import StrEnum


class NakReason(StrEnum):
    """Why a frame was refused; the single field of a ``NAK`` frame.

    A StrEnum, so an owner may return either ``NakReason.STA`` or ``"STA"``.
    """

    CRC = "CRC"  # checksum wrong or unreadable: line noise, the sender resends
    FMT = "FMT"  # checksum right but the frame breaks the grammar: a sender bug
    SEQ = "SEQ"  # sequence error (the link layer never sends it; owners may)
    BSY = "BSY"  # cannot take it now: the sender waits and resends
    UNK = "UNK"  # unknown message type
    STA = "STA"  # not allowed in the current state


class FrameError(ValueError):
    """A frame that cannot be encoded or was received damaged.

    ``addr``, ``seq`` and ``type`` are what the header of a received frame
    read, when it could be read at all: the receiver needs the SEQ to NAK it.
    After a CRC failure they are only a best guess.
    """

    def __init__(
        self,
        reason: NakReason,
        message: str,
        *,
        addr: int | None = None,
        seq: int | None = None,
        type: str | None = None,
    ) -> None:
        super().__init__(f"{reason}: {message}")
        self.reason = NakReason(reason)
        self.message = message
        self.addr = addr
        self.seq = seq
        self.type = type


class LinkError(Exception):
    """Base of the errors ``LinkSession.send`` raises."""


class LinkDown(LinkError):
    """The peer did not answer (or the transport failed, or the session closed)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Nak(LinkError):
    """The peer answered ``NAK|reason`` to a frame we sent."""

    def __init__(self, reason: str, type: str, seq: int) -> None:
        super().__init__(f"{type} {seq:02X} refused: NAK|{reason}")
        self.reason = reason
        self.type = type
        self.seq = seq
