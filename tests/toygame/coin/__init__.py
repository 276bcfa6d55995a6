"""Coin: a toy fourth game that lives only in the test suite.

Players bet heads or tails on boxes 1-3, the dealer calls "no more bets"
and tosses a coin; a winning bet pays 19:20 (the house keeps 5% of a win).
It exists to show that a game is one folder plus one entry point: nothing
in tablesim names it (see tests/toygame/test_toygame.py).
"""
