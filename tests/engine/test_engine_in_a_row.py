"""``in_a_row``: an action for the calls of a group one after another (the intake's bets),
which asks once what no call can change and refuses each call as the action itself would."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tablecore.errors import IllegalAction
from tablesim.engine.actions import in_a_row
from tablesim.games.rig import mock_rig


def _table():
    table = mock_rig("wheel", seed=3).table
    table.open_round()
    return table


def _refusal(call, *args) -> tuple[str, str]:
    with pytest.raises(IllegalAction) as got:
        call(*args)
    return got.value.action, str(got.value.reason)


def test_each_call_is_checked_and_refused_as_the_action_refuses_it():
    table, alone = _table(), _table()
    table.batching = True
    place = in_a_row(table, "place_bet")
    assert place != table.place_bet  # (the group's own: the hold and the state asked once)
    bad = [("ann", "no such bet", Decimal("1"), "ann"),       # an unknown bet
           ("ann", "1", Decimal("0.5"), "ann"),               # off the table's unit
           ("ann", "1", Decimal("10000000"), "ann"),          # over the limit
           ("ann", "1", Decimal("1"), "bob")]                 # a player who is not the position
    for bet in bad:
        assert _refusal(place, *bet) == _refusal(alone.place_bet, *bet)
    place("ann", "1", Decimal("5"), "ann")
    place("ann", "1", Decimal("2"), "ann")
    assert table.book.bets == {"ann": {"1": Decimal("7")}} and not table._acting


def test_a_paused_table_a_closed_round_or_no_group_get_the_action_itself():
    table = _table()
    assert in_a_row(table, "place_bet") == table.place_bet  # no group being placed
    table.pause(actor="supervisor", why="a shoe to change")
    table.batching = True
    place = in_a_row(table, "place_bet")
    assert place == table.place_bet
    assert "paused" in _refusal(place, "ann", "1", Decimal("1"), "ann")[1]
    table.batching = False
    table.resume(actor="supervisor", why="changed")
    table.close_betting()
    table.batching = True
    place = in_a_row(table, "place_bet")
    assert place == table.place_bet and "closed" in _refusal(place, "ann", "1", Decimal("1"), "ann")[1]
