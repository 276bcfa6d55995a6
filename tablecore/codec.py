"""One codec for everything the journal stores: JSON with typed values.

Exact amounts, cards and records are tagged so that they come back as the
same types: ``{"$dec": "12.50"}``, ``{"$card": "AS"}``, ``{"$dealt": "AS^"}``
and ``{"$event": "CardRead", ...fields}`` for a device report or
``{"$record": "PlaceBet", ...fields}`` for a table record. Record types are
frozen dataclasses registered here by whoever defines them (the core knows
no device or table type).

``SCHEMA_VERSION`` is written into the journal (a ``meta``/``schema`` record
when a table attaches to it). Version 1, the journals written before it
existed, used the same tags; its inputs stored positional ``args`` and
keyword ``kwargs`` of the action instead of named fields.
"""

from __future__ import annotations

import dataclasses
from decimal import Decimal
from typing import Any

from tablecore.cards import Card, DealtCard, parse_dealt

#: 1: the journals before typed records (no schema record); 2: typed inputs
SCHEMA_VERSION = 2

class _Omitted:
    """The value of a record's optional field that was not given: left out
    when the record is written, given its default when it is read."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "OMITTED"


OMITTED: Any = _Omitted()

_TYPES: dict[str, tuple[str, type]] = {}  # tag -> class, by class name
_TAGS: dict[type, str] = {}


def register(*classes: type, tag: str = "$record") -> None:
    """Make frozen dataclasses encodable under ``tag`` with their class name."""
    for cls in classes:
        if not dataclasses.is_dataclass(cls):
            raise TypeError(f"{cls.__name__} is not a dataclass")
        _TYPES[f"{tag}:{cls.__name__}"] = (tag, cls)
        _TAGS[cls] = tag


def register_family(module: Any, base: type, *, tag: str) -> None:
    """Register every subclass of ``base`` defined in ``module``."""
    register(*(cls for cls in vars(module).values()
               if isinstance(cls, type) and issubclass(cls, base) and cls is not base), tag=tag)


def registered(tag: str, name: str) -> type:
    try:
        return _TYPES[f"{tag}:{name}"][1]
    except KeyError:
        raise ValueError(f"unknown record type {name!r} ({tag})") from None


#: values that are their own JSON (most of what a table action carries: checked first)
_PLAIN = frozenset({str, int, float, bool, type(None)})


def encode(value: Any) -> Any:
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is dict:  # (a plain dict or list is none of the tagged types below)
        # a plain value inline, not through a call (a bet's record is mostly text)
        return {(k if type(k) is str else str(k)): (v if type(v) in _PLAIN else encode(v)) for k, v in value.items()}
    if kind is list:
        return [v if type(v) in _PLAIN else encode(v) for v in value]
    if isinstance(value, Decimal):
        return {"$dec": str(value)}
    if isinstance(value, Card):
        return {"$card": value.code}
    if isinstance(value, DealtCard):
        return {"$dealt": value.code}
    tag = _TAGS.get(type(value))
    if tag is not None:
        fields = {f.name: encode(v) for f in dataclasses.fields(value) if (v := getattr(value, f.name)) is not OMITTED}
        return {tag: type(value).__name__, **fields}
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        return {str(k): encode(v) for k, v in value.items()}
    return value


def decode(value: Any) -> Any:
    if isinstance(value, list):
        return [decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "$dec" in value:
        return Decimal(value["$dec"])
    if "$card" in value:
        return parse_dealt(value["$card"]).card
    if "$dealt" in value:
        return parse_dealt(value["$dealt"])
    for tag in ("$event", "$record"):
        if tag in value:
            cls = registered(tag, value[tag])
            kwargs = {k: decode(v) for k, v in value.items() if k != tag}
            for f in dataclasses.fields(cls):
                if isinstance(kwargs.get(f.name), list):
                    kwargs[f.name] = tuple(kwargs[f.name])
            return cls(**kwargs)
    return {k: decode(v) for k, v in value.items()}
