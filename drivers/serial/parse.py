"""Checking the fields of device messages.

A handler that finds a field it cannot accept raises :class:`Refuse` with
the NAK reason the driver answers (``FMT`` a malformed field, ``STA`` not
allowed now, ``SEQ`` out of order); nothing is delivered from that frame.
"""

from __future__ import annotations

from decimal import Decimal


from drivers.tdl import Frame, NakReason
from tablecore.cards import RANK_OF, SUITS, Card, DealtCard, parse_dealt
from tablecore.errors import InputError


class Refuse(Exception):
    """The frame is not taken: answer ``NAK|reason``."""

    def __init__(self, reason: NakReason | str, why: str) -> None:
        super().__init__(f"{reason}: {why}")
        self.reason = NakReason(reason)
        self.why = why


def fmt(why: str) -> Refuse:
    return Refuse(NakReason.FMT, why)


def sta(why: str) -> Refuse:
    return Refuse(NakReason.STA, why)


def fields(frame: Frame, *counts: int) -> tuple[str, ...]:
    """The frame's fields, checking their number is one of ``counts``."""
    if len(frame.fields) not in counts:
        want = " or ".join(str(c) for c in counts)
        raise fmt(f"{frame.type} has {len(frame.fields)} field(s), expected {want}")
    return frame.fields


def integer(text: str, what: str, lo: int | None = None, hi: int | None = None) -> int:
    if not text.isascii() or not text.isdigit() or len(text) > 9:
        raise fmt(f"{what} {text!r} is not a decimal number")
    value = int(text)
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise fmt(f"{what} {value} is outside {lo}..{hi}")
    return value


def measure(text: str, what: str) -> Decimal:
    """A non-negative decimal measurement such as turns (``5`` or ``5.25``),
    exact: 2.999 turns stays fewer than three (a float could round it up)."""
    head, dot, tail = text.partition(".")
    if not (head.isascii() and head.isdigit()) or len(text) > 12 or (dot and not (tail.isascii() and tail.isdigit())):
        raise fmt(f"{what} {text!r} is not a decimal measurement")
    return Decimal(text)


def choice(text: str, what: str, options: tuple[str, ...]) -> str:
    if text not in options:
        raise fmt(f"{what} {text!r} is not one of {', '.join(options)}")
    return text


def card(rank: str, suit: str) -> Card:
    """A card from CRD's rank and suit fields (rank ``2``-``9``, ``T`` or ``10``, ``J Q K A``)."""
    r = "T" if rank == "10" else rank
    if r not in RANK_OF or len(suit) != 1 or suit not in SUITS:
        raise fmt(f"{rank!r} {suit!r} is not a card (ranks 2-9 T J Q K A, suits S H D C)")
    return parse_dealt(r + suit).card


def card_code(text: str, what: str = "card") -> DealtCard:
    """A card code such as ``QH`` or ``7D^`` (``^``: it came out face up)."""
    if not text or text != text.strip() or text.upper() != text:
        raise fmt(f"{what} {text!r} is not a card code")
    try:
        return parse_dealt(text)
    except InputError:
        raise fmt(f"{what} {text!r} is not a card code") from None


def card_list(text: str, what: str = "cards") -> list[DealtCard]:
    if not text:
        return []
    return [card_code(part, what) for part in text.split(",")]


def encode_cards(cards: list[DealtCard] | tuple[DealtCard, ...]) -> str:
    return ",".join(c.code for c in cards)
