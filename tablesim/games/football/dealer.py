"""The football card game's dealer: what happens next, given the table's state.

A round goes on from wherever the table is (a recovered round too): a new
round starts with the draw, shown and read back by the display (Art. 3,
6(1)); the players bet; the dealer calls "no more bets" and whatever the
devices reported meanwhile is taken; the dealer deals two cards per box,
then the third cards (Art. 6, 10), the devices' reports taken until the
round is settled; a deal the devices leave unfinished is void. The mock
table, scripted rounds and the simulator all play their rounds here
(``tablesim.games.dealer``).
"""

from __future__ import annotations

from tablesim.games.dealer import PUMP, Hands, Players, devices_only, place_bets
from tablesim.games.football.machine import CARD_STATES, S
from tablesim.games.football.table import FootballTable


def play_round(table: FootballTable, players: Players, hands: Hands = PUMP) -> None:
    if devices_only(table, players, hands, CARD_STATES):
        return
    if table.between_rounds:
        table.open_round()
    if table.state is S.DRAWING:
        table.await_draw()
    if table.state is S.BETTING_OPEN:
        place_bets(table, players)
        table.close_betting()
        table.poll()  # a card drawn while betting was open, a display fault
    if table.state is S.BETS_CLOSED:
        table.start_dealing()
        hands.take(table, CARD_STATES)
    if table.state in CARD_STATES:  # the devices went quiet: the round cannot go on
        table.void("device_timeout")
