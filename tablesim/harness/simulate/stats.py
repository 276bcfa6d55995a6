"""Per-bet accumulators for a simulation.

Each round contributes, per bet, the stake wagered and the players' net
(exact Decimals, summed exactly) and the round's per-unit result x (a float,
for the variance only). The measured return is total net / total stake; its
confidence interval uses the spread of x over rounds, which accounts for the
correlation of boxes that share a dealer hand or a draw within a round.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import Decimal

Z = {0.99: 2.5758293035489, 0.999: 3.2905267314919}
#: the fewest wins and the fewest other rounds a bet needs before its interval is judged
MIN_EACH = 5


@dataclass
class BetAccumulator:
    rounds: int = 0
    wagered: Decimal = Decimal(0)
    net: Decimal = Decimal(0)
    sum_x: float = 0.0
    sum_x2: float = 0.0
    #: rounds the bet won something in (the rest it lost or pushed)
    wins: int = 0

    def add(self, stake: Decimal, net: Decimal) -> None:
        x = float(net / stake)
        self.rounds += 1
        self.wagered += stake
        self.net += net
        self.sum_x += x
        self.sum_x2 += x * x
        self.wins += net > 0

    def merge(self, other: "BetAccumulator") -> None:
        self.rounds += other.rounds
        self.wagered += other.wagered
        self.net += other.net
        self.sum_x += other.sum_x
        self.sum_x2 += other.sum_x2
        self.wins += other.wins

    @property
    def judged(self) -> bool:
        """Whether the interval can be trusted: it is the normal approximation,
        which needs the bet to have won and lost at least ``MIN_EACH`` times
        each (the usual rule for a proportion). Ten spins of a wheel never land
        on a 1-in-52 symbol, and a sample with no spread gives an interval of
        one point that the exact figure "misses": a bug reported where there
        is none."""
        return self.wins >= MIN_EACH and self.rounds - self.wins >= MIN_EACH

    @property
    def measured(self) -> float:
        return float(self.net / self.wagered) if self.wagered else math.nan

    def half_width(self, level: float = 0.99) -> float:
        """Half-width of the confidence interval of the mean per-unit result."""
        n = self.rounds
        if n < 2:
            return math.inf
        mean = self.sum_x / n
        var = max(self.sum_x2 / n - mean * mean, 0.0) * n / (n - 1)
        return Z[level] * math.sqrt(var / n)


@dataclass
class Tally:
    by_bet: dict[str, BetAccumulator] = field(default_factory=dict)
    rounds: int = 0
    void: int = 0
    trace: list[tuple[int, dict[str, tuple[str, str]]]] = field(default_factory=list)
    #: shares played into this tally (one per worker task)
    shares: int = 0

    def merge(self, other: "Tally") -> None:
        self.shares += other.shares
        self.rounds += other.rounds
        self.void += other.void
        for bet, acc in other.by_bet.items():
            self.by_bet.setdefault(bet, BetAccumulator()).merge(acc)
