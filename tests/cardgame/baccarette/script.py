"""Scripted rounds of baccarette: each round's bets and the cards the shoe reads, in order."""

from __future__ import annotations

from drivers.mock import ScriptedCards
from tablecore.validate import Reader
from tablesim.games.dealer import UNATTENDED, Players
from tablesim.games.rig import mock_device
from tablesim.games.scripted import ScriptedSession
from tablesim.games.scriptparse import parse_card_list

from baccarette.dealer import play_round
from baccarette.game import load_profile, settings
from baccarette.table import BaccaretteTable


class ScriptPlayers(Players):
    """The script's bets (a refused one is the script's error)."""

    def __init__(self, bets: list) -> None:
        self._bets = bets

    def bets(self, table: BaccaretteTable):
        return self._bets

    def refused(self, action, position, what, exc):
        raise exc


class Round:
    def __init__(self, bets: list, cards: list) -> None:
        self.bets, self.cards = bets, cards


class Script(ScriptedSession):
    dealer = staticmethod(play_round)

    def __init__(self, table_r: Reader) -> None:
        self.source = ScriptedCards()
        shoe = mock_device("shoe", source=self.source)
        rules = load_profile()
        self.table = BaccaretteTable(rules, settings(rules, {"decks": table_r.int("decks", 6, lo=1, hi=8)}),
                                     shoe=shoe, table_id="SCRIPT")

    def parse_round(self, r: Reader) -> Round:
        bets, bets_r = [], r.sub("bets")
        for box in bets_r.data:
            box_r = bets_r.sub(box)
            bets += [(str(box), str(bet), box_r.raw(bet)) for bet in box_r.data]
        return Round(bets, parse_card_list(r))

    def players(self, spec: Round) -> Players:
        return ScriptPlayers(spec.bets)

    def hands(self, spec: Round):
        return UNATTENDED


def script(table_r: Reader) -> Script:
    return Script(table_r)
