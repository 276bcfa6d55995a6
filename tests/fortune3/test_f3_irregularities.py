"""Art. 11 at the end of the deal: a misdeal at any point before
settlement and who may void, a stray last card, a shuffler hand of the wrong
size, and the supervisor's switch to the shoe after a shuffler failure."""

from __future__ import annotations

from decimal import Decimal as D
from pathlib import Path

import pytest

from drivers.mock import MockFault, MockShoe, MockShuffler, ScriptedCards
from tablecore.cards import parse_dealt
from tablecore.errors import IllegalAction
from tablesim.games.fortune3.machine import S
from tablesim.games.fortune3.profile import Fortune3Settings
from tablesim.games.fortune3.table import DEALER, Fortune3Table

ONE_BOX = "AS KS QS JS 9D 2C"  # box 1 A-Q-9, dealer K-J-2 (shoe order)


def dealt_to_decisions(rig, cards=ONE_BOX, bets=None, **options):
    r = rig("shoe", cards, **options)
    r.table.open_round()
    r.bet(bets or {1: {"ante": 10, "pair_plus": 5}})
    r.table.close_betting()
    r.table.start_dealing()
    r.table.pump((S.DEALING,))
    return r


def test_misdeal_after_the_last_card_waits_for_the_supervisor_then_voids(rig):
    r = dealt_to_decisions(rig)
    assert r.table.state is S.DECISIONS and r.table.pending_decisions() == ["1"]
    assert r.table.misdeal() is None
    incident = r.table.incident
    assert incident.code == Fortune3Table.MISDEAL_INCIDENT and incident.blocking
    with pytest.raises(IllegalAction, match="must be resolved first"):
        r.table.decide("1", "play")  # the call holds the round
    r.table.resolve_incident("confirm", actor="supervisor:sam", why="box 1 got two cards at once")
    assert r.table.state is S.VOID and r.table.result.void_reason == "misdeal"
    assert r.table.result.bets == {"1": {"ante": D(10), "pair_plus": D(5)}}
    resolved = r.kinds("incident_resolved")[-1]
    assert resolved["actor"] == "supervisor:sam" and resolved["decision"] == "confirm"


def test_a_confirmed_misdeal_returns_a_play_already_decided_with_the_bets(rig):
    """Art. 11(1): every bet of a void round is returned, the Play a box
    staked by its decision included (in the result and in the void event)."""
    r = dealt_to_decisions(rig, "AS KD KS QS QD JS 9D 8C 2C", bets={1: {"ante": 10, "pair_plus": 5}, 2: {"ante": 20}})
    r.table.decide("1", "play")
    assert r.table.state is S.DECISIONS and r.table.pending_decisions() == ["2"]
    r.table.misdeal()
    r.table.resolve_incident("confirm", actor="supervisor:sam", why="box 2 got a card face up")
    assert r.table.state is S.VOID
    returned = {"1": {"ante": D(10), "pair_plus": D(5), "play": D(10)}, "2": {"ante": D(20)}}
    assert r.table.result.bets == returned
    assert r.kinds("void")[-1]["returned"] == {"1": {"ante": "10", "pair_plus": "5", "play": "10"}, "2": {"ante": "20"}}
    assert r.table.result.as_json()["status"] == "void"


def test_a_rejected_misdeal_call_plays_on(rig):
    r = dealt_to_decisions(rig)
    r.table.misdeal()
    r.table.resolve_incident("reject", actor="supervisor:sam", why="the order was right")
    assert r.table.state is S.DECISIONS and r.table.incident is None
    r.table.decide("1", "play")
    assert r.table.state is S.COMPLETE and r.table.result.status == "settled"


def test_a_table_may_let_the_dealer_void_alone(rig):
    r = dealt_to_decisions(rig, misdeal_confirmation="dealer")
    result = r.table.misdeal()
    assert result is not None and result.void_reason == "misdeal" and r.table.incident is None


def test_before_any_card_the_dealer_voids_alone(rig):
    r = rig("shoe", ONE_BOX)
    r.table.open_round()
    r.bet({1: {"ante": 10}})
    r.table.close_betting()
    r.table.start_dealing()
    assert r.table.misdeal().void_reason == "misdeal"


def test_a_pair_plus_round_held_for_the_reveal_can_still_be_misdealt(rig):
    r = dealt_to_decisions(rig, bets={1: {"pair_plus": 5}}, reveal_by_dealer=True)
    assert r.table.state is S.DECISIONS and not r.table.pending_decisions()
    r.table.misdeal()
    r.table.resolve_incident("confirm", actor="supervisor:sam", why="seen")
    assert r.table.state is S.VOID


def test_reveal_settles_a_held_round_and_waits_for_decisions(rig):
    r = dealt_to_decisions(rig, reveal_by_dealer=True)
    with pytest.raises(IllegalAction, match="still decide"):
        r.table.reveal()
    r.table.decide("1", "play")
    assert r.table.state is S.DECISIONS  # held for the dealer's reveal
    r.table.reveal()
    assert r.table.state is S.COMPLETE


@pytest.mark.parametrize("dealing, cards, stray_at, dealer", [
    ("shoe", "KD 2S KH 6D 3C 8H QC", 6, ["2S", "6D", "QC"]),
    ("shuffler", "KD KH 3C 2S 6D 8H QC 6S 2H", 2, ["QC", "6S", "2H"]),
])
def test_a_stray_last_card_is_set_aside_and_the_dealer_takes_the_next(rig, dealing, cards, stray_at, dealer):
    r = rig(dealing, cards)
    r.table.open_round()
    r.bet({1: {"ante": 10}})
    r.table.close_betting()
    r.table.start_dealing()
    for _ in range(stray_at):
        r.table.handle(r.device.next_event(0))
    assert r.table.state is S.DECISIONS  # the table took the deal as complete
    r.table.stray()  # the dealer declares the last card (hand) stray
    assert r.table.state is S.DEALING and r.table.targets == [DEALER]
    r.table.pump((S.DEALING,))
    r.table.decide("1", "play")
    out = r.table.result.outcome
    assert out["dealer"]["cards"] == dealer
    assert out["dealer"]["qualifies"] and r.table.result.net == {"1": D(20)}
    assert "8H" in out["set_aside"]
    assert [e["reason"] for e in r.kinds("card_set_aside")] == ["dealt to a box with no bet (Art. 11(3))"]


@pytest.mark.parametrize("kind, size", [("short_hand", 2), ("long_hand", 4)])
def test_a_shuffler_hand_of_the_wrong_size_is_a_misdeal(rig, kind, size):
    r = rig("shuffler", "KD KH 3C 2S 6D 8H QC", faults=[MockFault(kind, 1)])
    r.table.open_round()
    r.bet({1: {"ante": 10}})
    r.deal()
    assert r.table.state is S.VOID and r.table.result.void_reason == "misdeal"
    fault = r.kinds("fault")[-1]
    assert fault["code"] == 302 and f"dispensed {size} card(s)" in fault["text"]


def both_devices_table(profile):
    source = ScriptedCards()
    table = Fortune3Table(profile, Fortune3Settings(dealing="shuffler"), shoe=MockShoe(source),
                          shuffler=MockShuffler(source), table_id="SW")
    events = []
    table.bus.subscribe(events.append)
    return table, source, events


def test_a_supervisor_switches_to_the_shoe_after_a_shuffler_failure_and_back(profile):
    table, source, events = both_devices_table(profile)
    table.shuffler.faults = [MockFault("jam", 0)]
    source.feed([parse_dealt(c) for c in "KD KH 3C 2S 6D 8H".split()])
    table.open_round()
    table.place_bet("1", "ante", 10)
    table.close_betting()
    table.start_dealing()
    table.poll()
    assert table.state is S.VOID and table.result.void_reason == "shuffler_fault"
    with pytest.raises(IllegalAction, match="already deals by shuffler"):
        table.set_dealing("shuffler", actor="supervisor:sam", why="x")
    table.set_dealing("shoe", actor="supervisor:sam", why="shuffler jammed (Art. 11(4))")
    assert table.dealing == "shoe" and table.devices == [table.shoe]
    switch = [e for e in events if e.kind == "dealing_mode"][-1].data
    assert switch == {"mode": "shoe", "previous": "shuffler", "actor": "supervisor:sam",
                      "why": "shuffler jammed (Art. 11(4))"}
    # the next round is dealt one card at a time from the shoe
    table.open_round()
    table.place_bet("1", "ante", 10)
    table.close_betting()
    with pytest.raises(IllegalAction, match="between rounds"):
        table.set_dealing("shuffler", actor="supervisor:sam", why="repaired")
    table.start_dealing()
    assert table.targets == ["1", DEALER] * 3
    table.void("test")
    table.set_dealing("shuffler", actor="supervisor:sam", why="repaired")
    assert table.dealing == "shuffler"


def test_no_switch_to_a_device_the_table_lacks(rig):
    r = rig("shoe", "")
    with pytest.raises(IllegalAction, match="has no shuffler"):
        r.table.set_dealing("shuffler", actor="supervisor:sam", why="x")
    with pytest.raises(IllegalAction, match="unknown dealing mode"):
        r.table.set_dealing("hand", actor="supervisor:sam", why="x")


@pytest.mark.parametrize("value, expected", [('"dealer"', "dealer"), ('"supervisor"', "supervisor"), (None, "supervisor")])
def test_who_voids_is_configured_per_table(tmp_path, value, expected):
    from tablesim.harness.tableconfig import load_table_config

    text = (Path(__file__).parents[2] / "config" / "tables" / "fortune3-mock.toml").read_text()
    if value is not None:
        text = text.replace('dealing = "shoe"', f'dealing = "shoe"\nmisdeal_confirmation = {value}')
    path = tmp_path / "t.toml"
    path.write_text(text)
    assert load_table_config(path).settings.misdeal_confirmation == expected


def test_an_unknown_confirmation_is_refused(tmp_path):
    from tablecore.errors import ConfigError
    from tablesim.harness.tableconfig import load_table_config

    text = (Path(__file__).parents[2] / "config" / "tables" / "fortune3-mock.toml").read_text()
    path = tmp_path / "t.toml"
    path.write_text(text.replace('dealing = "shoe"', 'dealing = "shoe"\nmisdeal_confirmation = "pitboss"'))
    with pytest.raises(ConfigError, match="misdeal_confirmation"):
        load_table_config(path)
