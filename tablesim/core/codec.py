"""JSON encoding of what a table journals: action arguments and the records
they carry (money as exact decimals, cards as codes, device events and other
frozen records by type name).

It lives in the core so that the engine writes journal inputs without
knowing the journal, and the journal reads them without knowing the engine.
Decoding a record needs its type: the caller names the record types it
accepts (the journal's codec passes the device events).
"""

from __future__ import annotations

import dataclasses
from decimal import Decimal
from typing import Any, Mapping

from tablesim.core.cards import Card, DealtCard, parse_dealt


def encode(value: Any) -> Any:
    if isinstance(value, Decimal):
        return {"$dec": str(value)}
    if isinstance(value, Card):
        return {"$card": value.code}
    if isinstance(value, DealtCard):
        return {"$dealt": value.code}
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        return {str(k): encode(v) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return {"$event": type(value).__name__, **fields}
    return value


def decode(value: Any, types: Mapping[str, type]) -> Any:
    """``value`` as :func:`encode` wrote it; ``types``: record type name -> class."""
    if isinstance(value, list):
        return [decode(v, types) for v in value]
    if not isinstance(value, dict):
        return value
    if "$dec" in value:
        return Decimal(value["$dec"])
    if "$card" in value:
        return parse_dealt(value["$card"]).card
    if "$dealt" in value:
        return parse_dealt(value["$dealt"])
    if "$event" in value:
        cls = types[value["$event"]]
        kwargs = {k: decode(v, types) for k, v in value.items() if k != "$event"}
        for f in dataclasses.fields(cls):
            if isinstance(kwargs.get(f.name), list):
                kwargs[f.name] = tuple(kwargs[f.name])
        return cls(**kwargs)
    return {k: decode(v, types) for k, v in value.items()}
