"""The journal's JSON codec: ``tablesim/core/codec.py``, with every record
type the journal stores registered: the table's records
(``tablesim/core/records.py``) and the device reports handed to it."""

from __future__ import annotations

import drivers.events
import tablesim.core.records  # noqa: F401  (registers the table's records)
from tablesim.core.codec import SCHEMA_VERSION, decode, encode, register_family

register_family(drivers.events, drivers.events.DeviceEvent, tag="$event")

__all__ = ["SCHEMA_VERSION", "decode", "encode"]
