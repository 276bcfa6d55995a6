"""The journal's codec: :mod:`tablesim.core.codec`, reading back the device
events (the records a table's ``handle`` input carries)."""

from __future__ import annotations

from typing import Any

import drivers.events as ev
from tablesim.core import codec
from tablesim.core.codec import encode

EVENT_TYPES = {
    name: cls
    for name, cls in vars(ev).items()
    if isinstance(cls, type) and issubclass(cls, ev.DeviceEvent) and cls is not ev.DeviceEvent
}


def decode(value: Any) -> Any:
    return codec.decode(value, EVENT_TYPES)


__all__ = ["EVENT_TYPES", "decode", "encode"]
