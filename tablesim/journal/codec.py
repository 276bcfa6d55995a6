"""JSON encoding of what the journal records: action arguments and device events."""

from __future__ import annotations

import dataclasses
from decimal import Decimal
from typing import Any

import drivers.events as ev
from tablesim.core.cards import Card, DealtCard, parse_dealt

_EVENT_TYPES = {
    name: cls
    for name, cls in vars(ev).items()
    if isinstance(cls, type) and issubclass(cls, ev.DeviceEvent) and cls is not ev.DeviceEvent
}


def encode(value: Any) -> Any:
    if isinstance(value, Decimal):
        return {"$dec": str(value)}
    if isinstance(value, Card):
        return {"$card": value.code}
    if isinstance(value, DealtCard):
        return {"$dealt": value.code}
    if isinstance(value, ev.DeviceEvent):
        fields = {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return {"$event": type(value).__name__, **fields}
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
    if "$event" in value:
        cls = _EVENT_TYPES[value["$event"]]
        kwargs = {k: decode(v) for k, v in value.items() if k != "$event"}
        for f in dataclasses.fields(cls):
            if isinstance(kwargs.get(f.name), list):
                kwargs[f.name] = tuple(kwargs[f.name])
        return cls(**kwargs)
    return {k: decode(v) for k, v in value.items()}
