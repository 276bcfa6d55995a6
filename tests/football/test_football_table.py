"""The football table: the round machine, the draw display, the shoe, Art. 7 and 8."""

from __future__ import annotations

import random
from decimal import Decimal

import pytest

from drivers.events import DISPLAY_READBACK, DISPLAY_SEGMENT, CardRead, DrawShown, ShoeCount
from drivers.mock import MockFault, MockShoe, ScriptedCards, ShuffledShoe
from drivers.mock.display import DisplayFault, MockDisplay
from tablecore.cards import card, parse_dealt
from tablecore.errors import ConfigError, IllegalAction
from tablesim.games.football.draw import SecureDraw, SeededDraw
from tablesim.games.football.machine import STEPS, S
from tablesim.games.football.profile import FootballSettings
from tablesim.games.football.table import FootballTable
from tablesim.journal.recovery import recover
from tablesim.journal.journal import Journal

D = Decimal


# --- the round -------------------------------------------------------------------


def test_a_round_draw_first_then_bets_then_two_cards_left_to_right_common_last(rig):
    r = rig()
    r.open(6)  # upper 6 7 8 1, lower 2 3 4 5
    assert r.table.state is S.BETTING_OPEN
    states = [e["state"] for e in r.kinds("state")]
    assert states == ["drawing", "betting_open"]  # the draw is shown before anyone may bet
    # bets placed in any order; dealing goes left to right
    r.bet({7: {"lower": 10}, 2: {"upper": 12.5, "odd": 3}})
    r.table.close_betting()
    r.table.start_dealing()
    assert r.table.order == ["2", "7", "common"]
    r.deal("6H AD  2H AC  9D 9H")
    result = r.table.result
    assert result.status == "settled"
    assert result.outcome["boxes"] == {
        "2": {"cards": ["6H", "AD"], "total": 7},
        "7": {"cards": ["2H", "AC"], "total": 3},
        "common": {"cards": ["9D", "9H"], "total": 8},
    }
    assert result.results == {"2": {"upper": D("11.875"), "odd": D(3)}, "7": {"lower": D("9.5")}}
    assert result.net == {"2": D("14.875"), "7": D("9.5")}
    texts = [e["text"] for e in r.kinds("instruction")]
    assert texts[:4] == ["place your bets", "two cards to box 2", "two cards to box 7", "two cards to the common box"]
    assert r.table.state is S.COMPLETE
    assert [e["state"] for e in r.kinds("state")][-4:] == ["dealing", "third_cards", "settlement", "complete"]


def test_third_cards_left_to_right_common_last(rig):
    r = rig()
    result = r.round(1, {1: {"middle": 10}, 3: {"middle": 5}, 4: {"odd": 1}},
                     "KS QH  2C 3D  4H 5D  5C 5S  9C 3H AS 6D")
    # two-card totals: box 1 0, box 3 5, box 4 9, common 0 -> third cards to 1, 4, common
    assert r.table.thirds == ["1", "4", "common"]
    boxes = result.outcome["boxes"]
    assert boxes["1"]["cards"] == ["KS", "QH", "9C"] and boxes["1"]["total"] == 9
    assert boxes["3"]["cards"] == ["2C", "3D"]
    assert boxes["4"]["cards"] == ["4H", "5D", "3H"] and boxes["4"]["total"] == 2
    assert boxes["common"]["cards"] == ["5C", "5S", "AS"] and boxes["common"]["total"] == 1
    assert result.results == {"1": {"middle": D(80)}, "3": {"middle": D(-5)}, "4": {"odd": D(-1)}}
    assert r.cards.remaining() == 1  # 6D was never asked for
    assert [e["text"] for e in r.kinds("instruction")][-4:] == [
        "third card to box 1", "third card to box 4", "third card to the common box",
        "set the used cards aside (Art. 8(1))",
    ]


def test_the_common_box_is_dealt_without_bets(rig):
    r = rig()
    result = r.round(2, {5: {"even": 4}}, "2C 2D  KC 4S")
    assert "common" in result.outcome["boxes"] and "common" not in result.results
    assert result.outcome["boxes"]["common"] == {"cards": ["KC", "4S"], "total": 4}


def test_exposed_cards_stay_valid_art7(rig):
    r = rig()
    result = r.round(3, {1: {"odd": 10}, "common": {"middle": 1}}, "5S^ 8H  KC 9D  KH^")
    assert result.outcome["boxes"]["1"]["cards"] == ["5S^", "8H"]
    assert result.outcome["boxes"]["common"]["cards"] == ["KC", "9D", "KH^"]
    assert result.results == {"1": {"odd": D(10)}, "common": {"middle": D(8)}}
    assert len(r.kinds("exposed_card")) == 2


# --- refusals ----------------------------------------------------------------


def test_no_bet_before_the_draw_is_read_back(profile):
    display = MockDisplay()
    display.show = lambda *a, **k: None  # a display that never answers
    table = FootballTable(profile, FootballSettings(), display=display, shoe=MockShoe(ScriptedCards()),
                          draws=SeededDraw(random.Random(1)), mode="mock")
    table.open_round()
    assert table.state is S.DRAWING
    with pytest.raises(IllegalAction, match="betting is closed"):
        table.place_bet("1", "odd", 5)
    assert table.book.bets == {}
    assert table.await_draw() is False
    assert table.state is S.VOID and table.result.void_reason == "display_timeout"


def test_no_bet_after_betting_closed(rig):
    r = rig()
    r.open(1)
    r.bet({1: {"odd": 5}})
    r.table.close_betting()
    with pytest.raises(IllegalAction, match="betting is closed"):
        r.table.place_bet("2", "odd", 5)
    with pytest.raises(IllegalAction, match="betting is closed"):
        r.table.withdraw_bet("1", "odd")
    assert r.table.book.snapshot() == {"1": {"odd": "5"}}


def test_a_card_before_betting_closed_is_an_incident_not_a_card(rig):
    r = rig()
    r.open(1)
    r.bet({1: {"odd": 5}})
    r.table.handle(CardRead("x", 0, card("7H"), device="shoe"))
    assert r.table.state is S.BETTING_OPEN
    assert r.table.incident.card == "7H" and not r.table.incident.blocking
    r.table.close_betting()
    r.table.start_dealing()
    r.deal("2C 3C  4C 7C")
    result = r.table.result
    assert result.status == "settled"
    assert result.outcome["boxes"]["1"]["cards"] == ["2C", "3C"]
    assert result.outcome["set_aside"] == ["7H"]


def test_dealing_needs_betting_closed_and_a_bet(rig):
    r = rig()
    r.open(1)
    with pytest.raises(IllegalAction, match="dealing starts after betting closes"):
        r.table.start_dealing()
    with pytest.raises(IllegalAction, match="no bets on the table"):
        r.table.close_betting()
    assert r.table.state is S.BETTING_OPEN


def test_no_settlement_before_the_third_cards(rig):
    r = rig()
    r.open(1)
    r.bet({1: {"middle": 5}})
    with pytest.raises(IllegalAction, match="settlement comes after the third cards"):
        r.table.settle()
    r.table.close_betting()
    r.table.start_dealing()
    r.deal("KS QH")
    assert r.table.state is S.DEALING
    with pytest.raises(IllegalAction, match="settlement comes after the third cards"):
        r.table.settle()
    r.deal("5C 5S")  # box 1 and the common box both total 0: third cards due
    assert r.table.state is S.THIRD_CARDS
    with pytest.raises(IllegalAction, match="a third card is still due to box 1, the common box"):
        r.table.settle()
    assert r.table.result is None
    r.deal("9C AS")
    assert r.table.result.results == {"1": {"middle": D(40)}}


def test_other_refusals(rig):
    r = rig()
    r.open(1)
    with pytest.raises(IllegalAction, match="box '11' does not exist"):
        r.table.place_bet("11", "odd", 5)
    with pytest.raises(IllegalAction, match="unknown bet 'uper'"):
        r.table.place_bet("1", "uper", 5)
    with pytest.raises(IllegalAction, match="not finished"):
        r.table.open_round()
    r.bet({1: {"odd": 5}})
    r.table.close_betting()
    r.table.start_dealing()
    r.deal("2C 3C  4C 7C")
    with pytest.raises(IllegalAction, match="cannot be voided"):
        r.table.void("misdeal")
    assert r.table.result.status == "settled"


def test_the_machine_is_data():
    triggers = {s.trigger for s in STEPS}
    assert triggers == {"start_round", "draw_shown", "close_betting", "start_dealing", "third_cards",
                        "settle", "complete", "void"}
    void = next(s for s in STEPS if s.trigger == "void")
    assert set(void.sources) == {S.DRAWING, S.BETTING_OPEN, S.BETS_CLOSED, S.DEALING, S.THIRD_CARDS}
    assert FootballTable.diagram().startswith("stateDiagram-v2\n    [*] --> idle")


# --- the draw display ----------------------------------------------------------


def test_a_read_back_mismatch_halts_the_round(rig):
    r = rig()
    r.open(4, display_faults=[DisplayFault("readback_mismatch", 5)])
    assert r.table.state is S.VOID
    assert r.table.result.void_reason == "display_fault"
    assert r.table.draw is None  # the draw was never accepted
    fault = r.kinds("fault")[-1]
    assert fault["code"] == DISPLAY_READBACK and "reads back 5, the draw is 4" in fault["text"]
    assert not r.kinds("draw")
    with pytest.raises(IllegalAction):
        r.table.place_bet("1", "odd", 5)


def test_a_segment_fault_while_dealing_voids_and_returns_every_bet(rig):
    r = rig()
    r.open(2)
    r.bet({1: {"odd": 5}, 4: {"middle": 5}})
    r.table.close_betting()
    r.table.start_dealing()
    r.deal("2C 3C 4C")
    r.display.segment_fault()
    r.table.poll()
    assert r.table.state is S.VOID and r.table.result.void_reason == "display_fault"
    assert r.table.result.results == {}
    assert r.kinds("void")[-1]["returned"] == {"1": {"odd": "5"}, "4": {"middle": "5"}}
    assert r.kinds("fault")[-1]["code"] == DISPLAY_SEGMENT
    # the display stays faulted: no new round until it is repaired
    with pytest.raises(IllegalAction, match="draw display is faulted"):
        r.table.open_round()
    r.display.repair()
    r.table.poll()
    r.open(2)
    assert r.table.state is S.BETTING_OPEN


def test_a_read_back_of_another_draw_is_ignored(rig):
    r = rig()
    r.open(3)
    r.table.handle(DrawShown("T-000000-D", 5, device="display"))
    assert r.table.state is S.BETTING_OPEN and r.table.draw.index == 3
    assert r.table.incident.code == DISPLAY_READBACK


def test_a_seeded_draw_is_refused_on_a_live_table(profile):
    with pytest.raises(ConfigError, match="only in mock or script mode"):
        FootballTable(profile, FootballSettings(), display=MockDisplay(), shoe=MockShoe(ScriptedCards()),
                      draws=SeededDraw(random.Random(1)), mode="live")


def test_a_live_table_draws_from_secrets(profile, monkeypatch):
    import tablesim.games.football.draw as draw_module

    asked = []

    def randbelow(n):
        asked.append(n)
        return 6

    monkeypatch.setattr(draw_module.secrets, "randbelow", randbelow)
    table = FootballTable(profile, FootballSettings(), display=MockDisplay(), shoe=MockShoe(ScriptedCards()))
    events = []
    table.bus.subscribe(events.append)
    table.open_round()
    table.await_draw()
    assert asked == [8]
    made = next(e.data for e in events if e.kind == "draw_made")
    assert made["draw"] == 7 and made["source"] == "secrets" and made["seeded"] is False
    shown = next(e.data for e in events if e.kind == "draw")
    assert shown == {"draw": 7, "upper": [7, 8, 1, 2], "lower": [3, 4, 5, 6], "source": "secrets", "seeded": False}


def test_seeded_and_scripted_draws_are_marked(rig):
    r = rig()
    r.open(5)
    assert r.kinds("draw_made")[0]["seeded"] is True and r.kinds("draw_made")[0]["source"] == "script"
    assert r.kinds("draw")[0]["seeded"] is True


def test_the_secure_draw_takes_every_combination():
    seen = {SecureDraw().draw((1, 2, 3, 4, 5, 6, 7, 8)) for _ in range(500)}
    assert seen == set(range(1, 9))  # fails with probability about 8 * (7/8)**500


# --- the shoe: duplicates, counts, Art. 8 ------------------------------------------


def test_one_deck_the_same_card_twice_in_a_round_is_a_device_fault(rig):
    r = rig(1)
    result = r.round(1, {3: {"even": 10}}, "AS 7D  AS 4H")
    assert result.status == "void" and result.void_reason == "duplicate_card"
    assert "AS read 2 times in one round from 1 deck(s)" in r.kinds("fault")[-1]["text"]


@pytest.mark.parametrize("decks", [2, 3, 8])
def test_several_decks_allow_as_many_copies_as_decks(rig, decks):
    r = rig(decks)
    copies = " ".join(["AS"] * decks)
    # boxes 1..(decks//2+1) and the common box: the first `decks` cards are all AS
    boxes = {b: {"odd": 1} for b in range(1, decks // 2 + 2)}
    pairs = 2 * (len(boxes) + 1)
    filler = " ".join(["2C", "3C", "2D", "3D", "2H", "3H", "2S", "3S", "4C", "5C", "4D", "5D"][: pairs - decks])
    result = r.round(1, boxes, f"{copies} {filler}")
    assert result.status == "settled"
    r2 = rig(decks)
    result = r2.round(1, boxes, f"{copies} AS {filler}")
    assert result.status == "void" and result.void_reason == "duplicate_card"


def test_a_shoe_count_that_disagrees_with_the_cards_received_voids(rig):
    r = rig(2)
    r.open(1)
    r.bet({1: {"odd": 1}})
    r.table.close_betting()
    r.table.start_dealing()
    r.deal("2C")
    r.table.handle(ShoeCount(r.table.pack.pack_id, 3, 100, device="shoe"))
    assert r.table.result.void_reason == "shoe_count_mismatch"


def test_a_card_reported_twice_by_the_reader_is_caught_by_the_count(rig):
    r = rig(2)  # two copies are legal, so only the count can tell
    r.open(1)
    r.bet({b: {"odd": 1} for b in range(1, 7)})
    r.table.close_betting()
    r.shoe.faults = [MockFault("duplicate", after=5)]
    r.table.start_dealing()
    r.deal("2C 3C 2D 3D 2H 3H 2S 3S 4C 5C 4D 5D 6C 6D 7D")
    assert r.table.result.void_reason == "shoe_count_mismatch"


def test_one_deck_is_replaced_when_used_up_art8_1(profile):
    source = ShuffledShoe(random.Random(7), 1, reshuffle_each_load=True)
    shoe = MockShoe(source)
    table = FootballTable(profile, FootballSettings(decks=1), display=MockDisplay(), shoe=shoe,
                          draws=SeededDraw(random.Random(7)), mode="mock")
    loads = []
    table.bus.subscribe(lambda e: loads.append(e.data) if e.kind == "pack_loaded" else None)
    for _ in range(40):
        table.open_round()
        table.await_draw()
        for b in range(1, 11):
            table.place_bet(str(b), "odd", 1)
        table.close_betting()
        table.start_dealing()
        table.pump((S.DEALING, S.THIRD_CARDS))
        assert table.result.status == "settled"  # never a duplicate: no round spans two decks
        assert table.pack.taken <= 52
    assert len(loads) > 10 and loads[1]["reason"] == "deck used up (Art. 8(1))"


def test_several_decks_are_one_pack_in_a_continuous_shuffler_art8_2(profile):
    source = ShuffledShoe(random.Random(3), 6, reshuffle_each_load=False)
    table = FootballTable(profile, FootballSettings(decks=6), display=MockDisplay(), shoe=MockShoe(source),
                          draws=SeededDraw(random.Random(3)), mode="mock")
    events = []
    table.bus.subscribe(events.append)
    for _ in range(60):
        table.open_round()
        table.await_draw()
        table.place_bet("1", "even", 1)
        table.close_betting()
        table.start_dealing()
        table.pump((S.DEALING, S.THIRD_CARDS))
        assert table.result.status == "settled"
        source.return_cards(table.round_cards)  # the dealer puts them into the shuffler
        assert source.remaining() == 6 * 52
    assert sum(e.kind == "pack_loaded" for e in events) == 1
    assert any(e.data.get("text") == "put the used cards into the shuffler (Art. 8(2))" for e in events
               if e.kind == "instruction")


# --- journal and recovery ----------------------------------------------------------


def _journaled_table(profile, path, seed=5):
    table = FootballTable(profile, FootballSettings(), display=MockDisplay(),
                          shoe=MockShoe(ScriptedCards()), draws=SeededDraw(random.Random(seed)),
                          mode="mock", table_id="J")
    table.attach_journal(Journal(path))
    return table


def test_a_round_interrupted_while_dealing_is_rebuilt_from_the_journal(profile, tmp_path):
    path = tmp_path / "j.sqlite"
    table = _journaled_table(profile, path)
    table.open_round()
    table.await_draw()
    drawn = table.draw.index
    table.place_bet("3", "odd", 5)
    table.close_betting()
    table.start_dealing()
    table.shoe.source.feed(parse_dealt(c) for c in ("2C", "3C", "KD"))
    table.pump((S.DEALING,))
    # power loss; a new process with a differently seeded draw source recovers
    again = _journaled_table(profile, path, seed=99)
    report = recover(again, again.journal)
    assert report.action == "resume" and again.state is S.DEALING
    assert again.draw.index == drawn  # restored from the journaled read-back, not drawn again
    assert [d.code for d in again.cards["3"]] == ["2C", "3C"] and [d.code for d in again.cards["common"]] == ["KD"]
    assert again.display.showing == (again.draw_id, drawn)  # shown again, read back again
    confirmed = []
    again.bus.subscribe(lambda e: confirmed.append(e.data) if e.kind == "draw_confirmed" else None)
    again.poll()
    assert confirmed == [{"draw": drawn}] and again.state is S.DEALING
    again.shoe.source.feed([parse_dealt("4C")])
    again.pump((S.DEALING, S.THIRD_CARDS))
    assert again.result.status == "settled" and again.result.outcome["boxes"]["common"]["cards"] == ["KD", "4C"]


def test_a_round_interrupted_before_the_read_back_is_void(profile, tmp_path):
    path = tmp_path / "j.sqlite"
    table = _journaled_table(profile, path)
    table.display.show = lambda *a, **k: None  # the power fails before the display answers
    table.open_round()
    again = _journaled_table(profile, path)
    report = recover(again, again.journal)
    assert report.action == "void" and again.result.void_reason == "interrupted"
