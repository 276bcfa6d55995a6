"""What each game shows the platform's remote players, from its spec's
``remote`` part (``RemoteView``): the lobby's short result, the page's
paytable, the box remote players bet on, the shared remote hand; and the
defaults a game without a view of its own gets (the toy coin game,
registered only by its entry point). No process: the parts themselves."""

from __future__ import annotations

from decimal import Decimal
from types import SimpleNamespace

import pytest

from gamehost import register
from tablecore.errors import InputError
from tablesim.games import registry
from tablesim.platform.player.layouts import table_layout
from tablesim.platform.player.public import short
from tablesim.platform.player.rules import rules_of
from tablesim.platform.tables import Offer, game_of, load_tables


def _offer(table: str, game: str | None = None) -> Offer:
    return Offer(table, "MOP", Decimal(1), "box", Decimal(100), game)


def test_each_built_in_game_lists_its_result_as_before():
    assert short("wheel", {"status": "settled", "outcome": {"symbol": "joker", "segment": 7}}) \
        == {"status": "settled", "symbol": "joker"}
    football = {"status": "settled", "outcome": {"draw": "5-3-9", "boxes": {"common": {"total": 14}, "1": {}}}}
    assert short("football", football) == {"status": "settled", "draw": "5-3-9", "total": 14}
    fortune3 = {"status": "settled", "outcome": {"dealer": {"hand": "pair", "qualifies": True, "cards": "x"}}}
    assert short("fortune3", fortune3) == {"status": "settled", "hand": "pair", "qualifies": True}
    assert short("fortune3", {"status": "void", "outcome": {}}) == {"status": "void"}


def test_each_built_in_game_gives_its_paytable_and_its_remote_box():
    wheel = rules_of("wheel", registry.spec("wheel").load_profile())
    assert list(wheel) == ["profile", "pays", "segments"] and wheel["pays"]["joker"] == "45"
    football = rules_of("football", registry.spec("football").load_profile())
    assert list(football) == ["profile", "pays", "commission", "on_middle"]
    fortune3 = rules_of("fortune3", registry.spec("fortune3").load_profile())
    assert list(fortune3) == ["profile", "ante_pays", "play_pays", "ante_bonus", "pair_plus", "ranking", "qualifier"]
    views = {g: registry.spec(g).remote_view() for g in ("wheel", "football", "fortune3")}
    assert {g: (v.position, v.box) for g, v in views.items()} \
        == {"wheel": ("player", None), "football": ("box", "common"), "fortune3": ("box", "remote")}
    assert [g for g, v in views.items() if v.hand is not None] == ["fortune3"]


def test_each_table_tells_the_page_its_scene_and_its_shared_hand():
    """The page names no game: the scene it draws and the hand its players
    decide on come with the table, from the game's remote view."""
    drawn = {g: table_layout(_offer(registry.spec(g).table_id("DEMO"), g)) for g in ("wheel", "football", "fortune3")}
    assert {g: d["scene"] for g, d in drawn.items()} == {"wheel": "spin", "football": "draw", "fortune3": "hands"}
    assert {g: d["hand"] for g, d in drawn.items()} == {
        "wheel": None, "football": None,
        "fortune3": {"deciding": "decisions", "decisions": ["play", "fold"], "default": "fold", "stakes": {"play": "ante"}}}
    # how the spots lie on the felt: football's two rows, Fortune 3's betting circles, the wheel's bets in a row
    assert {g: d["felt"] for g, d in drawn.items()} == {
        "wheel": {"rows": [], "circles": False},
        "football": {"rows": [["upper", "lower"], ["odd", "even", "middle"]], "circles": False},
        "fortune3": {"rows": [], "circles": True}}


def test_the_shared_hand_is_only_where_the_profile_has_it():
    spec = registry.spec("fortune3")
    hand = spec.remote_view().hand
    assert (hand.position, hand.deciding, hand.decisions, hand.default, dict(hand.stakes)) \
        == ("remote", "decisions", ("play", "fold"), "fold", {"play": "ante"})
    assert hand.active(SimpleNamespace(profile=spec.load_profile(spec.remote_view().profile)))
    assert not hand.active(SimpleNamespace(profile=spec.load_profile()))


def test_the_remote_hands_third_card_carries_its_rank():
    follower = registry.spec("fortune3").remote_view().follower()

    def card(round_id: str, to: str, code: str) -> dict:
        return follower.shown({"kind": "card", "round_id": round_id, "data": {"to": to, "card": code}})

    assert "hand" not in card("R1", "remote", "AS")["data"]
    assert "hand" not in card("R1", "1", "2D")["data"]  # (a box's card: not the remote hand's)
    assert "hand" not in card("R1", "remote", "KS")["data"]
    assert card("R1", "remote", "QS")["data"]["hand"] == "straight_flush"
    assert "hand" not in card("R2", "remote", "QH")["data"]  # (a new round: its own cards)
    assert "hand" not in card("R2", "remote", "2C")["data"]
    assert card("R2", "remote", "2S")["data"]["hand"] == "pair"
    # the other games add nothing to what is shown
    msg = {"kind": "card", "round_id": "R", "data": {"to": "remote", "card": "AS"}}
    assert registry.spec("football").remote_view().follower().shown(msg) is msg


def test_a_game_with_no_view_of_its_own_gets_the_defaults(monkeypatch):
    register(monkeypatch, "coin")
    try:
        spec = registry.spec("coin")
        view = spec.remote_view()
        assert (view.position, view.box, view.profile, view.hand) == ("box", None, None, None)
        assert short("coin", {"status": "settled", "outcome": {"side": "heads"}}) == {"status": "settled"}
        assert rules_of("coin", spec.load_profile()) == {"profile": "toy"}
        drawn = table_layout(_offer("COIN-7"))
        assert (drawn["game"], drawn["scene"], drawn["hand"]) == ("coin", "", None)  # (the page: the felt only)
        assert drawn["felt"] == {"rows": [], "circles": False}  # (its bets in a row, as boxes)
        assert spec.states() is not None and spec.states()("idle").value == "idle"
        # the platform takes it, by name or by its id's prefix
        assert game_of(_offer("COIN-7")) == "coin" and game_of(_offer("X-1", "coin")) == "coin"
    finally:
        monkeypatch.undo()
        registry.refresh()


def test_a_tables_file_naming_an_unknown_game_is_one_line(tmp_path):
    path = tmp_path / "tables.toml"
    path.write_text('[tables.T-1]\ncurrency = "MOP"\nunit = "1"\ngame = "dice"\n')
    with pytest.raises(InputError) as caught:
        load_tables(path)
    assert "game: 'dice' is not one of fortune3, football, wheel" in str(caught.value)
    assert "\n" not in str(caught.value) and "tables.T-1" in str(caught.value)
    assert game_of(_offer("NOBODY-1")) is None
