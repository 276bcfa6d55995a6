"""Art. 11(2)-(4) where they meet: a card that is two irregularities at once,
a stray noticed late, and the failed shuffler that stays out of service
until a supervisor says it was replaced."""

from __future__ import annotations

from decimal import Decimal as D

import pytest

from drivers.mock import MockFault, MockShoe, MockShuffler, ScriptedCards
from tablecore.cards import parse_dealt
from tablecore.errors import IllegalAction
from tablesim.games.fortune3.machine import S
from tablesim.games.fortune3.profile import Fortune3Settings
from tablesim.games.fortune3.table import DEALER, Fortune3Table


def dealing(rig, mode, cards, bets=None, reveal_by_dealer=True):
    r = rig(mode, cards, reveal_by_dealer=reveal_by_dealer)
    r.table.open_round()
    r.bet(bets or {1: {"ante": 10}})
    r.table.close_betting()
    r.table.start_dealing()
    return r


def step(r, n=1):
    for _ in range(n):
        r.table.handle(r.device.next_event(0))


def test_shoe_an_exposed_dealer_card_on_an_empty_box_is_the_only_dead_card(rig):
    r = dealing(rig, "shoe", "KD QC^ 4S KH 6D 3C 8H")
    step(r, 2)  # box 1's KD, then the dealer's QC face up (onto an empty box)
    r.table.stray()
    assert r.table.cards["1"] == [parse_dealt("KD")]  # the correctly dealt card stands
    r.table.pump((S.DEALING,))
    r.table.decide("1", "play")
    r.table.reveal()
    out = r.table.result.outcome
    assert out["boxes"]["1"]["cards"] == ["KD", "KH", "3C"] and out["dealer"]["cards"] == ["4S", "6D", "8H"]
    assert out["set_aside"] == ["QC^"]


def test_shuffler_a_dealer_hand_with_an_exposed_card_on_an_empty_box_is_dead_whole(rig):
    r = dealing(rig, "shuffler", "KD KH 3C 2S 6D^ 8H QC 6S 2H")
    step(r, 2)  # box 1's hand, the dealer's hand (6D face up): a one-card hand is asked for the 6D
    r.table.stray()
    assert r.table.state is S.DEALING and r.table.cards[DEALER] == []
    r.table.pump((S.DEALING,))  # the one card already asked for, then two more
    assert [d.code for d in r.table.cards[DEALER]] == ["QC", "6S", "2H"]
    assert [k for k in r.kinds("fault")] == []  # no misdeal (no fault 302)
    assert [d.code for d in r.table.set_aside] == ["2S", "6D^", "8H"]


def test_shuffler_a_stray_replacement_card_leaves_the_dealers_other_cards(rig):
    r = dealing(rig, "shuffler", "KD KH 3C 2S 6D^ QH 9C 4D")
    step(r, 3)  # box 1, the dealer's hand (6D face up, set aside), the one-card replacement 9C
    assert r.table.state is S.DECISIONS
    r.table.stray()
    assert [d.code for d in r.table.cards[DEALER]] == ["2S", "QH"]
    r.table.pump((S.DEALING,))
    assert [d.code for d in r.table.cards[DEALER]] == ["2S", "QH", "4D"]
    assert [d.code for d in r.table.set_aside] == ["6D^", "9C"]


def test_a_stray_named_late_waits_for_the_supervisor_and_the_round_goes_on(rig):
    # box 2's first card (9C) went to an empty box; noticed after both boxes played
    r = dealing(rig, "shoe", "AS 9C KS 2D QS 3H 4C 5D 8D 7H", bets={1: {"ante": 10}, 2: {"ante": 5}})
    r.table.pump((S.DEALING,))
    r.table.decide("1", "play")
    r.table.decide("2", "play")
    r.table.stray("9C")
    assert r.table.incident.code == Fortune3Table.STRAY_INCIDENT and r.table.incident.card == "9C"
    with pytest.raises(IllegalAction):
        r.table.reveal()  # the call holds the round until a supervisor answers
    r.table.resolve_incident("confirm", actor="supervisor:sam", why="seen on the camera")
    assert r.table.state is S.DEALING and r.table.targets == [DEALER]
    r.table.pump((S.DEALING,))
    r.table.reveal()
    out = r.table.result.outcome
    assert out["boxes"]["1"]["cards"] == ["AS", "QS", "5D"] and out["boxes"]["2"]["cards"] == ["KS", "3H", "8D"]
    assert out["dealer"]["cards"] == ["2D", "4C", "7H"] and out["set_aside"] == ["9C"]
    assert out["boxes"]["2"]["decision"] == "play"  # the decisions taken stand


def test_a_supervisor_who_rejects_a_late_stray_leaves_every_card(rig):
    r = dealing(rig, "shoe", "AS KS QS JS 9D 2C")
    r.table.pump((S.DEALING,))
    r.table.decide("1", "fold")
    r.table.stray()  # after a decision: the latest card is named for the supervisor
    assert r.table.incident.card == "2C"
    r.table.resolve_incident("reject", actor="supervisor:sam", why="it was box 1's")
    r.table.reveal()
    assert r.table.result.status == "settled" and "set_aside" not in r.table.result.outcome


def test_a_named_card_that_is_not_in_a_hand_is_refused(rig):
    r = dealing(rig, "shoe", "AS KS QS JS 9D 2C")
    r.table.pump((S.DEALING,))
    with pytest.raises(IllegalAction, match="7H is not a card of this round's hands"):
        r.table.stray("7H")
    r.table.stray("KS")
    with pytest.raises(IllegalAction, match="name the stray card"):
        r.table.resolve_incident("confirm", actor="supervisor:sam", why="x", card="7H")


def both(profile):
    source = ScriptedCards()
    table = Fortune3Table(profile, Fortune3Settings(dealing="shuffler"), shoe=MockShoe(source),
                          shuffler=MockShuffler(source), table_id="SV")
    events = []
    table.bus.subscribe(events.append)
    return table, source, events


def jammed_round(table, source):
    table.shuffler.faults = [MockFault("jam", 0)]
    source.feed([parse_dealt(c) for c in "KD KH 3C".split()])
    table.open_round()
    table.place_bet("1", "ante", 10)
    table.close_betting()
    table.start_dealing()
    table.poll()
    assert table.result.void_reason == "shuffler_fault"


def test_after_a_shuffler_failure_no_round_opens_until_a_supervisor_confirms_a_replacement(profile):
    table, source, events = both(profile)
    jammed_round(table, source)
    assert table.shuffler_out_of_service == {"round": table.round_id, "reason": "shuffler_fault"}
    assert [e.kind for e in events].count("shuffler_out_of_service") == 1
    with pytest.raises(IllegalAction, match=r"confirms it was replaced or switches the table to the shoe"):
        table.open_round()
    table.confirm_shuffler(actor="supervisor:sam", why="spare shuffler fitted")
    assert table.shuffler_out_of_service is None
    replaced = [e.data for e in events if e.kind == "shuffler_replaced"]
    assert replaced == [{"failed_in": "SV-000001", "actor": "supervisor:sam", "why": "spare shuffler fitted"}]
    table.open_round()
    table.void("test")
    with pytest.raises(IllegalAction, match="no shuffler failure"):
        table.confirm_shuffler(actor="supervisor:sam", why="x")


def test_or_the_supervisor_deals_from_the_shoe(profile):
    table, source, events = both(profile)
    jammed_round(table, source)
    table.set_dealing("shoe", actor="supervisor:sam", why="shuffler jammed")
    table.open_round()  # from the shoe: allowed
    table.void("test")
    table.set_dealing("shuffler", actor="supervisor:sam", why="back")
    with pytest.raises(IllegalAction, match="Art. 11\\(4\\)"):
        table.open_round()  # the same failed shuffler: still out of service


def test_a_misdeal_is_not_a_shuffler_failure(profile):
    table, source, events = both(profile)
    source.feed([parse_dealt(c) for c in "KD KH 3C".split()])
    table.open_round()
    table.place_bet("1", "ante", 10)
    table.close_betting()
    table.start_dealing()
    table.misdeal()
    assert table.shuffler_out_of_service is None
    table.open_round()
