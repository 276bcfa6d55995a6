"""Plain JSON values of the engine's objects: money as canonical text, cards
as codes, enums as their values, dataclasses as mappings. The console's
stream, its adapters and the snapshots all speak this."""

from __future__ import annotations

import dataclasses
import enum
import json
from decimal import Decimal
from typing import Any

from tablecore.cards import Card, DealtCard
from tablecore.money import fmt

#: a string as compact JSON with non-ASCII kept (``ensure_ascii=False``) writes it: the
#: encoder's own function, for texts put together from pieces (the same escapes)
quoted = json.encoder.encode_basestring


def jsonable(value: Any) -> Any:
    """Plain JSON values: money as canonical text, cards as codes."""
    kind = type(value)
    if kind is str or kind is int or value is None:  # (the most of what events carry: checked first)
        return value
    if kind is dict:  # (text values inline, not through a call: an event is mostly text)
        return {str(k): (v if type(v) is str else jsonable(v)) for k, v in value.items()}
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value
    if isinstance(value, Decimal):
        return fmt(value)
    if isinstance(value, (Card, DealtCard)):
        return value.code
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [jsonable(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    return str(value)
