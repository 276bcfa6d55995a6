"""Operator actions, journaled with who and why: pause and
resume (while paused every dealer and player action is refused and nothing is
written), voiding the current round (every bet returned), resolving
incidents (fortune3: a misread while dealing from the shoe blocks the round
until a supervisor confirms the card or rejects, which voids it; a card drawn
while the shoe is disarmed is a non-blocking incident)."""

from __future__ import annotations

import pytest

from drivers.events import DRAWN_WHILE_DISARMED, MISREAD
from drivers.mock import MockFault
from drivers.mock.wheel import Spin
from tablecore.cards import parse_dealt
from tablesim.engine.table import resolve_unattended
from tablecore.errors import IllegalAction, InputError
from tablesim.games.fortune3.machine import S as F3S
from tablesim.journal.invariants import check
from tablesim.journal.journal import Journal

F3_BETS = {"1": {"ante": 10, "pair_plus": 5}, "3": {"ante": 20}, "5": {"pair_plus": 10}}
F3_SHOE = "AS 9D 2C KS  AH TD 2D QC  7C JD 2H 4H".split()
F3_DECISIONS = {"1": "play", "3": "fold"}
FB_BETS = {"1": {"upper": 10, "odd": 5}, "common": {"lower": 10}}
FB_CARDS = "4S 5H KS 7D 6C".split()


def last_inputs(jrows, path, n=1):
    return [r for r in jrows(path) if r["kind"] == "input"][-n:]


def invariants(path):
    journal = Journal(path)
    try:
        return check(journal, allow_open_last=False)
    finally:
        journal.close()


# --- pause and resume ----------------------------------------------------------------


def f3_open(f3, path):
    rig = f3(path, cards=F3_SHOE)
    rig.table.open_round()
    rig.bet(F3_BETS)
    return rig


def fb_open(fb, path):
    rig = fb(path, cards=FB_CARDS)
    rig.open(3)
    rig.bet(FB_BETS)
    return rig


def wheel_open(wheel, path):
    rig = wheel(path, spins=[Spin(3, 4.1)])
    rig.table.open_round()
    rig.bet([("alice", "5", 10)])
    return rig


PAUSED_ACTIONS = {
    "fortune3": (f3_open, {
        "place_bet": lambda t: t.place_bet("2", "ante", 5),
        "withdraw_bet": lambda t: t.withdraw_bet("1", "ante"),
        "close_betting": lambda t: t.close_betting(),
        "start_dealing": lambda t: t.start_dealing(),
        "decide": lambda t: t.decide("1", "play"),
        "misdeal": lambda t: t.misdeal(),
        "stray": lambda t: t.stray(),
        "open_round": lambda t: t.open_round(),
    }),
    "football": (fb_open, {
        "place_bet": lambda t: t.place_bet("2", "odd", 5),
        "withdraw_bet": lambda t: t.withdraw_bet("1", "odd"),
        "close_betting": lambda t: t.close_betting(),
        "start_dealing": lambda t: t.start_dealing(),
        "settle": lambda t: t.settle(),
        "open_round": lambda t: t.open_round(),
    }),
    "wheel": (wheel_open, {
        "place_bet": lambda t: t.place_bet("bob", "1", 5),
        "withdraw_bet": lambda t: t.withdraw_bet("alice", "5"),
        "change_bet": lambda t: t.change_bet("alice", "5", 20),
        "close_betting": lambda t: t.close_betting(),
        "declare_no_spin": lambda t: t.declare_no_spin(),
        "open_round": lambda t: t.open_round(),
    }),
}


@pytest.mark.parametrize("game", list(PAUSED_ACTIONS))
def test_while_paused_every_dealer_and_player_action_is_refused_and_nothing_is_written(
    game, f3, fb, wheel, tmp_path, jhead, jrows
):
    build, actions = PAUSED_ACTIONS[game]
    path = tmp_path / f"{game}.sqlite"
    rig = build({"fortune3": f3, "football": fb, "wheel": wheel}[game], path)
    t = rig.table
    t.pause(actor="pit boss", why="camera check")
    (pause,) = last_inputs(jrows, path)
    assert pause["name"] == "pause" and pause["actor"] == "pit boss"
    assert pause["data"]["kwargs"] == {"actor": "pit boss", "why": "camera check"}
    paused_event = [r for r in jrows(path) if r["name"] == "paused"][-1]
    assert paused_event["data"]["actor"] == "pit boss" and paused_event["data"]["why"] == "camera check"

    before = jhead(path)
    bets = t.book.snapshot()
    state = t.state
    for name, action in actions.items():
        with pytest.raises(IllegalAction, match="paused"):
            action(t)
        assert jhead(path) == before, name
        assert t.book.snapshot() == bets and t.state is state, name
    with pytest.raises(IllegalAction, match="already paused"):
        t.pause(actor="pit boss", why="again")
    assert jhead(path) == before

    t.resume(actor="shift manager", why="camera fine")
    (resume,) = last_inputs(jrows, path)
    assert resume["name"] == "resume" and resume["actor"] == "shift manager"
    assert resume["data"]["kwargs"]["why"] == "camera fine"
    with pytest.raises(IllegalAction, match="not paused"):
        t.resume(actor="x", why="y")
    t.close_betting()  # dealer actions work again
    rig.finish()
    assert t.result is not None and t.result.status == "settled"
    assert invariants(path) == []


def test_device_events_are_still_taken_while_paused(wheel, tmp_path, jrows):
    """A pause stops people, not the wheel: a spin under way is still read."""
    path = tmp_path / "w.sqlite"
    rig = wheel_open(wheel, path)
    rig.table.close_betting()
    rig.table.pause(actor="pit boss", why="player complaint")
    rig.finish()
    assert rig.table.result.outcome["symbol"] == "5"
    assert rig.table.paused


# --- void -------------------------------------------------------------------------------


@pytest.mark.parametrize("game", ["fortune3", "football", "wheel"])
@pytest.mark.parametrize("paused", [False, True])
def test_operator_void_returns_every_bet_and_records_who_and_why(game, paused, f3, fb, wheel, tmp_path, jrows):
    build = PAUSED_ACTIONS[game][0]
    path = tmp_path / f"{game}.sqlite"
    rig = build({"fortune3": f3, "football": fb, "wheel": wheel}[game], path)
    t = rig.table
    t.close_betting()
    bets = t.book.snapshot()
    if paused:
        t.pause(actor="pit boss", why="dispute")
    result = t.void("operator", actor="pit boss", why="dispute over the last bet")
    assert result.status == "void" and result.void_reason == "operator" and result.results == {}
    assert {p: {b: str(a) for b, a in per.items()} for p, per in result.bets.items()} == bets
    (void_input,) = [r for r in jrows(path) if r["kind"] == "input" and r["name"] == "void"]
    assert void_input["actor"] == "pit boss"
    assert void_input["data"]["kwargs"] == {"actor": "pit boss", "why": "dispute over the last bet"}
    (void_event,) = [r for r in jrows(path) if r["kind"] == "event" and r["name"] == "void"]
    assert void_event["data"]["returned"] == bets
    assert void_event["data"]["actor"] == "pit boss" and void_event["data"]["why"] == "dispute over the last bet"
    assert invariants(path) == []
    # nothing more happens to a void round
    with pytest.raises(IllegalAction):
        t.void("operator", actor="pit boss", why="twice")


# --- incidents (fortune3) --------------------------------------------------------------


def f3_misread(f3, path, after=5):
    rig = f3(path, cards=F3_SHOE, faults=[MockFault("misread", after)])
    t = rig.table
    t.open_round()
    rig.bet(F3_BETS)
    t.close_betting()
    t.start_dealing()
    assert t.pump((F3S.DEALING,)) is False  # held by the incident
    return rig


def f3_reference(f3, tmp_path):
    ref = f3(tmp_path / "ref.sqlite", cards=F3_SHOE)
    ref.table.open_round()
    ref.bet(F3_BETS)
    ref.finish(F3_DECISIONS)
    return ref.table.result.as_json()


def test_a_misread_while_dealing_from_the_shoe_blocks_the_round(f3, tmp_path, jhead):
    path = tmp_path / "f3.sqlite"
    rig = f3_misread(f3, path)
    t = rig.table
    assert t.incident.code == MISREAD and t.incident.blocking
    assert sum(len(c) for c in t.cards.values()) == 5
    before = jhead(path)
    for action in (t.misdeal, lambda: t.decide("1", "play"), lambda: t.place_bet("2", "ante", 5),
                   t.start_dealing, t.close_betting):
        with pytest.raises(IllegalAction, match="incident"):
            action()
        assert jhead(path) == before
    with pytest.raises(IllegalAction, match="card's code"):
        t.resolve_incident("confirm", actor="supervisor", why="no card named")
    with pytest.raises((IllegalAction, InputError)):
        t.resolve_incident("confirm", actor="supervisor", why="bad code", card="ZZ")
    with pytest.raises(IllegalAction, match="unknown decision"):
        t.resolve_incident("maybe", actor="supervisor", why="?")
    assert jhead(path) == before
    assert t.incident is not None


def test_confirming_a_misread_card_goes_on_as_if_it_was_read(f3, tmp_path, jrows):
    expected = f3_reference(f3, tmp_path)
    path = tmp_path / "f3.sqlite"
    rig = f3_misread(f3, path)
    rig.table.resolve_incident("confirm", actor="supervisor", why="camera shows TD", card="TD")
    (rec,) = last_inputs(jrows, path)
    assert rec["name"] == "resolve_incident" and rec["actor"] == "supervisor"
    assert rec["data"]["args"] == ["confirm"]
    assert rec["data"]["kwargs"] == {"actor": "supervisor", "why": "camera shows TD", "card": "TD"}
    assert rig.table.incident is None
    rig.finish(F3_DECISIONS)
    assert rig.table.result.as_json() == expected
    resolved = [r for r in jrows(path) if r["name"] == "incident_resolved"]
    assert resolved[0]["data"]["decision"] == "confirm" and resolved[0]["data"]["actor"] == "supervisor"
    assert invariants(path) == []


def test_rejecting_a_misread_voids_the_round_with_reason_misread(f3, tmp_path, jrows):
    path = tmp_path / "f3.sqlite"
    rig = f3_misread(f3, path)
    bets = rig.table.book.snapshot()
    rig.table.resolve_incident("reject", actor="supervisor", why="card not visible on camera")
    t = rig.table
    assert t.state is F3S.VOID and t.result.void_reason == "misread"
    (void,) = [r for r in jrows(path) if r["name"] == "void"]
    assert void["data"]["returned"] == bets
    (rec,) = [r for r in jrows(path) if r["kind"] == "input" and r["name"] == "resolve_incident"]
    assert rec["actor"] == "supervisor" and rec["data"]["kwargs"]["why"] == "card not visible on camera"
    assert invariants(path) == []


def test_an_unattended_table_rejects_a_blocking_incident(f3, tmp_path, jrows):
    path = tmp_path / "f3.sqlite"
    rig = f3_misread(f3, path)
    assert resolve_unattended(rig.table)
    assert rig.table.result.void_reason == "misread"
    (rec,) = [r for r in jrows(path) if r["kind"] == "input" and r["name"] == "resolve_incident"]
    assert rec["actor"] == "unattended" and rec["data"]["kwargs"]["why"]


@pytest.mark.parametrize("decision", ["confirm", "reject", None])
def test_a_card_drawn_while_disarmed_is_a_non_blocking_incident(decision, f3, tmp_path, jrows):
    path = tmp_path / "f3.sqlite"
    stray = parse_dealt("8H").card
    rig = f3(path, cards=F3_SHOE, faults=[MockFault("drawn_while_disarmed", 0, stray)])
    t = rig.table
    t.open_round()
    rig.bet(F3_BETS)
    t.poll()
    assert t.incident.code == DRAWN_WHILE_DISARMED and not t.incident.blocking and t.incident.card == "8H"
    t.place_bet("2", "ante", 5)  # the round goes on
    if decision is not None:
        t.resolve_incident(decision, actor="supervisor", why="stray card set aside")
        (rec,) = last_inputs(jrows, path)
        assert rec["name"] == "resolve_incident" and rec["actor"] == "supervisor"
        assert t.incident is None
    t.withdraw_bet("2", "ante")
    rig.finish(F3_DECISIONS)
    assert t.state is F3S.COMPLETE
    assert t.result.outcome["set_aside"] == ["8H^"]
    expected = f3_reference(f3, tmp_path)
    got = t.result.as_json()
    got["outcome"].pop("set_aside")
    assert got == expected
    assert invariants(path) == []
