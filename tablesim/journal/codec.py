"""The journal's JSON codec: ``tablesim/core/codec.py``. The record types a
journal stores are registered with it by the engine that writes them
(``tablesim/engine/records.py``, imported with every table): the journal
imports nothing of the engine."""

from __future__ import annotations

from tablesim.core.codec import SCHEMA_VERSION, decode, encode

__all__ = ["SCHEMA_VERSION", "decode", "encode"]
