"""The wheel's own table events: the spin, its revolutions, its result or
no spin. They register themselves with the engine's records
(``tablecore/records.py``) when the game is imported."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from tablecore.codec import OMITTED
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
    #: how the turns were obtained (the driver's word; absent in journals written before it was kept)
    turns_source: str = OMITTED
    #: the bound of a measured count (absent: exact)
    turns_error: Decimal = OMITTED


@table_event("no_spin")
@dataclass(frozen=True, slots=True)
class NoSpin(TableRecord):
    reason: str
    turns: Decimal
    segment: int | None
    count: int
    turns_source: str = OMITTED
    turns_error: Decimal = OMITTED
