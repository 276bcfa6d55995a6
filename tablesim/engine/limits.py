"""Table limits: the minimum and maximum of each player's bet, optionally the
most a position takes from all its players together (``position_max``),
and the table's units, from the table config.

``unit`` is the betting unit (``[limits] unit``, default 1): every bet is a
whole number of it, and a bet that is not is refused with the reason.
``payout_unit`` (default 0.01) is the smallest amount the table pays out: a
rule that produces a finer amount (football's 5% commission) names in its
profile how it is brought to a whole payout unit. The betting unit must be
a whole number of payout units, so a returned or lost stake is always payable.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from tablecore.money import ONE, fmt, is_multiple
from tablecore.wording import CORE_WORDS as W
from tablecore.validate import Reader


@dataclass(frozen=True)
class Limit:
    minimum: Decimal
    maximum: Decimal
    #: the most all players together may stake on this bet at one position
    #: (None: each player's own limit is the only one)
    position_max: Decimal | None = None


#: the default betting unit and payout unit
DEFAULT_UNIT = ONE
DEFAULT_PAYOUT_UNIT = Decimal("0.01")


@dataclass(frozen=True)
class Limits:
    by_bet: dict[str, Limit] = field(default_factory=dict)
    unit: Decimal = DEFAULT_UNIT
    payout_unit: Decimal = DEFAULT_PAYOUT_UNIT

    def unit_refusal(self, amount: Decimal, player: str | None = None) -> str | None:
        """Why ``amount`` is not a bet at this table's unit, or None."""
        if is_multiple(amount, self.unit):
            return None
        if player is None:
            return W("refusal.off_unit", amount=fmt(amount), unit=fmt(self.unit))
        return W("refusal.off_unit_of", amount=fmt(amount), unit=fmt(self.unit), player=player)

    def position_check(self, bet: str, total: Decimal) -> str | None:
        """Why every player's ``total`` on ``bet`` at one position is too much, or None."""
        limit = self.by_bet.get(bet)
        if limit is None or limit.position_max is None or total <= limit.position_max:
            return None
        return W("refusal.over_position_max", total=fmt(total), bet=bet, maximum=fmt(limit.position_max))

    def check(self, bet: str, amount: Decimal, player: str | None = None) -> str | None:
        """Why one player's ``amount`` is refused for ``bet``, or None if it is
        within limits; ``player``: the player named (not the position's seat),
        said first ("ann: ...")."""
        limit = self.by_bet.get(bet)
        of = "" if player is None else "_of"
        who = {} if player is None else {"player": player}
        if limit is not None:
            if amount < limit.minimum:
                return W(f"refusal.under_minimum{of}", amount=fmt(amount), minimum=fmt(limit.minimum), bet=bet, **who)
            if amount > limit.maximum:
                return W(f"refusal.over_maximum{of}", amount=fmt(amount), maximum=fmt(limit.maximum), bet=bet, **who)
        return self.unit_refusal(amount, player)

    @staticmethod
    def parse(reader: Reader, bets: tuple[str, ...]) -> "Limits":
        """``[limits] <bet> = {min = .., max = ..}``; ``default`` applies to
        unnamed bets; ``unit`` and ``payout_unit`` are the table's units."""
        out: dict[str, Limit] = {}
        default = None
        unit = reader.decimal("unit", DEFAULT_UNIT)
        payout_unit = reader.decimal("payout_unit", DEFAULT_PAYOUT_UNIT)
        if unit <= 0:
            raise reader.fail("unit", "the betting unit must be more than 0")
        if payout_unit <= 0:
            raise reader.fail("payout_unit", "the payout unit must be more than 0")
        if not is_multiple(unit, payout_unit):
            raise reader.fail("unit", f"the betting unit {fmt(unit)} is not a whole number of "
                              f"payout units ({fmt(payout_unit)})")
        for name in reader.data:
            if name in ("unit", "payout_unit"):
                continue
            if name != "default" and name not in bets:
                raise reader.fail(name, f"unknown bet (bets: {', '.join(bets)})")
        for name in ("default", *bets):
            if not reader.has(name):
                continue
            sub = reader.sub(name)
            lo = sub.decimal("min")
            hi = sub.decimal("max")
            pos_max = sub.decimal("position_max") if sub.has("position_max") else None
            sub.reject_unknown()
            if pos_max is not None and pos_max < hi:
                raise reader.fail(name, f"position_max {fmt(pos_max)} is under the player's max {fmt(hi)}")
            if lo <= 0 or hi < lo:
                raise reader.fail(name, f"needs 0 < min <= max, got min {fmt(lo)} max {fmt(hi)}")
            for key, value in (("min", lo), ("max", hi)):
                if not is_multiple(value, unit):
                    raise sub.fail(key, f"{fmt(value)} is not a whole multiple of the betting unit {fmt(unit)}")
            if name == "default":
                default = Limit(lo, hi, pos_max)
            else:
                out[name] = Limit(lo, hi, pos_max)
        if default is not None:
            for bet in bets:
                out.setdefault(bet, default)
        return Limits(out, unit, payout_unit)

