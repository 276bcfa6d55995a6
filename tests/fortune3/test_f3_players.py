"""Fortune 3 Card Poker players: one seated player a
box, betting only where they sit; back-betting where the profile allows it;
the box's decision is the seated player's; results per player."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal as D

import pytest

from tablecore.errors import IllegalAction
from tablesim.games.fortune3.machine import S

CARDS = "AS KD 7H AD KS 7S 5C 2H QD"  # box 1 A-A-5, box 2 K-K-2, dealer Q-7-7


def betting(rig, profile=None, cards=CARDS):
    r = rig("shoe", cards, profile_=profile)
    r.table.open_round()
    return r


def test_macau_keeps_one_seated_player_per_box(rig):
    r = betting(rig)
    r.table.place_bet("1", "ante", 10, "ann")
    with pytest.raises(IllegalAction, match=r"box 1 is ann's.*\(Art. 6\(2\)\)"):
        r.table.place_bet("1", "pair_plus", 10, "bob")
    with pytest.raises(IllegalAction, match=r"ann sits at box 1"):
        r.table.place_bet("2", "ante", 10, "ann")
    with pytest.raises(IllegalAction, match="box 1 is ann's"):
        r.table.place_bet("1", "pair_plus", 10)  # the box's own seat is not ann
    r.table.place_bet("1", "pair_plus", 5, "ann")
    assert r.table.book.players_snapshot() == {"1": {"ann": {"ante": "10", "pair_plus": "5"}}}


def test_the_seated_player_decides(rig):
    r = betting(rig)
    r.table.place_bet("1", "ante", 10, "ann")
    r.table.place_bet("2", "ante", 20, "bob")
    r.table.close_betting()
    r.table.start_dealing()
    r.table.pump((S.DEALING,))
    with pytest.raises(IllegalAction, match="box 1's decision belongs to ann, who sits there, not bob"):
        r.table.decide("1", "play", "bob")
    r.table.decide("1", "play", "ann")
    r.table.decide("2", "fold")  # unnamed: the box's decision, as before
    result = r.table.result.as_json()
    assert result["players"] == {
        "ann": {"results": {"1": {"ante": "10", "play": "10", "ante_bonus": "0"}}, "net": "20",
                "stakes": {"1": {"ante": "10", "play": "10"}}},  # ann played: her Play is at risk too
        "bob": {"results": {"2": {"ante": "-20"}}, "net": "-20", "stakes": {"2": {"ante": "20"}}},
    }
    assert result["stakes"] == {"1": {"ante": "10", "play": "10"}, "2": {"ante": "20"}}
    assert [e["player"] for e in r.kinds("bet")] == ["ann", "bob"]


def test_back_betting_where_the_profile_allows_it(rig, profile):
    r = betting(rig, replace(profile, back_betting=True), "AS QD AD 7H 5C 7S")  # box 1 A-A-5, dealer Q-7-7
    r.table.place_bet("1", "ante", 10, "ann")
    r.table.place_bet("1", "ante", 30, "bob")  # bob backs ann's box
    r.table.place_bet("1", "pair_plus", 5, "cy")
    r.table.close_betting()
    r.table.start_dealing()
    r.table.pump((S.DEALING,))
    assert r.table.seated("1") == "ann"
    with pytest.raises(IllegalAction, match="belongs to ann"):
        r.table.decide("1", "fold", "bob")
    r.table.decide("1", "play", "ann")  # ann's A-A-5 beats Q-7-7: everyone on the box follows
    res = r.table.result
    assert res.results["1"] == {"ante": D(40), "play": D(40), "ante_bonus": D(0), "pair_plus": D(5)}
    nets = {pl: x["net"] for pl, x in res.as_json()["players"].items()}
    assert nets == {"ann": "20", "bob": "60", "cy": "5"}
    # each player's Play follows ann's decision, on their own Ante; the box's is the sum
    stakes = {pl: x["stakes"] for pl, x in res.as_json()["players"].items()}
    assert stakes == {"ann": {"1": {"ante": "10", "play": "10"}}, "bob": {"1": {"ante": "30", "play": "30"}},
                      "cy": {"1": {"pair_plus": "5"}}}
    assert res.as_json()["stakes"] == {"1": {"ante": "40", "play": "40", "pair_plus": "5"}}


def test_a_void_returns_each_players_bets(rig):
    r = betting(rig)
    r.table.place_bet("1", "ante", 10, "ann")
    r.table.void("test", actor="supervisor:sam", why="test")
    assert r.table.result.as_json()["players"] == {"ann": {"returned": {"1": {"ante": "10"}}}}
    assert r.kinds("void")[-1]["returned_by_player"] == {"1": {"ann": {"ante": "10"}}}
