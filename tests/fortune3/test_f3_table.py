"""The Fortune 3 Card Poker round as a state machine: every illegal action is
refused with IllegalAction and changes nothing; a void returns every bet."""

from __future__ import annotations

from decimal import Decimal as D

import pytest

from tablecore.errors import IllegalAction
from tablesim.games.fortune3.machine import BEFORE_SETTLEMENT, STEPS, S
from tablesim.games.fortune3.profile import load_profile
from tablesim.games.fortune3.table import DEALER, Fortune3Table

# Boxes 1 (Ante), 2 (Ante + Pair Plus), 3 (Pair Plus only) and the dealer, by shoe:
#   box 1 KS KH 2C (pair), box 2 5D 6C 8S, box 3 9H 9D 4S, dealer QH 3D 7H (Q-high).
SHOE_CARDS = "KS 5D 9H QH  KH 6C 9D 3D  2C 8S 4S 7H"
BETS = {1: {"ante": 10}, 2: {"ante": 10, "pair_plus": 5}, 3: {"pair_plus": 5}}
PLACED = {"1": {"ante": D(10)}, "2": {"ante": D(10), "pair_plus": D(5)}, "3": {"pair_plus": D(5)}}


def to_idle(r):
    return r


def to_betting(r):
    r.table.open_round()
    r.bet(BETS)
    return r


def to_closed(r):
    to_betting(r)
    r.table.close_betting()
    assert r.table.state is S.BETS_CLOSED
    return r


def to_dealing(r):
    """Two cards out of the shoe: hands are not all dealt."""
    to_closed(r)
    r.table.start_dealing()
    for _ in range(2):
        r.table.handle(r.device.next_event(0))
    assert r.table.state is S.DEALING
    return r


def to_decisions(r):
    to_closed(r)
    r.table.start_dealing()
    r.table.pump((S.DEALING,))
    assert r.table.state is S.DECISIONS
    return r


def to_complete(r):
    to_decisions(r)
    r.table.decide("1", "play")
    r.table.decide("2", "fold")
    assert r.table.state is S.COMPLETE
    return r


def to_void(r):
    to_dealing(r)
    r.table.void("misdeal")
    assert r.table.state is S.VOID
    return r


STATES = {
    "idle": to_idle,
    "betting_open": to_betting,
    "bets_closed": to_closed,
    "dealing": to_dealing,
    "decisions": to_decisions,
    "complete": to_complete,
    "void": to_void,
}


@pytest.fixture
def shoe(rig):
    return rig("shoe", SHOE_CARDS)


def refused(r, action, *args, match=None):
    """Run an action that must be refused; assert nothing at all changed."""
    before = r.snapshot()
    with pytest.raises(IllegalAction) as info:
        action(*args)
    assert r.snapshot() == before
    if match:
        assert match in str(info.value), str(info.value)
    return info.value


# --- a full round -----------------------------------------------------------------


def test_a_full_round_by_shoe(shoe):
    t = shoe.table
    assert t.state is S.IDLE
    rid = t.open_round()
    assert rid == "T-000001" and t.state is S.BETTING_OPEN
    shoe.bet(BETS)
    t.close_betting()
    t.start_dealing()
    assert t.pump((S.DEALING,))
    assert t.state is S.DECISIONS
    assert t.pending_decisions() == ["1", "2"]  # box 3 has only Pair Plus: no decision
    t.decide("1", "play")
    assert t.state is S.DECISIONS
    t.decide("2", "fold")
    assert t.state is S.COMPLETE
    res = t.result
    assert res.status == "settled" and res.void_reason is None
    assert res.results == {
        "1": {"ante": D(10), "play": D(10), "ante_bonus": D(0)},
        "2": {"ante": D(-10), "pair_plus": D(-5)},
        "3": {"pair_plus": D(5)},
    }
    assert res.net == {"1": D(20), "2": D(-15), "3": D(5)}
    assert res.outcome["boxes"]["3"]["decision"] is None
    assert res.outcome["dealer"] == {"cards": ["QH", "3D", "7H"], "hand": "high_card", "qualifies": True}
    assert res.bets == PLACED
    # at risk: the bets, and box 1's Play (staked by its decision, Art. 9(1)); box 2 folded: no Play
    assert res.stakes == {"1": {"ante": D(10), "play": D(10)}, "2": {"ante": D(10), "pair_plus": D(5)},
                          "3": {"pair_plus": D(5)}}
    assert shoe.kinds("result")[-1]["stakes"] == {"1": {"ante": "10", "play": "10"},
                                                 "2": {"ante": "10", "pair_plus": "5"}, "3": {"pair_plus": "5"}}


def test_state_sequence_and_previous_states(shoe):
    to_complete(shoe)
    states = [(e["previous"], e["state"], e["trigger"]) for e in shoe.kinds("state")]
    assert states == [
        ("idle", "betting_open", "open_betting"),
        ("betting_open", "bets_closed", "close_betting"),
        ("bets_closed", "dealing", "start_dealing"),
        ("dealing", "decisions", "hands_dealt"),
        ("decisions", "dealer_reveal", "reveal"),
        ("dealer_reveal", "settlement", "settle"),
        ("settlement", "complete", "complete"),
    ]


def test_next_round_opens_from_complete_and_from_void(shoe):
    to_complete(shoe)
    shoe.feed(SHOE_CARDS)
    rid = shoe.table.open_round()
    assert rid == "T-000002" and shoe.table.state is S.BETTING_OPEN
    assert shoe.table.book.bets == {} and shoe.table.result is None and shoe.table.cards == {}
    shoe.table.void("test")
    rid = shoe.table.open_round()
    assert rid == "T-000003"
    opened = [e["previous"] for e in shoe.kinds("state") if e.get("trigger") == "open_betting"]
    assert opened == ["idle", "complete", "void"]


def test_pair_plus_only_round_settles_without_decisions(rig):
    r = rig("shuffler", "9C 9H 9S  AS KD 7C")
    r.table.open_round()
    r.bet({4: {"pair_plus": 5}})
    r.deal()
    assert r.table.state is S.COMPLETE
    assert r.table.decisions == {}
    assert r.table.result.results == {"4": {"pair_plus": D(125)}}


# --- illegal actions: refused, nothing changed -----------------------------------------


@pytest.mark.parametrize("state", ["idle", "bets_closed", "dealing", "decisions", "complete", "void"])
def test_no_bet_unless_betting_is_open(shoe, state):
    STATES[state](shoe)
    refused(shoe, shoe.table.place_bet, "4", "ante", 10, match="bet refused")
    refused(shoe, shoe.table.place_bet, "1", "ante", 10)


@pytest.mark.parametrize("state", ["idle", "bets_closed", "dealing", "decisions", "complete", "void"])
def test_no_withdraw_unless_betting_is_open(shoe, state):
    STATES[state](shoe)
    refused(shoe, shoe.table.withdraw_bet, "1", "ante", match="withdraw refused")


@pytest.mark.parametrize(
    "box, bet, amount, why",
    [
        ("8", "ante", 10, "does not exist"),
        ("0", "ante", 10, "does not exist"),
        ("-1", "ante", 10, "does not exist"),
        ("dealer", "ante", 10, "does not exist"),
        ("", "ante", 10, "does not exist"),
        ("1", "play", 10, "unknown bet"),  # the Play bet is placed by deciding, never directly
        ("1", "insurance", 10, "unknown bet"),
        ("1", "Ante", 10, "unknown bet"),
        ("4", "ante", 10001, "over the table limit"),
        ("4", "pair_plus", "10000.01", "over the table limit"),
        ("4", "ante", "0.5", "under the table minimum"),
        ("4", "ante", 0, "amount"),
        ("4", "ante", -5, "amount"),
        ("4", "ante", "ten", "amount"),
        ("4", "ante", float("nan"), "amount"),
        ("4", "ante", None, "amount"),
    ],
)
def test_bad_bets_refused(shoe, box, bet, amount, why):
    to_betting(shoe)
    refused(shoe, shoe.table.place_bet, box, bet, amount, match=why)


def test_box_numbers_have_one_spelling(shoe):
    """Regression: '01' (or a non-ASCII digit) used to pass the box check as a box
    of its own, so one box could hold two Antes, each within the limit."""
    to_betting(shoe)
    for alias in ("01", "001", "\u0661", "+1", " 1"):
        refused(shoe, shoe.table.place_bet, alias, "ante", 10, match="does not exist")


def test_cumulative_bets_respect_the_limit(shoe):
    to_betting(shoe)
    shoe.table.place_bet("4", "ante", 6000)
    refused(shoe, shoe.table.place_bet, "4", "ante", 4001, match="over the table limit")
    shoe.table.place_bet("4", "ante", 4000)
    assert shoe.table.book.get("4", "ante") == D(10000)


def test_withdraw_of_a_bet_not_placed_is_refused(shoe):
    to_betting(shoe)
    refused(shoe, shoe.table.withdraw_bet, "3", "ante", match="no ante bet")
    refused(shoe, shoe.table.withdraw_bet, "6", "pair_plus")


def test_withdraw_during_betting(shoe):
    to_betting(shoe)
    shoe.table.withdraw_bet("2", "pair_plus")
    shoe.table.withdraw_bet("3", "pair_plus")
    assert shoe.table.book.snapshot() == {"1": {"ante": "10"}, "2": {"ante": "10"}}


def test_decision_from_a_box_without_ante(shoe):
    to_decisions(shoe)
    refused(shoe, shoe.table.decide, "3", "play", match="no Ante")  # Pair Plus only
    refused(shoe, shoe.table.decide, "3", "fold", match="no Ante")
    refused(shoe, shoe.table.decide, "5", "play", match="no Ante")  # no bet at all
    refused(shoe, shoe.table.decide, "8", "play")


def test_decision_twice(shoe):
    to_decisions(shoe)
    shoe.table.decide("1", "play")
    refused(shoe, shoe.table.decide, "1", "fold", match="already chose play")
    refused(shoe, shoe.table.decide, "1", "play", match="already")


def test_unknown_decision(shoe):
    to_decisions(shoe)
    refused(shoe, shoe.table.decide, "1", "raise", match="unknown decision")
    refused(shoe, shoe.table.decide, "1", "PLAY", match="unknown decision")


@pytest.mark.parametrize("state", ["idle", "betting_open", "bets_closed", "dealing", "complete", "void"])
def test_decision_only_once_all_hands_are_dealt(shoe, state):
    STATES[state](shoe)
    refused(shoe, shoe.table.decide, "1", "play", match="decision refused")


def test_close_betting_with_no_bets(shoe):
    shoe.table.open_round()
    refused(shoe, shoe.table.close_betting, match="no bets")
    shoe.table.place_bet("2", "ante", 10)
    shoe.table.withdraw_bet("2", "ante")
    refused(shoe, shoe.table.close_betting, match="no bets")


@pytest.mark.parametrize("state", ["idle", "bets_closed", "dealing", "decisions", "complete", "void"])
def test_close_betting_only_while_open(shoe, state):
    STATES[state](shoe)
    refused(shoe, shoe.table.close_betting)


@pytest.mark.parametrize("state", ["idle", "betting_open", "dealing", "decisions", "complete", "void"])
def test_deal_only_after_betting_closed(shoe, state):
    STATES[state](shoe)
    refused(shoe, shoe.table.start_dealing, match="deal refused")


@pytest.mark.parametrize("state", ["idle", "complete", "void"])
def test_void_only_before_settlement(shoe, state):
    STATES[state](shoe)
    refused(shoe, shoe.table.void, "misdeal", match="cannot be voided")


@pytest.mark.parametrize("state", ["idle", "betting_open", "bets_closed", "complete", "void"])
def test_misdeal_only_while_cards_are_out(shoe, state):
    STATES[state](shoe)
    refused(shoe, shoe.table.misdeal, match="misdeal refused")


@pytest.mark.parametrize("state", ["betting_open", "bets_closed", "dealing", "decisions"])
def test_no_new_round_while_one_is_running(shoe, state):
    STATES[state](shoe)
    refused(shoe, shoe.table.open_round, match="not finished")


def test_refused_open_round_does_not_use_up_a_round_id(shoe):
    """Regression: a refused open_round() used to draw the next round id in its
    journaling wrapper, so the next round skipped one."""
    to_complete(shoe)  # T-000001
    shoe.feed(SHOE_CARDS)
    shoe.table.open_round()  # T-000002
    with pytest.raises(IllegalAction):
        shoe.table.open_round()
    shoe.table.void("test")
    assert shoe.table.open_round() == "T-000003"


def test_fold_with_pair_plus_forbidden_by_profile(rig, profile_file):
    path = profile_file({'fold_with_pair_plus = "forfeit"': 'fold_with_pair_plus = "forbid"'})
    r = rig("shoe", SHOE_CARDS, profile_=load_profile(str(path)))
    to_decisions(r)
    refused(r, r.table.decide, "2", "fold", match="must play")
    r.table.decide("1", "fold")  # Ante only: folding is allowed
    r.table.decide("2", "play")
    assert r.table.state is S.COMPLETE
    assert r.table.result.results["1"] == {"ante": D(-10)}
    assert r.table.result.results["2"] == {"ante": D(-10), "play": D(-10), "ante_bonus": D(0), "pair_plus": D(-5)}


def test_fold_with_pair_plus_forfeits_both_by_default(shoe):
    to_decisions(shoe)
    shoe.table.decide("1", "play")
    shoe.table.decide("2", "fold")
    assert shoe.table.result.results["2"] == {"ante": D(-10), "pair_plus": D(-5)}


# --- void -------------------------------------------------------------------------------


def force_reveal(r):
    to_decisions(r)
    r.table.machine.model.state = S.DEALER_REVEAL  # a transient state (reveal and settle run together): set directly
    return r


@pytest.mark.parametrize(
    "reach", [to_betting, to_closed, to_dealing, to_decisions, force_reveal],
    ids=["betting_open", "bets_closed", "dealing", "decisions", "dealer_reveal"],
)
@pytest.mark.parametrize("dealing", ["shoe", "shuffler"])
def test_void_from_each_state_before_settlement_returns_every_bet(rig, reach, dealing):
    cards = SHOE_CARDS if dealing == "shoe" else "KS KH 2C 5D 6C 8S 9H 9D 4S QH 3D 7H"
    r = rig(dealing, cards)
    if dealing == "shuffler" and reach is to_dealing:
        to_closed(r)
        r.table.start_dealing()
        r.table.handle(r.device.next_event(0))  # box 1's hand only
        assert r.table.state is S.DEALING
    else:
        reach(r)
    assert r.table.state in BEFORE_SETTLEMENT
    result = r.table.void("misdeal")
    assert r.table.state is S.VOID
    assert result is r.table.result
    assert result.status == "void" and result.void_reason == "misdeal"
    assert result.bets == PLACED
    assert result.results == {} and result.net == {}
    j = result.as_json()
    assert j["status"] == "void" and j["void_reason"] == "misdeal" and j["results"] == {} and j["net"] == {}
    assert "stakes" not in j  # nothing was at risk: every bet is returned
    assert r.kinds("void")[-1]["returned"] == {"1": {"ante": "10"}, "2": {"ante": "10", "pair_plus": "5"},
                                               "3": {"pair_plus": "5"}}
    # the devices are stopped: nothing more is dealt into the void round
    assert r.table.poll() == 0 and r.table.state is S.VOID
    if dealing == "shoe":
        assert not r.device.armed


def test_void_is_final_for_the_round(shoe):
    to_void(shoe)
    refused(shoe, shoe.table.void, "again")
    refused(shoe, shoe.table.decide, "1", "play")
    assert shoe.table.result.void_reason == "misdeal"


def test_void_after_settlement_is_refused_and_keeps_the_result(shoe):
    to_complete(shoe)
    before = shoe.table.result.as_json()
    refused(shoe, shoe.table.void, "late", match="complete")
    assert shoe.table.result.as_json() == before


# --- the diagram -------------------------------------------------------------------------


def test_diagram_has_every_transition():
    text = Fortune3Table.diagram()
    lines = text.splitlines()
    assert lines[0] == "stateDiagram-v2"
    assert "    [*] --> idle" in lines
    expected = set()
    for step in STEPS:
        for src in step.sources:
            expected.add(f"    {src.value} --> {step.dest.value}: {step.trigger}")
    assert expected <= set(lines)
    for state in BEFORE_SETTLEMENT:
        assert f"    {state.value} --> void: void" in lines
    for a, b, trig in [("idle", "betting_open", "open_betting"), ("complete", "betting_open", "open_betting"),
                       ("void", "betting_open", "open_betting"), ("betting_open", "bets_closed", "close_betting"),
                       ("bets_closed", "dealing", "start_dealing"), ("dealing", "decisions", "hands_dealt"),
                       ("decisions", "dealer_reveal", "reveal"), ("dealer_reveal", "settlement", "settle"),
                       ("settlement", "complete", "complete")]:
        assert f"    {a} --> {b}: {trig}" in lines
    assert "    complete --> [*]" in lines and "    void --> [*]" in lines
    assert "settlement --> void" not in text and "complete --> void" not in text
    # every state appears
    for s in S:
        assert s.value in text


def test_dealer_constant():
    assert DEALER == "dealer"
