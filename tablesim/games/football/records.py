"""Football's own table events: the draw, the pack and the shoe count, an
exposed card. They register themselves with the engine's records
(``tablecore/records.py``) when the game is imported."""

from __future__ import annotations

from dataclasses import dataclass

from tablecore.records import TableRecord, table_event


@table_event("draw_made")
@dataclass(frozen=True, slots=True)
class DrawMade(TableRecord):
    draw: int
    draw_id: str
    source: str
    seeded: bool


@table_event("draw")
@dataclass(frozen=True, slots=True)
class DrawAccepted(TableRecord):
    draw: int
    upper: list
    lower: list
    source: str
    seeded: bool


@table_event("draw_confirmed")
@dataclass(frozen=True, slots=True)
class DrawConfirmed(TableRecord):
    draw: int


@table_event("pack_loaded")
@dataclass(frozen=True, slots=True)
class PackLoaded(TableRecord):
    pack_id: str
    decks: int
    cards: int
    reason: str


@table_event("shoe_count")
@dataclass(frozen=True, slots=True)
class ShoeCounted(TableRecord):
    pack_id: str
    dealt: int
    remaining: int


@table_event("exposed_card")
@dataclass(frozen=True, slots=True)
class ExposedCard(TableRecord):
    to: str
    card: str
    rule: str
