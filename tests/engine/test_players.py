"""Bets belong to players (issue 14.1): the book's per-player part."""

from __future__ import annotations

from decimal import Decimal as D

import pytest

from tablecore.errors import IllegalAction
from tablecore.validate import Reader
from tablesim.engine.bets import BetBook
from tablesim.engine.limits import Limit, Limits


def book(limits: Limits | None = None, seat_ok=None) -> BetBook:
    return BetBook(("upper", "odd"), limits or Limits({"upper": Limit(D(5), D(100))}),
                   lambda p: None if p in {"1", "2", "common"} else f"no position {p!r}", seat_ok)


def test_a_bet_without_a_player_is_the_positions_seat():
    b = book()
    b.place("1", "upper", 10)
    assert b.players_at("1") == ["1"] and not b.named
    assert b.snapshot() == {"1": {"upper": "10"}}


def test_several_players_on_one_position_each_with_their_own_limit():
    b = book()
    b.place("common", "upper", 100, "ann")
    b.place("common", "upper", 100, "bob")  # bob's own limit, not ann's
    with pytest.raises(IllegalAction, match="ann: 101 is over the table limit 100"):
        b.place("common", "upper", 1, "ann")
    assert b.get("common", "upper") == D(200)
    assert b.get("common", "upper", "ann") == D(100) and b.named
    assert b.players_snapshot() == {"common": {"ann": {"upper": "100"}, "bob": {"upper": "100"}}}
    assert b.by_player_first() == {"ann": {"common": {"upper": D(100)}}, "bob": {"common": {"upper": D(100)}}}


def test_a_positions_limit_over_all_its_players():
    limits = Limits.parse(Reader({"upper": {"min": 5, "max": 100, "position_max": 150}}, "limits"), ("upper", "odd"))
    b = book(limits)
    b.place("common", "upper", 100, "ann")
    with pytest.raises(IllegalAction, match="155 in all on upper is over the position's limit 150"):
        b.place("common", "upper", 55, "bob")
    b.place("common", "upper", 50, "bob")
    assert b.get("common", "upper") == D(150)


def test_withdraw_takes_back_only_that_players_bet():
    b = book()
    b.place("common", "upper", 10, "ann")
    b.place("common", "upper", 20, "bob")
    with pytest.raises(IllegalAction, match="no upper bet of cy on common"):
        b.withdraw("common", "upper", "cy")
    assert b.withdraw("common", "upper", "ann") == D(10)
    assert b.snapshot() == {"common": {"upper": "20"}} and b.players_at("common") == ["bob"]
    b.withdraw("common", "upper", "bob")
    assert b.snapshot() == {} and b.players_snapshot() == {}


@pytest.mark.parametrize("player", ["", " ", "x" * 41, "a\nb", 7])
def test_a_bad_player_id_is_refused(player):
    with pytest.raises(IllegalAction, match="a player is 1 to 40 printable characters"):
        book().place("1", "upper", 10, player)


def test_a_seating_rule_refuses_before_anything_changes():
    b = book(seat_ok=lambda pos, who: "taken" if pos == "1" and who != "ann" else None)
    b.place("1", "upper", 10, "ann")
    with pytest.raises(IllegalAction, match="taken"):
        b.place("1", "upper", 10, "bob")
    assert b.players_at("1") == ["ann"]
