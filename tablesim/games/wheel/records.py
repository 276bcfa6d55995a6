"""The wheel's own table events: the spin, its revolutions, its result or
no spin. They register themselves with the engine's records
(``tablecore/records.py``) when the game is imported."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from tablecore.records import TableRecord, table_event


@table_event("spin_started")
@dataclass(frozen=True, slots=True)
class SpinStarted(TableRecord):
    direction: str


@table_event("revolution")
@dataclass(frozen=True, slots=True)
class Revolution(TableRecord):
    n: int


@table_event("stray_revolution")
@dataclass(frozen=True, slots=True)
class StrayRevolution(TableRecord):
    n: int
    round: str


@table_event("spin_result")
@dataclass(frozen=True, slots=True)
class SpinResult(TableRecord):
    segment: int
    symbol: str
    turns: Decimal
    direction: str


@table_event("no_spin")
@dataclass(frozen=True, slots=True)
class NoSpin(TableRecord):
    reason: str
    turns: Decimal
    segment: int | None
    count: int
