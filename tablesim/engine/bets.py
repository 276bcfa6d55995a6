"""The bets of one round: who bet what on which spot, refused when illegal."""

from __future__ import annotations

from decimal import Decimal
from typing import Callable, Iterator

from tablesim.engine.limits import Limits
from tablesim.core.errors import IllegalAction
from tablesim.core.money import exact, fmt, parse_amount
from tablesim.core.errors import InputError


class BetBook:
    """Bets keyed by position (a box, or a player) and bet name (or spot).

    ``positions`` is a predicate or None (any name allowed, e.g. wheel
    players); ``bet_names`` is the closed list of bets of the game.
    """

    def __init__(
        self,
        bet_names: tuple[str, ...],
        limits: Limits,
        position_ok: Callable[[str], str | None],
    ) -> None:
        self.bet_names = bet_names
        self.limits = limits
        self.position_ok = position_ok
        self.bets: dict[str, dict[str, Decimal]] = {}

    def clear(self) -> None:
        self.bets = {}

    def check(self, position: str, bet: str, amount: object) -> Decimal:
        """Validate a bet without placing it; returns the exact amount."""
        why = self.position_ok(position)
        if why:
            raise IllegalAction("bet", why)
        if bet not in self.bet_names:
            raise IllegalAction("bet", f"unknown bet {bet!r} (bets: {', '.join(self.bet_names)})")
        try:
            value = parse_amount(amount)
        except InputError as exc:
            raise IllegalAction("bet", f"amount {exc.message}") from None
        with exact():
            total = self.bets.get(position, {}).get(bet, Decimal(0)) + value
        why = self.limits.check(bet, total)
        if why:
            raise IllegalAction("bet", why)
        return value

    def place(self, position: str, bet: str, amount: object) -> Decimal:
        value = self.check(position, bet, amount)
        self.add(position, bet, value)
        return value

    def add(self, position: str, bet: str, value: Decimal) -> None:
        """Add a bet ``check`` has accepted (the table's rules check it first)."""
        box = self.bets.setdefault(position, {})
        with exact():
            box[bet] = box.get(bet, Decimal(0)) + value

    def withdraw(self, position: str, bet: str) -> Decimal:
        box = self.bets.get(position, {})
        if bet not in box:
            raise IllegalAction("withdraw", f"no {bet} bet on {position}")
        value = box.pop(bet)
        if not box:
            del self.bets[position]
        return value

    def positions(self) -> list[str]:
        return list(self.bets)

    def get(self, position: str, bet: str) -> Decimal | None:
        return self.bets.get(position, {}).get(bet)

    def total(self) -> Decimal:
        with exact():
            return sum((a for box in self.bets.values() for a in box.values()), Decimal(0))

    def items(self) -> Iterator[tuple[str, str, Decimal]]:
        for position, box in self.bets.items():
            for bet, amount in box.items():
                yield position, bet, amount

    def snapshot(self) -> dict[str, dict[str, str]]:
        return {p: {b: fmt(a) for b, a in box.items()} for p, box in self.bets.items()}
