"""A closed round's money, per player: which debits to credit and with how
much (a settled round), or which to cancel (a void round).

A bet's debit is its ref (the platform debits under the id it then sends
to the table as the bet's ref). A settled round's ``result`` record gives
each bet's net (position -> bet -> net: the winnings, or minus the stake),
per named player under ``players`` and otherwise per position (the wheel,
whose positions are its players). A player's one credit is what their
standing debits took plus their net: 0 for a lost round, the stakes and
the winnings for a won one. A withdrawn bet's debit is cancelled, never
credited.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

import re

from tablecore.money import ZERO, add
from tablesim.platform.rounds import Round


@dataclass
class PlayerPart:
    player: str
    debits: list[str] = field(default_factory=list)  # standing: credited (settled) or cancelled (void)
    cancels: list[str] = field(default_factory=list)  # withdrawn bets' debits
    staked: Decimal = ZERO  # what the standing debits took
    net: Decimal = ZERO
    recorded_stake: Decimal | None = None  # the stakes at risk the result records for the player

    @property
    def credit(self) -> Decimal:
        return add(self.staked, self.net)

    @property
    def mismatch(self) -> str | None:
        """Why the table's picture of the player's stakes differs from the debits (an alert), or None."""
        if self.recorded_stake is not None and self.recorded_stake != self.staked:
            return (f"the table records {self.recorded_stake} at risk for {self.player}, "
                    f"the platform debited {self.staked}")
        if self.credit < 0:
            return f"{self.player}'s return would be {self.credit}"
        return None

    def to_cancel(self, void: bool) -> list[str]:
        """The debits settlement cancels: the withdrawn ones, and every one of a void round."""
        return self.cancels + (self.debits if void else [])

    def credited(self, void: bool) -> bool:
        """Whether settlement credits the player: a settled round with a standing
        debit, never a negative return (an operator must look)."""
        return not void and bool(self.debits) and self.credit >= 0


#: a net or a stake as a result record writes it (signed, exact)
SIGNED = re.compile(r"-?[0-9]{1,12}(\.[0-9]{1,12})?", re.ASCII)


def signed(value: object) -> Decimal:
    if not isinstance(value, str) or not SIGNED.fullmatch(value):
        raise ValueError(f"{value!r} is not an amount of a result")
    return Decimal(value)


def _sum(per: object) -> Decimal | None:
    if not isinstance(per, dict):
        return None
    total = ZERO
    for bets in per.values():
        for value in (bets.values() if isinstance(bets, dict) else ()):
            total = add(total, signed(value))
    return total


def parts(rnd: Round) -> dict[str, PlayerPart]:
    """Each player's part of a closed round (players with a ref in it only)."""
    result = rnd.result or {}
    return {owner: _part(owner, refs, result) for owner, refs in rnd.owners.items() if refs}


def part_of(rnd: Round, owner: str) -> PlayerPart | None:
    """One player's part of a closed round (None without a ref in it): from
    the player's own refs, not the round's (a page's result, at each of a
    busy round's thousands of players, walked every ref of the round)."""
    refs = rnd.of(owner)
    return _part(owner, refs, rnd.result or {}) if refs else None


def _part(owner: str, refs: list, result: dict) -> PlayerPart:
    part = PlayerPart(owner)
    for ref in sorted(refs, key=lambda r: r.ref):
        if ref.withdrawn:
            part.cancels.append(ref.ref)
        else:
            part.debits.append(ref.ref)
            part.staked = add(part.staked, ref.amount)
    if result.get("status") != "settled":
        return part
    named = result.get("players") or {}
    if owner in named:
        part.net = _sum(named[owner].get("results")) or ZERO
        part.recorded_stake = _sum(named[owner].get("stakes"))
    else:  # the player is the position (the wheel)
        part.net = _sum({owner: (result.get("results") or {}).get(owner, {})}) or ZERO
        stakes = result.get("stakes")
        part.recorded_stake = _sum({owner: stakes.get(owner, {})}) if isinstance(stakes, dict) else None
    return part
