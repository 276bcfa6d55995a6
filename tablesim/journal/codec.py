"""The journal's JSON codec: ``tablesim/core/codec.py``, with every record
type the journal stores registered (``tablesim/engine/records.py``)."""

from __future__ import annotations

import tablesim.engine.records  # noqa: F401  (registers the record types)
from tablesim.core.codec import SCHEMA_VERSION, decode, encode

__all__ = ["SCHEMA_VERSION", "decode", "encode"]
