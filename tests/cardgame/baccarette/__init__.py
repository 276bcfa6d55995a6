"""Baccarette: a small card game that lives only in the test suite, built on
the engine's card-table kit (``tablesim.engine.cardtable``).

Two hands, player and banker, two cards each from a shoe with a reader;
a hand's points are its cards' values modulo 10 (ace 1, ten and faces 0).
Three bets on each box: player and banker pay 1:1, tie pays 8:1; on a tie
the player and banker bets lose half (the tie rule). The folder is what the
page (docs/games/new-game.md) says a card game needs, and nothing of
tablesim names it: one entry point registers it
(``site/baccarette-0.1.dist-info/entry_points.txt``).
"""
