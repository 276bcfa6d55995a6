"""Fortune 3's own table events: a box's decision, the dealer's hand, the
shuffler's shuffle and service, the dealing mode. They register themselves
with the engine's records (``tablecore/records.py``) when the game is imported."""

from __future__ import annotations

from dataclasses import dataclass

from tablecore.codec import OMITTED
from tablecore.records import TableRecord, table_event


@table_event("decision")
@dataclass(frozen=True, slots=True)
class Decision(TableRecord):
    box: str
    decision: str
    player: str = OMITTED  # the named player seated at the box (Art. 9(1)); omitted: the box's own seat


@table_event("dealer")
@dataclass(frozen=True, slots=True)
class DealerHand(TableRecord):
    cards: list
    hand: str
    qualifies: bool


@table_event("dealing_mode")
@dataclass(frozen=True, slots=True)
class DealingMode(TableRecord):
    """A supervisor switched how the following rounds are dealt (Art. 11(4))."""

    mode: str
    previous: str
    actor: str
    why: str


@table_event("shuffler_out_of_service")
@dataclass(frozen=True, slots=True)
class ShufflerOutOfService(TableRecord):
    """The shuffler failed while dealing: no round is dealt from it until a
    supervisor confirms it was replaced or deals from the shoe (Art. 11(4))."""

    round: str
    reason: str
    text: str


@table_event("shuffler_replaced")
@dataclass(frozen=True, slots=True)
class ShufflerReplaced(TableRecord):
    """A supervisor confirmed the failed shuffler was replaced (Art. 11(4))."""

    failed_in: str
    actor: str
    why: str


@table_event("shuffle")
@dataclass(frozen=True, slots=True)
class Shuffled(TableRecord):
    shuffle_id: str
    count: int
    verified: bool
