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
    #: the game's bets in layout order: the rows' order, the same every run
    #: (a bet not named follows, alphabetically)
    order: tuple[str, ...] = ()

    def rows(self) -> list[tuple[str, BetTotals]]:
        rank = {bet: i for i, bet in enumerate(self.order)}
        return sorted(self.by_bet.items(), key=lambda item: (rank.get(item[0], len(rank)), item[0]))

    def add(self, result: RoundResult, fold_into: dict[str, str] | None = None) -> None:
        """Count a round: what it had at risk (``result.stakes``, the bets
        where the game does not say) per stake name, and what each result
        key made. A key that is itself a stake at the position (a play)
        counts under its own name; ``fold_into`` maps the others (an ante
        bonus) onto the stake they settle with."""
        self.rounds += 1
        if result.status == "void":
            self.void += 1
            return
        fold_into = fold_into or {}
        stakes = result.stakes if result.stakes is not None else result.bets
        for per_position in stakes.values():
            for bet, amount in per_position.items():
                totals = self.by_bet.setdefault(bet, BetTotals())
                totals.wagered += amount
                totals.count += 1
        for position, per_position in result.results.items():
            staked = stakes.get(position, {})
            for bet, value in per_position.items():
                under = bet if bet in staked else fold_into.get(bet, bet)
                self.by_bet.setdefault(under, BetTotals()).player_net += value

    @property
    def wagered(self) -> Decimal:
        return sum((t.wagered for t in self.by_bet.values()), ZERO)

    @property
    def house_result(self) -> Decimal:
        return -sum((t.player_net for t in self.by_bet.values()), ZERO)
