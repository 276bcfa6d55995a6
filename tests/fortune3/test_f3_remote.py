"""The shared remote hand (profile ``macau-2008-remote``): dealt like a box
after the seven boxes, any number of remote players on it each with their
own bets, each deciding alone within the decision timer (no decision is a
fold), each settled exactly as a box; journaled so recovery replays it."""

from __future__ import annotations

import io
from decimal import Decimal as D

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from rich.console import Console

from drivers.mock import MockShoe, MockShuffler, ScriptedCards
from tablecore.cards import DECK, parse_dealt
from tablecore.errors import IllegalAction, InputError
from tablesim.cli.display import attach_journal
from tablesim.games.fortune3.machine import S
from tablesim.games.fortune3.profile import REMOTE, load_profile, parse_profile
from tablesim.games.fortune3.profile import Fortune3Settings
from tablesim.games.fortune3.settle import BoxBets, settle_box
from tablesim.games.fortune3.table import Fortune3Table
from tablesim.profiles import config_root, read_toml
from examples import examples

# box 1 AS AH 7C (pair), the remote hand 9D TD JD (straight flush), dealer KS QC 4H (qualifies)
SHOE = "AS 9D KS  AH TD QC  7C JD 4H"
HANDS = "AS AH 7C  9D TD JD  KS QC 4H"  # the shuffler: a hand at a time


@pytest.fixture(scope="module")
def remote_profile():
    return load_profile("macau-2008-remote")


def table(profile, dealing="shoe", cards=SHOE, journal=None):
    source = ScriptedCards(parse_dealt(c) for c in cards.split())
    device = (MockShoe if dealing == "shoe" else MockShuffler)(source, ())
    t = Fortune3Table(profile, Fortune3Settings(dealing=dealing), **{dealing: device}, table_id="F3R")
    events: list = []
    t.bus.subscribe(events.append)
    if journal is not None:
        attach_journal(Console(file=io.StringIO()), t, str(journal))
    return t, events


def bets(t):
    t.open_round()
    t.place_bet("1", "ante", 10)
    t.place_bet(REMOTE, "ante", 10, "ann")
    t.place_bet(REMOTE, "pair_plus", 5, "ann")
    t.place_bet(REMOTE, "ante", 20, "bob")
    t.place_bet(REMOTE, "pair_plus", 10, "cat")  # Pair Plus only: no decision
    t.place_bet(REMOTE, "ante", 5, "dan")


def dealt(t):
    t.close_betting()
    t.start_dealing()
    t.pump((S.DEALING,))
    assert t.state is S.DECISIONS


def test_the_profile_records_what_it_changes(remote_profile):
    assert remote_profile.name == "macau-2008-remote" and remote_profile.remote.decision_seconds == 20
    assert [c.split(":")[0] for c in remote_profile.remote.changes] == [
        "Art. 2", "Art. 7", "Art. 6(2), 6(4)", "Art. 9(1)", "Art. 9(3)"]
    assert load_profile().remote is None  # the regulation's profile has seven boxes only


def test_the_profile_is_validated():
    path = config_root() / "rules" / "fortune3-macau-2008-remote.toml"
    data = read_toml(path)
    for change, message in (
        ({"decision_seconds": 0}, "decision_seconds"),
        ({"changes": []}, "changes"),
        ({"timer": 5}, "timer"),
    ):
        bad = {**data, "remote": {**data["remote"], **change}}
        with pytest.raises(InputError, match=message):
            parse_profile(bad, "x.toml")
    forbid = {**data, "options": {**data["options"], "fold_with_pair_plus": "forbid"}}
    with pytest.raises(InputError, match=r"fold_with_pair_plus.*forbid.*cannot go with a \[remote\] hand"):
        parse_profile(forbid, "x.toml")


@pytest.mark.parametrize("dealing,cards", [("shoe", SHOE), ("shuffler", HANDS)])
def test_remote_players_decide_alone_and_settle_as_a_box(remote_profile, dealing, cards):
    t, events = table(remote_profile, dealing, cards)
    bets(t)
    dealt(t)
    assert t.order == ["1", REMOTE, "dealer"]  # after the boxes, before the dealer (Art. 7 departed from)
    assert [d.code for d in t.cards[REMOTE]] == ["9D", "TD", "JD"]
    assert [e.data for e in events if e.kind == "remote_decisions"] == [{"players": 4, "pending": 3, "seconds": 20}]
    t.decide("1", "play")
    t.decide(REMOTE, "play", "ann", "d-ann")
    t.decide(REMOTE, "fold", "bob")
    assert t.pending_decisions() == [REMOTE] and t.pending_remote() == ["dan"]
    assert t.close_decisions() == ["dan"]  # the timer ran out: dan folds
    assert t.state is S.COMPLETE
    out = t.result.as_json()
    players = out["players"]
    assert players["ann"]["results"] == {REMOTE: {"ante": "10", "play": "10", "ante_bonus": "50", "pair_plus": "200"}}
    assert players["ann"]["stakes"] == {REMOTE: {"ante": "10", "play": "10", "pair_plus": "5"}}
    assert players["bob"]["results"] == {REMOTE: {"ante": "-20"}} and players["bob"]["stakes"] == {REMOTE: {"ante": "20"}}
    assert players["cat"]["results"] == {REMOTE: {"pair_plus": "400"}}
    assert players["dan"]["results"] == {REMOTE: {"ante": "-5"}}
    assert out["results"][REMOTE] == {"ante": "-15", "play": "10", "ante_bonus": "50", "pair_plus": "600"}
    assert out["stakes"][REMOTE] == {"ante": "35", "play": "10", "pair_plus": "15"}
    remote = out["outcome"]["remote"]
    assert remote["decisions"] == {"ann": "play", "bob": "fold", "dan": "fold"} and remote["timed_out"] == ["dan"]
    assert remote["players"] == 4 and remote["profile"] == "macau-2008-remote" and len(remote["changes"]) == 5
    decisions = [e.data for e in events if e.kind == "decision" and e.data["box"] == REMOTE]
    assert decisions == [
        {"box": REMOTE, "decision": "play", "player": "ann", "ref": "d-ann", "stake": "10"},
        {"box": REMOTE, "decision": "fold", "player": "bob"},
        {"box": REMOTE, "decision": "fold", "player": "dan", "timed_out": True},
    ]


def test_the_round_waits_for_every_remote_player(remote_profile):
    t, _ = table(remote_profile)
    bets(t)
    dealt(t)
    for player in ("ann", "bob", "dan"):
        t.decide(REMOTE, "play", player)
    assert t.state is S.DECISIONS  # box 1 still decides
    t.decide("1", "fold")
    assert t.state is S.COMPLETE and t.result.as_json()["outcome"]["remote"]["timed_out"] == []


@pytest.mark.parametrize("player,ref,why", [
    (None, None, "names its remote player"),
    ("cat", None, "cat has no Ante on the remote hand"),
    ("eve", None, "eve has no Ante on the remote hand"),
])
def test_decisions_that_do_not_fit_are_refused(remote_profile, player, ref, why):
    t, _ = table(remote_profile)
    bets(t)
    dealt(t)
    with pytest.raises(IllegalAction, match=why):
        t.decide(REMOTE, "play", player, ref)
    assert t.remote_decisions == {}


def test_twice_and_after_the_timer_are_refused(remote_profile):
    t, _ = table(remote_profile)
    bets(t)
    dealt(t)
    t.decide(REMOTE, "play", "ann", "r1")
    with pytest.raises(IllegalAction, match="ann already chose play"):
        t.decide(REMOTE, "fold", "ann", "r2")
    t.close_decisions()
    with pytest.raises(IllegalAction, match="the decision timer ran out: bob folded|bob already chose fold when"):
        t.decide(REMOTE, "play", "bob")
    with pytest.raises(IllegalAction, match="already ran out"):
        t.close_decisions()


def test_betting_on_the_remote_hand(remote_profile):
    t, _ = table(remote_profile)
    t.open_round()
    with pytest.raises(IllegalAction, match="named remote players"):
        t.place_bet(REMOTE, "ante", 10)
    t.place_bet("2", "ante", 10, "zoe")
    with pytest.raises(IllegalAction, match="zoe sits at box 2: a remote player bets on the remote hand only"):
        t.place_bet(REMOTE, "ante", 10, "zoe")
    t.place_bet(REMOTE, "ante", 10, "ann")
    with pytest.raises(IllegalAction, match="ann bets on the remote hand"):
        t.place_bet("3", "ante", 10, "ann")
    with pytest.raises(IllegalAction, match="no remote hand in this round|decision timer runs while"):
        t.close_decisions()


def test_the_regulation_profile_has_no_remote_hand(rig):
    r = rig("shoe", "")
    r.table.open_round()
    with pytest.raises(IllegalAction, match=r"box 'remote' does not exist \(boxes are 1-7\)"):
        r.table.place_bet(REMOTE, "ante", 10, "ann")


def test_recovery_replays_the_remote_decisions(remote_profile, tmp_path):
    path = tmp_path / "j.sqlite"
    t, _ = table(remote_profile, journal=path)
    bets(t)
    dealt(t)
    t.decide(REMOTE, "play", "ann", "d-ann")
    t.decide(REMOTE, "fold", "bob")
    t.journal.close()
    again, _ = table(remote_profile, cards="", journal=path)  # the power came back
    assert again.state is S.DECISIONS
    assert again.remote_decisions == {"ann": "play", "bob": "fold"} and "d-ann" in again.remote_refs
    again.close_decisions()
    again.decide("1", "play")
    assert again.state is S.COMPLETE
    assert again.result.as_json()["players"]["dan"]["results"] == {REMOTE: {"ante": "-5"}}


# --- each remote player is settled exactly as a box (an invariant) -------------------------

PLAYER_BETS = st.fixed_dictionaries({}, optional={"ante": st.integers(1, 500), "pair_plus": st.integers(1, 500)}) \
    .filter(bool)
DECISION = st.sampled_from(["play", "fold", None])  # None: the timer folds them


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(players=st.lists(st.tuples(PLAYER_BETS, DECISION), min_size=1, max_size=6),
       deck=st.permutations(range(52)))
def test_every_remote_player_is_settled_as_a_box(remote_profile, players, deck):
    cards = [DECK[i].code for i in deck[:6]]  # remote hand and dealer, three passes
    t, _ = table(remote_profile, cards=" ".join(cards))
    t.open_round()
    names = [f"p{i}" for i in range(len(players))]
    for name, (bets, _) in zip(names, players):
        for bet, amount in bets.items():
            t.place_bet(REMOTE, bet, amount, name)
    dealt_or_done = [t.close_betting(), t.start_dealing(), t.pump((S.DEALING,))]
    assert dealt_or_done and t.state in (S.DECISIONS, S.COMPLETE)
    for name, (bets, decision) in zip(names, players):
        if "ante" in bets and decision is not None:
            t.decide(REMOTE, decision, name)
    if t.state is S.DECISIONS:
        t.close_decisions()
    assert t.state is S.COMPLETE
    result = t.result
    total: dict[str, D] = {}
    for name, (bets, decision) in zip(names, players):
        decision = (decision or "fold") if "ante" in bets else None
        box = settle_box(remote_profile, BoxBets(*(None if bets.get(k) is None else D(bets[k])
                                                   for k in ("ante", "pair_plus"))),
                         decision, t.hands[REMOTE], t.hands["dealer"], t.qualifies)
        assert result.players[name][REMOTE] == box
        assert ("play" in result.player_stakes[name][REMOTE]) == (decision == "play")
        for bet, value in box.items():
            total[bet] = total.get(bet, D(0)) + value
    assert result.results[REMOTE] == total
