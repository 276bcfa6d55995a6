"""Football's own table input (``tablesim/engine/inputs.py``): the dealer
settles once the last third card is in."""

from __future__ import annotations

from dataclasses import dataclass

from tablesim.engine.inputs import TableInput


@dataclass(frozen=True, slots=True)
class Settle(TableInput):
    """Settle the round (Art. 10)."""
