"""What every game's scripted session shares: how one scripted round is played.

A game's session (``script.py``) builds its table on mock devices fed from
one scripted source (cards, or spins), parses a round, and says how its
devices take the round's faults; the round itself is played the same way
for every game: the source holds exactly the round's cards (or spins), the
game's dealer plays the round with the script's players and the script's
feed of device reports, and a round that did not finish, or left scripted
cards unused, is the script's error, located at its field.
"""

from __future__ import annotations

from typing import Any, Callable

from tablecore.errors import IllegalAction, InputError
from tablesim.engine.result import RoundResult
from tablesim.games.dealer import Hands, Players


class ScriptedSession:
    """The shared part of a game's scripted session (see the module)."""

    #: the script's field that holds a round's cards (or spins): where errors point
    FEED = "cards"
    #: what one item of the feed is called ("card", "spin")
    ITEM = "card"
    #: a refusal while the round is played is the script's error at ``FEED``
    #: (a game whose scripts reach every action through located fields says False)
    REFUSALS_LOCATED = False

    table: Any
    source: Any
    #: the game's dealer (``staticmethod(dealer.play_round)``): dealer(table, players, hands)
    dealer: Callable[..., None]

    def play(self, spec: Any) -> RoundResult:
        table = self.table
        self.prepare(spec)
        self.source.clear()
        self.source.feed(self.feed_of(spec))
        self.arm_devices(spec)
        try:
            self.dealer(table, self.players(spec), self.hands(spec))
        except IllegalAction as exc:
            if not self.REFUSALS_LOCATED:
                raise
            raise InputError(exc.reason, where=self.FEED) from None
        if table.result is None:
            raise InputError(f"the round did not finish (it is {table.state.value})", where=self.FEED)
        if table.result.status == "settled":
            self.check_played(spec)
            if self.source.remaining():
                raise InputError(f"{self.source.remaining()} {self.ITEM}(s) left unused: {self.left_text()}",
                                 where=self.FEED)
        return table.result

    # --- what a game says ---------------------------------------------------------

    def prepare(self, spec: Any) -> None:
        """Between rounds, before the round's feed is loaded (e.g. a supervisor's switch)."""

    def feed_of(self, spec: Any) -> list:
        return list(spec.cards)

    def arm_devices(self, spec: Any) -> None:
        """Give the devices the round's faults (and nothing left from the last)."""

    def players(self, spec: Any) -> Players:
        raise NotImplementedError

    def hands(self, spec: Any) -> Hands:
        raise NotImplementedError

    def check_played(self, spec: Any) -> None:
        """A settled round: whatever else the script said must have happened."""

    def left_text(self) -> str:
        return " ".join(d.code for d in self.source.left())
