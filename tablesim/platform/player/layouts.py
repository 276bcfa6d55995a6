"""Each table's game and layout as the player's page draws it: the spots,
their names and limits, what they pay (and the paytable and rules), from the game's own console (its
``layout`` and ``limits`` of a table with the game's default profile and
settings, made once per game and process).

The platform never asks a table PC: a table whose rules differ from its
game's defaults shows the defaults here, and the table's own limits still
decide (a bet over them is refused by the table, the stake returned).
"""

from __future__ import annotations

from functools import lru_cache

from tablecore.plainjson import jsonable
from tablesim.games import registry
from tablesim.games.rig import mock_rig
from tablesim.platform.player.rules import rules_of
from tablesim.platform.tables import Offer, game_of


@lru_cache(maxsize=None)
def game_layout(game: str) -> dict:
    rig = mock_rig(game, seed=0)
    adapter = registry.spec(game).part("console")(rig.table, rig)
    layout = {**adapter.layout(), "rules": rules_of(game, rig.table.profile)}
    return jsonable({"game": game, "layout": layout, "limits": adapter.limits()})


def table_layout(offer: Offer) -> dict:
    """What the page needs of a table to draw it and take bets."""
    game = game_of(offer)
    out = {"table": offer.table, "game": game, "currency": offer.currency, "unit": format(offer.unit, "f"),
           "max": format(offer.max, "f"), "position": offer.position, "bet_seconds": offer.bet_seconds}
    if game is not None:
        drawn = game_layout(game)
        out["layout"], out["limits"] = drawn["layout"], drawn["limits"]
        view = registry.spec(game).remote_view()
        # (where the remote players bet at a table whose bets name a box: the game says)
        out["box"] = view.box if offer.position == "box" else None
        # how the page pictures the table, and the shared hand its players decide on: the game says
        out["scene"] = view.scene
        out["hand"] = view.hand.page() if view.hand is not None else None
        # how the spots lie on the felt (rows of bets, boxes or circles)
        out["felt"] = view.felt.page()
    return out
