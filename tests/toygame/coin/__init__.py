"""Coin: a toy fourth game that lives only in the test suite.

Players bet heads or tails on boxes 1-3, the dealer calls "no more bets"
and tosses a coin; a winning bet pays 19:20 (the house keeps 5% of a win).
It exists to show that a game is one folder plus one entry point, laid out
as a new game would be: ``table.py`` (its round and its table), ``game.py``
(its rules and settings), ``dealer.py`` (who does what next, and the game's
part of ``tablesim run``), ``script.py`` (scripted rounds), ``analysis.py``
(the simulator and the exact figures), ``spec.py``. Its mock table, its
console, a configured table's settings and the plain rendering of its
analysis are the kit's defaults. Nothing in tablesim names it (see
tests/toygame/test_toygame.py).
"""
