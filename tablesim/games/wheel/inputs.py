"""The wheel's own table inputs (``tablesim/engine/inputs.py``): a player
changes a bet while betting is open (Art. 2); the dealer calls "no spin"
(Art. 4(4))."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from tablesim.engine.inputs import TableInput


@dataclass(frozen=True, slots=True)
class ChangeBet(TableInput):
    """Set ``player``'s bet on ``spot`` to ``amount``."""

    player: str
    spot: str
    amount: Decimal | str


@dataclass(frozen=True, slots=True)
class DeclareNoSpin(TableInput):
    """No spin (Art. 4(4)): ``reason`` the dealer's call, or why the table calls it."""

    reason: str = "dealer"
