"""Running totals of a session: rounds, wagered and returned per bet."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from tablesim.engine.result import RoundResult
from tablecore.money import ZERO


@dataclass
class BetTotals:
    wagered: Decimal = ZERO
    player_net: Decimal = ZERO
    count: int = 0

    @property
    def hold(self) -> Decimal | None:
        """House result as a fraction of what was wagered."""
        return -self.player_net / self.wagered if self.wagered else None


@dataclass
class SessionStats:
    rounds: int = 0
    void: int = 0
    by_bet: dict[str, BetTotals] = field(default_factory=dict)

    def add(
        self, result: RoundResult, wagered: list[tuple[str, Decimal]], fold_into: dict[str, str] | None = None
    ) -> None:
        """Count a round; ``wagered`` lists each stake as (bet, amount);
        ``fold_into`` maps result keys that have no stake of their own
        (ante_bonus) onto the bet that pays them."""
        self.rounds += 1
        if result.status == "void":
            self.void += 1
            return
        fold_into = fold_into or {}
        for bet, amount in wagered:
            totals = self.by_bet.setdefault(bet, BetTotals())
            totals.wagered += amount
            totals.count += 1
        for per_position in result.results.values():
            for bet, value in per_position.items():
                self.by_bet.setdefault(fold_into.get(bet, bet), BetTotals()).player_net += value

    @property
    def wagered(self) -> Decimal:
        return sum((t.wagered for t in self.by_bet.values()), ZERO)

    @property
    def house_result(self) -> Decimal:
        return -sum((t.player_net for t in self.by_bet.values()), ZERO)
