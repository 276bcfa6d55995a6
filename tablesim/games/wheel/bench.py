"""How ``tablesim bench`` takes bets at a served Wheel of Fortune table: a
table with no boxes, so any number of players bet on the symbols."""

from tablesim.games.gamespec import IntakeSetup

INTAKE = IntakeSetup(
    bets=("1", "3", "5", "10", "20", "joker", "logo"),
    position_prefix="player",
    table="wheel, one bet per player, each bet with a ref",
    finish="spin",
)
