"""Scripted rounds of the coin game: each round's bets and the side the coin lands on."""

from __future__ import annotations

from tablecore.validate import Reader
from tablesim.engine.result import RoundResult
from tablesim.games.dealer import Players

from coin.dealer import play_round
from coin.game import load_profile, settings
from coin.table import SIDES, CoinTable


class ScriptPlayers(Players):
    """The script's bets (a refused one is the script's error) and its side."""

    def __init__(self, bets: list, side: str) -> None:
        self._bets, self.side = bets, side

    def bets(self, table: CoinTable):
        return self._bets

    def refused(self, action, position, what, exc):
        raise exc

    def toss(self, table: CoinTable) -> str:
        return self.side


class Script:
    def __init__(self, table_r: Reader) -> None:
        self.table = CoinTable(load_profile(), settings(load_profile(), {}), table_id="SCRIPT")

    def parse_round(self, r: Reader) -> ScriptPlayers:
        bets, bets_r = [], r.sub("bets")
        for box in bets_r.data:
            box_r = bets_r.sub(box)
            bets += [(str(box), str(bet), box_r.raw(bet)) for bet in box_r.data]
        return ScriptPlayers(bets, r.str("side", choices=SIDES))

    def play(self, players: ScriptPlayers) -> RoundResult:
        play_round(self.table, players)
        return self.table.result


def script(table_r: Reader) -> Script:
    return Script(table_r)
