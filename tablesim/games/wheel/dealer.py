"""The Wheel of Fortune dealer: what happens next, given the table's state.

A round goes on from wherever the table is (a recovered round too): a new
round opens betting; the players bet on symbols and the dealer calls "no
more bets" (Art. 2); the dealer spins, again after each no-spin (Art. 4),
and the sensor's reports are taken until the round is settled; a spin the
sensor never reports voids the round. The mock table, scripted rounds and
the simulator all play their rounds here (``tablesim.games.dealer``).
"""

from __future__ import annotations

from tablesim.games.dealer import PUMP, Hands, Players, devices_only, place_bets
from tablesim.games.wheel.machine import AWAITING_SPIN, S
from tablesim.games.wheel.table import WheelTable


def play_round(table: WheelTable, players: Players, hands: Hands = PUMP) -> None:
    if devices_only(table, players, hands, AWAITING_SPIN):
        return
    if table.between_rounds:
        table.open_round()
    if table.state is S.BETTING_OPEN:
        place_bets(table, players)
        table.close_betting()
    if table.state in AWAITING_SPIN and not hands.take(table, AWAITING_SPIN):
        table.void("device_timeout")  # the sensor went quiet
