"""What a table records, as frozen named types, registered with the codec
(``tablecore/codec.py``).

- Table events: one type per kind (``BetPlaced`` is the kind ``bet``...).
  The table builds them only when someone listens; a listener gets the
  record and, for the journal, the stream and the displays, its fields as a
  dict (``TableEvent.data``: exactly the fields it carries, so the journal's
  JSON is what it always was). An event with a field its kind does not
  declare is refused: kinds never grow keys silently.
- What a table is asked to do (its inputs) are records too, of the
  engine's (``tablesim/engine/inputs.py``) and each game's.
Device reports (``drivers/events.py``) are records too; the layers that
hand them to a table or read them back register them with the codec
(``register_family``), as the core knows nothing above it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar

from tablecore.codec import OMITTED, register
from tablecore.wording import device_text, message_of




@dataclass(frozen=True, slots=True)
class TableRecord:
    """A table event's record; ``KIND`` is its kind."""

    KIND: ClassVar[str] = ""

    def as_data(self) -> dict[str, Any]:
        """Its fields, in declaration order, leaving out the omitted ones."""
        names = _FIELD_NAMES.get(type(self))
        if names is None:  # (dataclasses.fields walks the class each call: once per class here)
            names = _FIELD_NAMES[type(self)] = tuple(f.name for f in dataclasses.fields(self))
        return {n: v for n in names if (v := getattr(self, n)) is not OMITTED}


#: each record class's field names, in declaration order
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


RECORDS: dict[str, type[TableRecord]] = {}


def table_event(kind: str):
    """Declare a frozen record class the table event of ``kind``: it is
    registered by kind (``table_record``) and with the codec. The engine's
    records are here; a game declares its own in its folder, and they are
    registered when the game is imported. A kind names one record: a second
    class for a kind already taken is refused (a game must not reuse the
    engine's ``bet``, ``void`` or ``result``, which the journal's checks count)."""

    def add(cls: type[TableRecord]) -> type[TableRecord]:
        taken = RECORDS.get(kind)
        if taken is not None and (taken.__module__, taken.__qualname__) != (cls.__module__, cls.__qualname__):
            raise TypeError(f"table event kind {kind!r} is {taken.__qualname__}'s, not {cls.__qualname__}'s")
        cls.KIND = kind
        RECORDS[kind] = cls
        register(cls)
        return cls

    return add


# --- the round -----------------------------------------------------------------------


@table_event("state")
@dataclass(frozen=True, slots=True)
class StateChanged(TableRecord):
    state: str
    previous: str
    trigger: str


@table_event("instruction")
@dataclass(frozen=True, slots=True)
class Instruction(TableRecord):
    """What the dealer is to do next: ``text`` in English (what the journal
    and the logs read, as records of earlier releases have it) and, when the
    text came from a catalog (a ``Said``), ``say``: its message id and values,
    so a console, a board or a player's page words it in its own language."""

    text: str
    to: str = OMITTED
    boxes: list = OMITTED
    cards: int = OMITTED
    min_turns: int = OMITTED
    say: dict = OMITTED

    def __post_init__(self) -> None:
        if self.say is OMITTED:
            said = message_of(self.text)
            if said is not None:
                object.__setattr__(self, "say", said)


@table_event("bet")
@dataclass(frozen=True, slots=True)
class BetPlaced(TableRecord):
    position: str
    bet: str
    amount: str
    change: bool = OMITTED
    player: str = OMITTED  # whose bet; omitted: the position's own seat


@table_event("bets_placed")
@dataclass(frozen=True, slots=True)
class BetsPlaced(TableRecord):
    """A group of bets placed together (the bet intake's group, journaled as its one
    ``place_bets`` record, ``tablecore.betbatch``): one event for the group, not a
    ``bet`` each (thousands a second). ``bets``: the record's entries, each
    ``[ref, position, bet, amount, player, (actor)]``; a listener that shows bets one by
    one reads them with ``betbatch.bet_event``."""

    bets: list


@table_event("bet_withdrawn")
@dataclass(frozen=True, slots=True)
class BetWithdrawn(TableRecord):
    position: str
    bet: str
    amount: str
    change: bool = OMITTED
    player: str = OMITTED


@table_event("settlement")
@dataclass(frozen=True, slots=True)
class Settlement(TableRecord):
    results: dict
    #: football's commission rule: what was rounded off each payout (position -> bet -> amount)
    commission_rounded_off: dict = OMITTED
    #: in whose favour (player: the commission rounded down; house: the payout rounded down)
    commission_rounding: str = OMITTED


@table_event("result")
@dataclass(frozen=True, slots=True)
class Result(TableRecord):
    """The round's final result (the public result format)."""

    game: str
    status: str
    void_reason: str | None
    outcome: dict
    results: dict
    net: dict
    players: dict = OMITTED  # each named player's results, net and stakes
    #: a settled round's stakes at risk, per position and stake name (the bets
    #: placed, and stakes made during the round such as a Fortune 3 play);
    #: omitted in records written before it was recorded
    stakes: dict = OMITTED


@table_event("void")
@dataclass(frozen=True, slots=True)
class Voided(TableRecord):
    reason: str
    returned: dict
    actor: str | None
    why: str | None
    returned_by_player: dict = OMITTED  # position -> player -> bet -> stake, where bets name players


@table_event("paused")
@dataclass(frozen=True, slots=True)
class Paused(TableRecord):
    actor: str
    why: str


@table_event("resumed")
@dataclass(frozen=True, slots=True)
class Resumed(TableRecord):
    actor: str
    why: str


@table_event("incident")
@dataclass(frozen=True, slots=True)
class IncidentOpened(TableRecord):
    """An incident: ``text`` in English (the journal's), and ``say`` its
    message id and values where it has one (see ``Instruction``)."""

    id: int
    code: int
    text: str
    blocking: bool
    card: str | None
    say: dict = OMITTED

    def __post_init__(self) -> None:
        if self.say is OMITTED:
            said = device_text(self.code, self.text)
            if said is not None:
                object.__setattr__(self, "say", said)


@table_event("incident_resolved")
@dataclass(frozen=True, slots=True)
class IncidentResolved(TableRecord):
    id: int
    decision: str
    card: str | None
    actor: str
    why: str


# --- devices --------------------------------------------------------------------------


@table_event("fault")
@dataclass(frozen=True, slots=True)
class Fault(TableRecord):
    device: str
    code: int
    severity: str = OMITTED
    text: str = OMITTED


@table_event("fault_cleared")
@dataclass(frozen=True, slots=True)
class FaultCleared(TableRecord):
    device: str
    code: int


@table_event("link")
@dataclass(frozen=True, slots=True)
class Link(TableRecord):
    device: str
    up: bool
    reason: str = OMITTED


@table_event("device")
@dataclass(frozen=True, slots=True)
class DeviceReport(TableRecord):
    """A device report the game has no use for, recorded by its type's name."""

    device: str
    report: str


# --- cards (the card games) ----------------------------------------------------------


@table_event("card")
@dataclass(frozen=True, slots=True)
class CardDealt(TableRecord):
    to: str
    card: str


@table_event("card_set_aside")
@dataclass(frozen=True, slots=True)
class CardSetAside(TableRecord):
    card: str
    reason: str


def table_record(kind: str, data: dict[str, Any]) -> TableRecord:
    """The record of a table event; an unknown kind or field is a bug, refused."""
    try:
        cls = RECORDS[kind]
    except KeyError:
        raise TypeError(f"no table event of kind {kind!r} (core/records.py, or the game's records.py)") from None
    return cls(**data)
