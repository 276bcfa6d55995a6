"""Table limits: the minimum and maximum of each bet, from the table config."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from tablesim.core.money import fmt
from tablesim.core.validate import Reader


@dataclass(frozen=True)
class Limit:
    minimum: Decimal
    maximum: Decimal


@dataclass(frozen=True)
class Limits:
    by_bet: dict[str, Limit] = field(default_factory=dict)

    def check(self, bet: str, amount: Decimal) -> str | None:
        """Why ``amount`` is refused for ``bet``, or None if it is within limits."""
        limit = self.by_bet.get(bet)
        if limit is None:
            return None
        if amount < limit.minimum:
            return f"{fmt(amount)} is under the table minimum {fmt(limit.minimum)} for {bet}"
        if amount > limit.maximum:
            return f"{fmt(amount)} is over the table limit {fmt(limit.maximum)} for {bet}"
        return None

    @staticmethod
    def parse(reader: Reader, bets: tuple[str, ...]) -> "Limits":
        """``[limits] <bet> = {min = .., max = ..}``; ``default`` applies to unnamed bets."""
        out: dict[str, Limit] = {}
        default = None
        for name in reader.data:
            if name != "default" and name not in bets:
                raise reader.fail(name, f"unknown bet (bets: {', '.join(bets)})")
        for name in ("default", *bets):
            if not reader.has(name):
                continue
            sub = reader.sub(name)
            lo = sub.decimal("min")
            hi = sub.decimal("max")
            sub.reject_unknown()
            if lo <= 0 or hi < lo:
                raise reader.fail(name, f"needs 0 < min <= max, got min {fmt(lo)} max {fmt(hi)}")
            if name == "default":
                default = Limit(lo, hi)
            else:
                out[name] = Limit(lo, hi)
        if default is not None:
            for bet in bets:
                out.setdefault(bet, default)
        return Limits(out)

