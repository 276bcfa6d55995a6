"""A round's result in the public JSON result format (spec/scripted-rounds.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from tablecore.money import ZERO, exact, fmt


@dataclass
class RoundResult:
    game: str
    round_id: str
    status: str  # settled | void
    void_reason: str | None = None
    outcome: dict[str, Any] = field(default_factory=dict)
    results: dict[str, dict[str, Decimal]] = field(default_factory=dict)
    bets: dict[str, dict[str, Decimal]] = field(default_factory=dict)
    #: where bets belong to named players (``BetBook.named``): player ->
    #: position -> bet -> the player's result (settled) or stake returned (void)
    players: dict[str, dict[str, dict[str, Decimal]]] = field(default_factory=dict)
    #: a settled round's stakes at risk: position -> stake name -> amount (the
    #: bets placed, and what the players staked during the round, e.g. a
    #: Fortune 3 play); None where the game does not say (the bets are then
    #: all there is to know)
    stakes: dict[str, dict[str, Decimal]] | None = None
    #: the same for each named player: player -> position -> stake -> amount
    player_stakes: dict[str, dict[str, dict[str, Decimal]]] = field(default_factory=dict)

    @property
    def net(self) -> dict[str, Decimal]:
        with exact():
            return {pos: sum(r.values(), ZERO) for pos, r in self.results.items()}

    def as_json(self) -> dict[str, Any]:
        out = {
            "game": self.game,
            "status": self.status,
            "void_reason": self.void_reason,
            "outcome": self.outcome,
            "results": _amounts(self.results),
            "net": {p: fmt(v) for p, v in self.net.items()},
        }
        if self.stakes is not None:
            out["stakes"] = _amounts(self.stakes)
        if self.players:
            out["players"] = self.players_json()
        return out

    def players_json(self) -> dict[str, Any]:
        """Each named player's part: ``results`` per position and bet, their
        ``net`` and (where the game says) their ``stakes`` at risk (settled),
        or the stakes ``returned`` (void)."""
        key = "returned" if self.status == "void" else "results"
        out: dict[str, Any] = {}
        for player, per in self.players.items():
            entry: dict[str, Any] = {key: _amounts(per)}
            if self.status != "void":
                with exact():
                    entry["net"] = fmt(sum((v for r in per.values() for v in r.values()), ZERO))
                if player in self.player_stakes:
                    entry["stakes"] = _amounts(self.player_stakes[player])
            out[player] = entry
        return out

    def house_result(self) -> Decimal:
        """What the house won (positive) or lost on the round."""
        with exact():
            return -sum(self.net.values(), ZERO)


def _amounts(per: dict[str, dict[str, Decimal]]) -> dict[str, dict[str, str]]:
    """position -> name -> amount, the amounts as exact text."""
    return {p: {b: fmt(v) for b, v in r.items()} for p, r in per.items()}
