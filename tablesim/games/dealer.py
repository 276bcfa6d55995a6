"""What every game's dealer leans on: who is at the table and how the
devices' reports reach it.

Each game's ``dealer.py`` says what the dealer does next given the table's
state (open the round, close betting, deal, ask for decisions...); the mock
table, scripted rounds, the simulator and the console's mock dealer all run
rounds through it. What differs between them is only who bets and decides
(:class:`Players`) and how the devices' reports are taken (:class:`Hands`):
simulated players or a script's bets; the devices pumped, or a script's
cards fed one by one with its faults.
"""

from __future__ import annotations

from typing import Any, Iterable

from tablecore.errors import IllegalAction
from tablesim.engine.table import resolve_unattended


class Players:
    """Who bets and decides. ``bets`` as (position, bet, amount); a refused
    bet or decision is skipped (simulated players: e.g. over a limit on a box
    a recovered round already holds); a script raises instead."""

    #: whether the dealer's moves (open a round, close betting, deal, decide
    #: for the players, reveal, void a round the devices left) are made here;
    #: False at the console, where people make them through the API and the
    #: mock dealer only stands in for the devices (``tablesim.games.console``)
    deals = True

    def bets(self, table: Any) -> Iterable[tuple[str, str, Any]]:
        return ()

    def decision(self, table: Any, position: str) -> str:
        raise NotImplementedError

    def decider(self, table: Any, position: str) -> str | None:
        """The player who takes ``position``'s decision (None: the dealer's word for it)."""
        return None

    def after_decisions(self, table: Any) -> None:
        """Every player has decided, before the dealer reveals: a script's
        late irregularities happen here (a misdeal, a stray named late)."""

    def refused(self, action: str, position: str, what: str, exc: IllegalAction) -> None:
        """A bet (``what``: its name) or a decision was refused."""

    def place(self, table: Any) -> None:
        """Put this round's bets on the table (a script overrides it to place
        its bets with their players and to name the field of a refused one)."""
        for position, bet, amount in self.bets(table):
            try:
                table.place_bet(position, bet, amount)
            except IllegalAction as exc:
                self.refused("bet", position, bet, exc)


class Hands:
    """How the devices' reports reach the table while it is in ``states``:
    the devices pumped (mock, emulated or real). ``unattended``: a blocking
    incident is rejected (no supervisor at the table), which the game's rules
    turn into a void; otherwise it stops the pump. Returns whether the table
    left ``states`` (False: the devices went quiet, or an incident holds)."""

    def __init__(self, *, unattended: bool = False) -> None:
        self.unattended = unattended

    def take(self, table: Any, states: tuple) -> bool:
        if not self.unattended:
            return table.pump(states)
        while table.state in states:
            table.pump(states)
            if not resolve_unattended(table):
                break
        return table.state not in states


#: the devices pumped; a blocking incident stops the pump
PUMP = Hands()
#: the devices pumped; a blocking incident is rejected
UNATTENDED = Hands(unattended=True)


def place_bets(table: Any, players: Players) -> None:
    players.place(table)


def devices_only(table: Any, players: Players, hands: Hands, waiting: tuple) -> bool:
    """Where people make the dealer's moves (the console), a dealer's turn is
    only taking the devices' reports while the table waits on them (in
    ``waiting``). True when that was the whole turn."""
    if players.deals:
        return False
    if table.state in waiting:
        hands.take(table, waiting)
    return True
