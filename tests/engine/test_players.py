"""Bets belong to players: the book's per-player part."""

from __future__ import annotations

from decimal import Decimal as D

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablecore.errors import IllegalAction
from tablecore.validate import Reader
from tablesim.engine.betbook import BetBook
from tablesim.engine.limits import Limit, Limits
from examples import examples


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


def test_a_player_named_like_another_position_is_refused():
    """A bet naming no player is its position's seat's (id: the position):
    a player named "2" betting on the common box would be box 2's seat, and
    the two players' results would add up as one. Refused; a position's own
    seat may still be named."""
    b = book()
    with pytest.raises(IllegalAction, match="'2' is the name of a position"):
        b.place("common", "upper", 10, "2")
    b.place("2", "upper", 10, "2")  # the seat of box 2, named
    assert b.players_snapshot() == {"2": {"2": {"upper": "10"}}}


@pytest.mark.parametrize("player", [" ann", "ann ", "ann\t"])
def test_a_player_id_with_spaces_around_it_is_refused(player):
    """" ann" and "ann" would be two players on the results."""
    with pytest.raises(IllegalAction, match="printable characters"):
        book().place("common", "upper", 10, player)


_OPS = st.lists(st.tuples(st.sampled_from(["place", "withdraw", "set", "mark", "put_back", "clear"]),
                          st.sampled_from(["1", "2", "alice"]), st.sampled_from(["upper", "odd"]),
                          st.sampled_from([None, "bob", "carol", "1"]),
                          st.sampled_from([D(5), D("7.50"), D("20.0"), D(100)])), max_size=40)


@settings(max_examples=examples(200), deadline=None)
@given(ops=_OPS)
def test_the_books_shown_text_named_and_total_follow_every_change(ops):
    """The snapshot and ``named`` are kept as bets change (not rebuilt from
    every bet): after any changes, and after putting marked bets back, they
    are what the bets themselves say."""
    from tablecore.money import fmt

    b = BetBook(("upper", "odd"), Limits({}), lambda p: None if p in ("1", "2", "alice") else "no such position")
    marks = []
    for op, position, bet, player, amount in ops:
        try:
            if op == "place":
                b.place(position, bet, amount, player)
            elif op == "withdraw":
                b.withdraw(position, bet, player)
            elif op == "set":
                b.set_amount(position, bet, amount, player)
            elif op == "mark":
                marks.append(b.mark(position, bet, player))
                b.place(position, bet, amount, player)
            elif op == "put_back" and marks:
                b.put_back(marks.pop())
            elif op == "clear":
                b.clear()
                marks = []
        except (IllegalAction, KeyError):
            pass  # (a withdraw or set of a bet that is not there)
        if op in ("place", "withdraw", "set", "clear"):
            # A mark is put back only over the marked bets placed after it, in
            # reverse (as the intake undoes a group): any other change ends it.
            marks = []
        assert b.snapshot() == {p: {k: fmt(a) for k, a in box.items()} for p, box in b.bets.items()}
        assert b.named == any(p != pos for pos, per in b.by_player.items() for p in per)
        assert b.total() == sum((a for box in b.bets.values() for a in box.values()), D(0))
        assert all(per for per in b.by_player.values()) and all(b.bets.values())
        assert set(b.bets) == set(b.by_player)
