"""The journal's JSON codec: ``tablecore/codec.py``, with every record
type the journal stores registered: the table's records
(``tablecore/records.py``) and the device reports handed to it."""

from __future__ import annotations

import drivers.events
import tablecore.records  # noqa: F401  (registers the table's records)
from tablecore.codec import SCHEMA_VERSION, decode, encode, register_family

register_family(drivers.events, drivers.events.DeviceEvent, tag="$event")

__all__ = ["SCHEMA_VERSION", "decode", "encode"]
