"""What a table is asked to do, as frozen records: one type per public action.

Each public action (``@action``, ``actions.py``) has an input record whose
fields are the action's parameters: ``PlaceBet(position, bet, amount,
player)``, ``Void(reason, actor=..., why=...)``. A call of the action and its
record are the same request: ``table.place_bet("3", "ante", "10")`` is
``table.act(PlaceBet("3", "ante", "10"))``. Every record also names who asked
(``actor``): a caller that knows (the bet intake, the server running an
operator's command) names them; otherwise the journal names the action's
usual actor ("dealer", "player", the reporting device).

The journal stores a record as the action's arguments (``args``: the fields
in order, ``kwargs``: the keyword-only ones given), its actor in the record's
``actor`` column: the layout the journals of earlier releases used for their
untyped inputs, so those read back into the same records
(``from_journal``). The engine's records are here; a game's own are in its
folder (its ``machine.py``, beside its procedure).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, ClassVar

from drivers.events import DeviceEvent
from tablecore import betbatch
from tablecore.codec import SCHEMA_VERSION, decode, encode


@dataclass(frozen=True, slots=True)
class TableInput:
    """One public action as asked (see the module)."""

    #: the action takes ``actor`` as its own parameter (an operator's action,
    #: a void): then it is also one of the action's arguments
    ACTOR_IS_ARGUMENT: ClassVar[bool] = False

    #: who asked; None: not named (the journal names the action's usual actor)
    actor: str | None = field(default=None, kw_only=True)

    def arguments(self) -> tuple[tuple, dict[str, Any]]:
        """The action's arguments: (positional, keyword). Positional
        parameters left at their default at the end are not given."""
        spec = _layout(type(self))
        values = [getattr(self, n) for n in spec[0]]
        defaults = spec[1]
        while values and len(values) > spec[2] and values[-1] == defaults[len(values) - 1]:
            values.pop()
        named = {n: v for n in spec[3] if (v := getattr(self, n)) is not None}
        return tuple(values), named

    def to_journal(self, *, nested: bool = False) -> dict[str, Any]:
        """The record's ``data`` (its actor goes to the record's own column)."""
        args, kwargs = self.arguments()
        data: dict[str, Any] = {"args": encode(list(args)), "kwargs": encode(kwargs)}
        if nested:
            data["nested"] = True
        data["schema"] = SCHEMA_VERSION
        return data

    @classmethod
    def from_journal(cls, data: dict[str, Any], actor: str | None = None) -> "TableInput":
        """Read back a journaled input of any schema version (version 1, no
        ``schema`` field, stored the same arguments the same way)."""
        version = data.get("schema", 1)
        if version > SCHEMA_VERSION:
            raise ValueError(f"input record of schema {version}: this release reads up to {SCHEMA_VERSION}")
        args = decode(data.get("args", []))
        kwargs = decode(data.get("kwargs", {}))
        if not cls.ACTOR_IS_ARGUMENT:
            kwargs = {**kwargs, "actor": actor}
        return cls(*args, **kwargs)


#: per record class: (positional fields, their defaults, how many are required, keyword fields)
_LAYOUTS: dict[type, tuple] = {}
_REQUIRED = object()


def _layout(cls: type) -> tuple:
    layout = _LAYOUTS.get(cls)
    if layout is None:
        fields = dataclasses.fields(cls)
        positional = [f for f in fields if not f.kw_only]
        defaults = [_REQUIRED if f.default is dataclasses.MISSING else f.default for f in positional]
        required = sum(1 for d in defaults if d is _REQUIRED)
        keywords = tuple(f.name for f in fields if f.kw_only and (f.name != "actor" or cls.ACTOR_IS_ARGUMENT))
        layout = _LAYOUTS[cls] = (tuple(f.name for f in positional), defaults, required, keywords)
    return layout


def operator_field(default: Any = dataclasses.MISSING) -> Any:
    """A keyword-only field of an operator's action (``actor``, ``why``)."""
    return field(default=default, kw_only=True)


# --- the engine's actions ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class OpenRound(TableInput):
    """A new round opens (betting, or a game's first step)."""

    round_id: str | None = None


@dataclass(frozen=True, slots=True)
class PlaceBet(TableInput):
    """A bet on ``position``; ``player``: whose it is (None: the position's own seat).
    ``amount`` as asked: a ``Decimal`` from the bet intake, text from a
    script or the console (the table's rule refuses what is not an amount)."""

    position: str
    bet: str
    amount: Decimal | str
    player: str | None = None


@dataclass(frozen=True, slots=True)
class PlaceBets(TableInput):
    """A group of bets taken as one action (``tablecore.betbatch``): each entry
    ``[ref, position, bet, amount, player(, actor)]``. The bet intake journals
    it after placing each bet on its own (a refused one is not in it); a replay
    places them again in order, which is how they were accepted."""

    bets: tuple = ()

    def to_journal(self, *, nested: bool = False) -> dict[str, Any]:
        entries = [list(e) for e in self.bets]
        return {"bets": entries, "root": betbatch.root(entries)}

    @classmethod
    def from_journal(cls, data: dict[str, Any], actor: str | None = None) -> "PlaceBets":
        return cls(tuple(tuple(e) for e in data.get("bets") or ()), actor=actor)

    def each(self) -> list[PlaceBet]:
        """The bets, one ``PlaceBet`` each (under its own actor, else the batch's)."""
        return [PlaceBet(e[1], e[2], e[3], e[4], actor=e[5] if len(e) > 5 else self.actor) for e in self.bets]


@dataclass(frozen=True, slots=True)
class WithdrawBet(TableInput):
    position: str
    bet: str
    player: str | None = None


@dataclass(frozen=True, slots=True)
class CloseBetting(TableInput):
    """No more bets."""


@dataclass(frozen=True, slots=True)
class StartDealing(TableInput):
    """The dealer starts to deal."""


@dataclass(frozen=True, slots=True)
class Void(TableInput):
    """The round is void, every bet returned: why (``reason``, the rules'
    word), who called it and what they said."""

    ACTOR_IS_ARGUMENT = True
    reason: str
    why: str | None = operator_field(None)


@dataclass(frozen=True, slots=True)
class OperatorAction(TableInput):
    """An operator's action: who (required) and why, both journaled. A
    game's or the floor's own operator actions derive from it."""

    ACTOR_IS_ARGUMENT = True
    actor: str = operator_field()
    why: str = operator_field()


@dataclass(frozen=True, slots=True)
class Pause(OperatorAction):
    pass


@dataclass(frozen=True, slots=True)
class Resume(OperatorAction):
    pass


@dataclass(frozen=True, slots=True)
class ResolveIncident(OperatorAction):
    """A supervisor confirms or rejects the open incident, naming the card where one is needed."""

    decision: str
    card: str | None = operator_field(None)


@dataclass(frozen=True, slots=True)
class Report(TableInput):
    """A device's report handed to the table; its actor is the device."""

    event: DeviceEvent

    @classmethod
    def from_journal(cls, data: dict[str, Any], actor: str | None = None) -> "Report":
        (event,) = decode(data.get("args", []))
        return cls(event, actor=actor)
