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
    #: a remote player's decision on the shared remote hand: the platform's ref
    #: for it (its Play debit), the Play staked (the player's Ante), and
    #: whether the decision timer made it (a fold)
    ref: str = OMITTED
    stake: str = OMITTED
    timed_out: bool = OMITTED


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


@table_event("remote_decisions")
@dataclass(frozen=True, slots=True)
class RemoteDecisions(TableRecord):
    """The remote hand's players decide: how many, within how many seconds
    (the decision timer starts; a profile with a remote hand)."""

    players: int
    pending: int
    seconds: int
