"""Dealing (Art. 7) and irregularities (Art. 11) on mock shoe and shuffler."""

from __future__ import annotations

import random
from decimal import Decimal as D

import pytest

from drivers.events import CardRead, FaultRaised, HandDispensed
from drivers.mock import MockFault, MockShoe, ShuffledShoe
from tablecore.cards import DECK, DealtCard, card
from tablecore.errors import IllegalAction
from tablesim.games.fortune3.machine import S
from tablesim.games.fortune3.profile import Fortune3Settings
from tablesim.games.fortune3.table import Fortune3Table

TWELVE = "AS 2H 3D 4C 5S 6H 7D 8C 9S TH JD QC".split()


def dealt_codes(table):
    return {who: [d.code for d in cs] for who, cs in table.cards.items()}


def all_dealt(table):
    return [d.card for cs in table.cards.values() for d in cs]


# --- Art. 7: order -------------------------------------------------------------


def test_shoe_deals_round_robin_to_boxes_with_bets_dealer_last_three_passes(rig):
    r = rig("shoe", TWELVE)
    r.table.open_round()
    r.bet({7: {"ante": 10}, 2: {"pair_plus": 5}, 5: {"ante": 10, "pair_plus": 5}})  # placed out of order
    r.deal()
    assert r.table.order == ["2", "5", "7", "dealer"]
    assert dealt_codes(r.table) == {
        "2": ["AS", "5S", "9S"],
        "5": ["2H", "6H", "TH"],
        "7": ["3D", "7D", "JD"],
        "dealer": ["4C", "8C", "QC"],
    }
    assert [e["to"] for e in r.kinds("card")] == ["2", "5", "7", "dealer"] * 3
    texts = [e["text"] for e in r.kinds("instruction") if "card" in e["text"]]
    assert texts[:4] == ["card 1 to box 2", "card 1 to box 5", "card 1 to box 7", "card 1 to the dealer"]
    assert texts[-1] == "card 3 to the dealer"
    assert r.source.remaining() == 0
    assert not r.device.armed  # disarmed once every hand is dealt


def test_shuffler_deals_a_hand_per_box_dealer_last(rig):
    r = rig("shuffler", TWELVE)
    r.table.open_round()
    r.bet({7: {"ante": 10}, 2: {"pair_plus": 5}, 5: {"ante": 10}})
    r.deal()
    assert dealt_codes(r.table) == {
        "2": ["AS", "2H", "3D"],
        "5": ["4C", "5S", "6H"],
        "7": ["7D", "8C", "9S"],
        "dealer": ["TH", "JD", "QC"],
    }
    texts = [e["text"] for e in r.kinds("instruction") if e["text"].startswith("hand")]
    assert texts == ["hand 1 to box 2", "hand 2 to box 5", "hand 3 to box 7", "hand 4 to the dealer"]
    assert r.device.hands == 4


@pytest.mark.parametrize("dealing", ["shoe", "shuffler"])
def test_only_boxes_with_bets_are_dealt(rig, dealing):
    r = rig(dealing, TWELVE[:6])
    r.table.open_round()
    r.bet({4: {"ante": 10}})
    r.deal()
    r.finish()
    assert set(r.table.cards) == {"4", "dealer"}
    assert set(r.table.result.results) == {"4"}
    assert set(r.table.result.outcome["boxes"]) == {"4"}


@pytest.mark.parametrize("dealing", ["shoe", "shuffler"])
def test_withdrawn_box_is_not_dealt(rig, dealing):
    r = rig(dealing, TWELVE[:6])
    r.table.open_round()
    r.bet({1: {"ante": 10}, 3: {"pair_plus": 5}})
    r.table.withdraw_bet("1", "ante")
    r.deal()
    assert set(r.table.cards) == {"3", "dealer"}


@pytest.mark.parametrize("dealing", ["shoe", "shuffler"])
def test_all_seven_boxes(rig, dealing):
    r = rig(dealing)
    r.source.feed(DealtCard(c) for c in DECK[:24])
    r.table.open_round()
    r.bet({b: {"ante": 10} for b in range(1, 8)})
    r.deal()
    assert r.table.state is S.DECISIONS
    assert r.table.order == ["1", "2", "3", "4", "5", "6", "7", "dealer"]
    assert all(len(cs) == 3 for cs in r.table.cards.values())
    assert len(set(all_dealt(r.table))) == 24


@pytest.mark.parametrize("dealing", ["shoe", "shuffler"])
def test_each_round_from_a_full_freshly_shuffled_deck(dealing):
    """Art. 3: every round is dealt from a full, freshly shuffled deck."""
    from drivers.mock import MockShuffler
    from tablesim.games.fortune3.profile import load_profile

    source = ShuffledShoe(random.Random(7), 1, reshuffle_each_load=True)
    settings = Fortune3Settings(dealing=dealing)
    kw = {"shoe": MockShoe(source)} if dealing == "shoe" else {"shuffler": MockShuffler(source)}
    t = Fortune3Table(load_profile(), settings, **kw)
    seen_orders = []
    for _ in range(3):
        t.open_round()
        assert source.remaining() == 52
        seen_orders.append(list(source._pack))
        t.place_bet("1", "pair_plus", 5)
        t.close_betting()
        t.start_dealing()
        t.pump((S.DEALING,))
        assert t.state is S.COMPLETE
        assert source.remaining() == 46
    assert seen_orders[0] != seen_orders[1] != seen_orders[2]


# --- Art. 11(2): exposed cards -------------------------------------------------------


@pytest.mark.parametrize("dealing", ["shoe", "shuffler"])
def test_exposed_player_card_stays_in_the_hand(rig, dealing):
    cards = "AS^ KS 2C AD QS 7H 5C JS^ 9D" if dealing == "shoe" else "AS^ AD 5C KS QS JS^ 2C 7H 9D"
    r = rig(dealing, cards)
    r.table.open_round()
    r.bet({1: {"ante": 10}, 2: {"ante": 10}})
    r.deal()
    assert dealt_codes(r.table)["1"] == ["AS^", "AD", "5C"]
    assert dealt_codes(r.table)["2"] == ["KS", "QS", "JS^"]
    assert r.table.set_aside == []
    assert r.table.hands["1"].category == "pair"
    assert r.table.hands["2"].category == "straight_flush"


@pytest.mark.parametrize(
    "cards, dealer, aside",
    [
        ("KD QC^ 4S KH 6D 3C 8H", ["4S", "6D", "8H"], ["QC^"]),  # first pass
        ("KD 4S KH QC^ 6D 3C 8H", ["4S", "6D", "8H"], ["QC^"]),  # second pass
        ("KD 4S KH 6D 3C QC^ 8H", ["4S", "6D", "8H"], ["QC^"]),  # third pass
        ("KD 4S KH 6D 3C QC^ AH^ 8H", ["4S", "6D", "8H"], ["QC^", "AH^"]),  # twice in a row
    ],
)
def test_shoe_exposed_dealer_card_is_set_aside_and_replaced(rig, cards, dealer, aside):
    r = rig("shoe", cards)
    r.table.open_round()
    r.bet({1: {"ante": 10}})
    r.deal()
    r.finish()
    assert dealt_codes(r.table) == {"1": ["KD", "KH", "3C"], "dealer": dealer}
    assert [d.code for d in r.table.set_aside] == aside
    assert [e["card"] for e in r.kinds("card_set_aside")] == aside
    # the dealer's 8-high does not qualify (with the QC it would have)
    assert r.table.result.outcome["dealer"]["qualifies"] is False
    assert r.table.result.outcome["set_aside"] == aside
    assert r.table.result.results["1"] == {"ante": D(10), "play": D(0), "ante_bonus": D(0)}


@pytest.mark.parametrize(
    "cards, dealer, aside",
    [
        ("KD KH 3C QC^ 4S 6D 8H", ["4S", "6D", "8H"], ["QC^"]),
        ("KD KH 3C 4S QC^ 6D 8H", ["4S", "6D", "8H"], ["QC^"]),
        ("KD KH 3C 4S 6D QC^ 8H", ["4S", "6D", "8H"], ["QC^"]),
        ("KD KH 3C 4S QC^ 6D AH^ 8H", ["4S", "6D", "8H"], ["QC^", "AH^"]),  # the replacement comes up too
        ("KD KH 3C QC^ AH^ 4S 6D 8H", ["4S", "6D", "8H"], ["QC^", "AH^"]),
    ],
)
def test_shuffler_exposed_dealer_card_is_set_aside_and_replaced(rig, cards, dealer, aside):
    r = rig("shuffler", cards)
    r.table.open_round()
    r.bet({1: {"ante": 10}})
    r.deal()
    r.finish()
    assert r.table.state is S.COMPLETE
    assert dealt_codes(r.table)["1"] == ["KD", "KH", "3C"]
    assert sorted(dealt_codes(r.table)["dealer"]) == sorted(dealer)
    assert [d.code for d in r.table.set_aside] == aside
    assert r.table.result.outcome["dealer"]["qualifies"] is False
    assert r.source.remaining() == 0


def test_set_aside_dealer_card_read_again_is_a_duplicate(rig):
    r = rig("shoe", "KD QC^ 4S KH QC")
    r.table.open_round()
    r.bet({1: {"ante": 10}})
    r.deal()
    assert r.table.state is S.VOID and r.table.result.void_reason == "duplicate_card"
    assert card("QC") not in all_dealt(r.table)


# --- Art. 11(1), 11(4) and device faults: the round is void ----------------------------


def assert_void(r, reason, placed):
    t = r.table
    assert t.state is S.VOID
    assert t.result.status == "void" and t.result.void_reason == reason
    assert t.result.bets == placed and t.result.results == {}


@pytest.mark.parametrize("dealing", ["shoe", "shuffler"])
@pytest.mark.parametrize("when", ["dealing", "decisions"])
def test_misdeal_voids(rig, dealing, when):
    r = rig(dealing, TWELVE[:6])
    r.table.open_round()
    r.bet({1: {"ante": 10, "pair_plus": 5}})
    r.table.close_betting()
    r.table.start_dealing()
    if when == "decisions":
        r.table.pump((S.DEALING,))
        assert r.table.state is S.DECISIONS
    else:
        r.table.handle(r.device.next_event(0))
    # A card is out: the dealer's call waits for a supervisor (Art. 11(1)).
    assert r.table.misdeal() is None
    assert r.table.incident.code == r.table.MISDEAL_INCIDENT and r.table.incident.blocking
    r.table.resolve_incident("confirm", actor="supervisor:sam", why="cards out of order")
    assert_void(r, "misdeal", {"1": {"ante": D(10), "pair_plus": D(5)}})


@pytest.mark.parametrize("after", [0, 1, 2])
def test_shuffler_jam_while_dealing_voids(rig, after):
    r = rig("shuffler", TWELVE[:9], faults=[MockFault("jam", after)])
    r.table.open_round()
    r.bet({1: {"ante": 10}, 2: {"pair_plus": 5}})
    r.deal()
    assert_void(r, "shuffler_fault", {"1": {"ante": D(10)}, "2": {"pair_plus": D(5)}})
    assert sum(len(cs) for cs in r.table.cards.values()) == 3 * after
    assert any(e["code"] == 310 for e in r.kinds("fault"))
    assert r.table.pump((S.DEALING,)) and r.table.state is S.VOID


def test_shuffler_count_mismatch_voids_before_any_card(rig):
    r = rig("shuffler", TWELVE[:6], faults=[MockFault("count_mismatch")])
    r.table.open_round()
    r.bet({1: {"ante": 10}})
    r.table.close_betting()
    assert_void(r, "shuffler_fault", {"1": {"ante": D(10)}})
    assert r.source.remaining() == 6


def _misread(rig):
    """A card that left the shoe unread: a blocking incident; nothing else may happen."""
    r = rig("shoe", TWELVE[:6], faults=[MockFault("misread", 2)])
    r.table.open_round()
    r.bet({1: {"ante": 10}})
    r.deal()
    assert r.table.state is S.DEALING
    assert r.table.incident is not None and r.table.incident.blocking and r.table.incident.code == 201
    assert r.table.pump((S.DEALING,)) is False  # the incident holds the round
    assert dealt_codes(r.table) == {"1": ["AS"], "dealer": ["2H"]}  # the misread third card is in no hand
    before = r.snapshot()
    for action, args in ((r.table.misdeal, ()), (r.table.decide, ("1", "play"))):
        with pytest.raises(IllegalAction):
            action(*args)
        assert r.snapshot() == before
    return r


def test_shoe_misread_holds_the_round_until_resolved(rig):
    _misread(rig)


def test_shoe_misread_rejected_voids(rig):
    r = _misread(rig)
    r.table.resolve_incident("reject", actor="supervisor", why="cannot tell the card")
    assert_void(r, "misread", {"1": {"ante": D(10)}})
    assert dealt_codes(r.table) == {"1": ["AS"], "dealer": ["2H"]}
    assert not r.device.armed


def test_shoe_misread_confirmed_card_is_dealt(rig):
    r = _misread(rig)
    with pytest.raises(IllegalAction):
        r.table.resolve_incident("confirm", actor="supervisor", why="no card named")
    r.table.resolve_incident("confirm", actor="supervisor", why="read by eye", card="3D")
    assert r.table.incident is None
    r.table.pump((S.DEALING,))
    r.finish()
    assert r.table.state is S.COMPLETE
    assert dealt_codes(r.table) == {"1": ["AS", "3D", "5S"], "dealer": ["2H", "4C", "6H"]}


def test_shuffler_misread_voids(rig):
    r = rig("shuffler", TWELVE[:6], faults=[MockFault("misread", 1)])
    r.table.open_round()
    r.bet({1: {"ante": 10}})
    r.deal()
    assert r.table.state is S.VOID and r.table.result.status == "void"
    assert r.table.result.void_reason in ("shuffler_fault", "misread")
    assert dealt_codes(r.table)["dealer"] == []


@pytest.mark.parametrize("dealing", ["shoe", "shuffler"])
def test_duplicate_card_from_the_device_voids(rig, dealing):
    r = rig(dealing, TWELVE[:9], faults=[MockFault("duplicate", 1 if dealing == "shuffler" else 3)])
    r.table.open_round()
    r.bet({1: {"ante": 10}, 2: {"ante": 10}})
    r.deal()
    assert_void(r, "duplicate_card", {"1": {"ante": D(10)}, "2": {"ante": D(10)}})
    dealt = all_dealt(r.table)
    assert len(dealt) == len(set(dealt))  # the card read twice is never in a hand twice
    assert any(e["code"] == 201 for e in r.kinds("fault"))


@pytest.mark.parametrize("dealing", ["shoe", "shuffler"])
def test_same_card_twice_in_the_deck_voids_and_is_never_in_a_hand(rig, dealing):
    cards = "AS 2H AS 4C 5S 6H" if dealing == "shoe" else "AS 2H 3D AS 5S 6H"
    r = rig(dealing, cards)
    r.table.open_round()
    r.bet({1: {"ante": 10}})
    r.deal()
    assert_void(r, "duplicate_card", {"1": {"ante": D(10)}})
    assert [c.code for c in all_dealt(r.table)].count("AS") == 1


def test_duplicate_within_one_shuffler_hand(rig):
    r = rig("shuffler", "AS 2H AS 4C 5S 6H")
    r.table.open_round()
    r.bet({1: {"ante": 10}})
    r.deal()
    assert_void(r, "duplicate_card", {"1": {"ante": D(10)}})
    assert all_dealt(r.table) == []


def test_card_drawn_while_disarmed_during_betting_is_flagged_never_dealt(rig):
    r = rig("shoe", "7C 2D 7D 3D 7S 4D", faults=[MockFault("drawn_while_disarmed", 0, card("7H"))])
    r.table.open_round()
    r.bet({1: {"ante": 10}})
    before_bets = r.table.book.snapshot()
    assert r.table.poll() == 1  # the shoe reports the draw while betting is still open
    assert r.table.state is S.BETTING_OPEN
    assert r.table.book.snapshot() == before_bets
    assert r.table.incidents == [{"code": 204, "card": "7H"}]
    assert [d.code for d in r.table.set_aside] == ["7H^"]
    assert any(e["code"] == 204 for e in r.kinds("fault"))
    r.deal()
    assert r.table.state is S.DECISIONS
    assert card("7H") not in all_dealt(r.table)
    assert dealt_codes(r.table) == {"1": ["7C", "7D", "7S"], "dealer": ["2D", "3D", "4D"]}


def test_card_drawn_while_disarmed_is_noticed_when_betting_closes(rig):
    r = rig("shoe", "AH 5C KD 5D QD 5S JD", faults=[MockFault("drawn_while_disarmed")])
    r.table.open_round()
    r.bet({1: {"ante": 10}})
    r.deal()
    assert r.table.incidents == [{"code": 204, "card": "AH"}]
    assert card("AH") not in all_dealt(r.table)
    assert dealt_codes(r.table)["1"] == ["5C", "5D", "5S"]


def test_card_drawn_while_disarmed_then_dealt_again_voids(rig):
    r = rig("shoe", "7C 7H", faults=[MockFault("drawn_while_disarmed", 0, card("7H"))])
    r.table.open_round()
    r.bet({1: {"ante": 10}})
    r.deal()
    assert_void(r, "duplicate_card", {"1": {"ante": D(10)}})
    assert card("7H") not in all_dealt(r.table)


def test_a_late_report_of_a_card_from_the_earlier_deck_is_flagged_not_counted_in_this_one(rig):
    """The reader reported a card drawn while disarmed before this round's deck
    was loaded, and the table handles the report only now: the card came out
    of the earlier deck, so the same card dealt from this deck is no duplicate."""
    r = rig("shoe", "7H 2D 7D 3D 7S 4D")
    r.table.open_round()
    r.bet({1: {"ante": 10}})
    r.table.handle(FaultRaised(204, "W", "card drawn while the shoe was disarmed", card("7H"), "F3-earlier-deck",
                               device="shoe"))
    assert r.table.incidents == [{"code": 204, "card": "7H"}]
    assert r.table.set_aside == []
    r.deal()
    assert r.table.state is S.DECISIONS
    assert dealt_codes(r.table) == {"1": ["7H", "7D", "7S"], "dealer": ["2D", "3D", "4D"]}


@pytest.mark.parametrize("state", ["betting_open", "bets_closed", "decisions"])
def test_card_read_outside_dealing_is_an_incident_never_a_hand_card(rig, state):
    r = rig("shoe", TWELVE[:6])
    r.table.open_round()
    r.bet({1: {"ante": 10}})
    if state != "betting_open":
        r.table.close_betting()
    if state == "decisions":
        r.table.start_dealing()
        r.table.pump((S.DEALING,))
    cards_before = dealt_codes(r.table)
    r.table.handle(CardRead(r.table.round_id, 99, card("KC"), False, device="shoe"))
    assert r.table.state.value == state
    assert dealt_codes(r.table) == cards_before
    assert card("KC") not in all_dealt(r.table)
    assert r.kinds("incident")[-1]["card"] == "KC"


def test_hand_dispensed_outside_dealing_is_ignored(rig):
    r = rig("shuffler", TWELVE[:6])
    r.table.open_round()
    r.bet({1: {"ante": 10}})
    r.table.handle(HandDispensed(1, (card("KC"), card("KD"), card("KH")), (False, False, False), device="shuffler"))
    assert r.table.state is S.BETTING_OPEN and r.table.cards == {}
    assert r.kinds("incident")


def test_stalled_shoe_is_reported_by_pump(rig):
    r = rig("shoe", TWELVE[:4])  # one box needs six cards
    r.table.open_round()
    r.bet({1: {"ante": 10}})
    r.table.close_betting()
    r.table.start_dealing()
    assert r.table.pump((S.DEALING,)) is False
    assert r.table.state is S.DEALING
