"""Recovery after a power loss.

For each game and each state a round can stop in: drive a journaled table to
that state with the game's own API, drop it without closing anything, build a
fresh table on the same journal file, ``attach_and_recover`` it, and check
that the round came back exactly (state, bets, cards / draw / spins), that
the journal says what was done and why (an ``operator``/``recovery`` record),
that the operator sees it (a console line), and that finishing the round
settles every bet exactly once, with the result an uninterrupted round gives.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from drivers.events import DISPLAY_SEGMENT, MISREAD
from drivers.mock import MockFault
from drivers.mock.display import DisplayFault
from drivers.mock.wheel import Spin, WheelFault
from tablecore.cards import parse_dealt
from tablecore.errors import IllegalAction, InputError
from tablesim.games.football.machine import S as FS
from tablesim.games.fortune3.machine import S as F3S
from tablesim.journal.invariants import check
from tablesim.journal.journal import Journal
from tablesim.games.wheel.machine import S as WS

# --- helpers -------------------------------------------------------------------------


def recovery_records(rows, path):
    return [r for r in rows(path) if r["kind"] == "operator" and r["name"] == "recovery"]


def assert_recovery(rig, rows, *, action: str, state: str, why_has: str = ""):
    """The report, the journal's recovery record and the console line agree."""
    report = rig.report
    assert report is not None, "the unfinished round was not recovered"
    assert (report.action, report.state) == (action, state)
    assert report.why and why_has in report.why
    recs = recovery_records(rows, rig.path)
    assert len(recs) == 1
    rec = recs[0]
    assert rec["actor"] == "recovery" and rec["round_id"] == report.round_id
    assert rec["data"]["action"] == action and rec["data"]["state"] == state and rec["data"]["why"] == report.why
    text = rig.console_text
    assert f"journal: {rig.path}" in text
    verb = "resumed" if action == "resume" else "voided (every bet returned)"
    assert f"recovered round {report.round_id}: {verb} at {state}: {report.why}" in text


def assert_settled_once(path, round_results, round_id):
    journal = Journal(path)
    try:
        assert check(journal, allow_open_last=False) == []
    finally:
        journal.close()
    assert len(round_results(path, round_id)) == 1


def dec(book):
    return {p: {b: Decimal(a) for b, a in per.items()} for p, per in book.items()}


# --- Fortune 3 Card Poker, shoe ---------------------------------------------------------

F3_BETS = {"1": {"ante": 10, "pair_plus": 5}, "3": {"ante": 20}, "5": {"pair_plus": 10}}
# Box 1 AS AH 7C (pair), box 3 9D TD JD (straight flush), box 5 2C 2D 2H (trips), dealer KS QC 4H.
F3_SHOE = "AS 9D 2C KS  AH TD 2D QC  7C JD 2H 4H".split()
# The dealer's first card comes out face up: set aside, the next card takes its place (Art. 11(2)).
F3_SHOE_EXPOSED = "AS 9D 2C 5S^ KS  AH TD 2D QC  7C JD 2H 4H".split()
F3_DECISIONS = {"1": "play", "3": "fold"}


def f3_betting(rig):
    rig.table.open_round()
    rig.bet(F3_BETS)
    rig.table.place_bet("7", "ante", 5)
    rig.table.withdraw_bet("7", "ante")  # withdrawn: must stay withdrawn
    return 0


def f3_closed(rig):
    f3_betting(rig)
    rig.table.close_betting()
    return 0


def f3_dealing(n):
    def stop(rig):
        f3_closed(rig)
        rig.table.start_dealing()
        rig.step(n)
        assert rig.table.state is F3S.DEALING
        return n

    return stop


def f3_decisions(decided: int):
    def stop(rig):
        f3_closed(rig)
        rig.table.start_dealing()
        rig.table.pump((F3S.DEALING,))
        assert rig.table.state is F3S.DECISIONS
        for box in list(F3_DECISIONS)[:decided]:
            rig.table.decide(box, F3_DECISIONS[box])
        assert rig.table.state is F3S.DECISIONS
        return len(F3_SHOE)

    return stop


F3_SHOE_STOPS = {
    "betting_open": (F3_SHOE, f3_betting),
    "bets_closed": (F3_SHOE, f3_closed),
    "dealing, no card yet": (F3_SHOE, f3_dealing(0)),
    "dealing, six cards out": (F3_SHOE, f3_dealing(6)),
    "dealing, exposed dealer card set aside": (F3_SHOE_EXPOSED, f3_dealing(5)),
    "decisions, none taken": (F3_SHOE, f3_decisions(0)),
    "decisions, one taken": (F3_SHOE, f3_decisions(1)),
}


def f3_reference(f3, tmp_path, cards, dealing="shoe"):
    ref = f3(tmp_path / f"ref-{dealing}.sqlite", cards=cards, dealing=dealing)
    ref.table.open_round()
    ref.bet(F3_BETS)
    ref.finish(F3_DECISIONS)
    assert ref.table.state is F3S.COMPLETE
    return ref.table.result.as_json()


@pytest.mark.parametrize("stop", list(F3_SHOE_STOPS))
def test_fortune3_shoe_round_resumes_where_it_stopped(stop, f3, tmp_path, jrows, round_results):
    cards, drive = F3_SHOE_STOPS[stop]
    expected = f3_reference(f3, tmp_path, cards)
    path = tmp_path / "f3.sqlite"
    rig = f3(path, cards=cards)
    used = drive(rig)
    before = rig.snapshot()
    rig = None  # power loss: nothing closed, nothing flushed by hand

    again = f3(path, cards=cards[used:])
    assert_recovery(again, jrows, action="resume", state=before["state"])
    assert again.snapshot() == before
    assert "7" not in again.table.book.bets
    again.finish(F3_DECISIONS)
    assert again.table.state is F3S.COMPLETE
    assert again.table.result.as_json() == expected
    assert again.table.result.bets == dec(before["bets"])
    assert_settled_once(path, round_results, before["round_id"])


# The 5th card (8S) lands on a box with no bet; the dealer declares it stray
# (Art. 11(3)): void, set aside, and box 1 is still due its second card (AH).
F3_SHOE_STRAY = "AS 9D 2C KS 8S AH TD 2D QC  7C JD 2H 4H".split()


def f3_stray_reference(f3, tmp_path):
    ref = f3(tmp_path / "ref-stray.sqlite", cards=F3_SHOE_STRAY)
    f3_closed(ref)
    ref.table.start_dealing()
    ref.step(5)
    ref.table.stray()
    ref.finish(F3_DECISIONS)
    assert ref.table.state is F3S.COMPLETE and ref.table.result.outcome["set_aside"] == ["8S"]
    return ref.table.result.as_json()


@pytest.mark.parametrize("declared", [True, False], ids=["declared-before-the-crash", "declared-after-the-restart"])
def test_fortune3_stray_card_is_recovered_either_side_of_the_crash(declared, f3, tmp_path, jrows, round_results):
    expected = f3_stray_reference(f3, tmp_path)
    path = tmp_path / "f3.sqlite"
    rig = f3(path, cards=F3_SHOE_STRAY)
    f3_closed(rig)
    rig.table.start_dealing()
    rig.step(5)
    if declared:
        rig.table.stray()
        assert [d.code for d in rig.table.set_aside] == ["8S"]
    before = rig.snapshot()
    rig = None

    again = f3(path, cards=F3_SHOE_STRAY[5:])
    assert_recovery(again, jrows, action="resume", state="dealing")
    assert again.snapshot() == before
    if not declared:
        again.table.stray()  # the latest card is known after the restart too
    again.finish(F3_DECISIONS)
    assert again.table.result.as_json() == expected
    assert_settled_once(path, round_results, before["round_id"])


def test_fortune3_blocking_misread_survives_a_restart_and_is_resolved_after_it(f3, tmp_path, jrows, round_results):
    """The 6th card (TD, to box 3) leaves the shoe unread: a blocking incident.
    The power goes; after the restart the incident is still open, dealer
    actions are still refused, and confirming TD goes on as if it was read."""
    expected = f3_reference(f3, tmp_path, F3_SHOE)
    path = tmp_path / "f3.sqlite"
    rig = f3(path, cards=F3_SHOE, faults=[MockFault("misread", 5)])
    f3_closed(rig)
    rig.table.start_dealing()
    rig.table.pump((F3S.DEALING,))
    assert rig.table.incident is not None and rig.table.incident.blocking
    before = rig.snapshot()
    rig = None

    again = f3(path, cards=F3_SHOE[6:])
    assert_recovery(again, jrows, action="resume", state="dealing")
    assert again.snapshot() == before
    assert again.table.incident.code == MISREAD and again.table.incident.blocking
    # the fault was never cleared: reported after the restart
    assert f"shoe:{MISREAD}" in again.report.active_faults
    assert f"active fault shoe:{MISREAD}" in again.console_text
    with pytest.raises(IllegalAction):
        again.table.misdeal()
    again.table.resolve_incident("confirm", actor="supervisor", why="camera shows TD", card="TD")
    again.finish(F3_DECISIONS)
    assert again.table.result.as_json() == expected
    assert_settled_once(path, round_results, before["round_id"])


def test_fortune3_card_drawn_while_disarmed_at_no_more_bets_survives_a_restart(f3, tmp_path, jrows):
    """A card drawn while the shoe is disarmed is reported when the dealer
    closes betting (close_betting polls the shoe). It is set aside and flagged;
    a restart must bring back exactly that: the replay must not lose it."""
    stray = parse_dealt("8H").card
    path = tmp_path / "f3.sqlite"
    rig = f3(path, cards=F3_SHOE, faults=[MockFault("drawn_while_disarmed", 0, stray)])
    f3_closed(rig)
    assert [d.code for d in rig.table.set_aside] == ["8H^"]
    before = rig.snapshot()
    rig = None

    again = f3(path, cards=F3_SHOE)
    assert again.report is not None and again.report.state == "bets_closed"
    assert again.snapshot() == before


# --- Fortune 3 Card Poker, automatic shuffler --------------------------------------------

F3_SHUFFLER = "AS AH 7C  9D TD JD  2C 2D 2H  KS QC 4H".split()


def f3s_dealing(hands):
    def stop(rig):
        f3_closed(rig)
        rig.table.start_dealing()
        rig.step(hands)
        assert rig.table.state is F3S.DEALING
        return 3 * hands

    return stop


def f3s_closed(rig):
    f3_closed(rig)
    assert rig.table.state is F3S.BETS_CLOSED
    return 0


def f3s_decisions(rig):
    f3_closed(rig)
    rig.table.start_dealing()
    rig.table.pump((F3S.DEALING,))
    assert rig.table.state is F3S.DECISIONS
    rig.table.decide("1", "play")
    return 12


@pytest.mark.parametrize("stop", ["betting_open", "bets_closed", "decisions"])
def test_fortune3_shuffler_round_resumes_outside_the_deal(stop, f3, tmp_path, jrows, round_results):
    drive = {"betting_open": f3_betting, "bets_closed": f3s_closed, "decisions": f3s_decisions}[stop]
    expected = f3_reference(f3, tmp_path, F3_SHUFFLER, dealing="shuffler")
    path = tmp_path / "f3s.sqlite"
    rig = f3(path, cards=F3_SHUFFLER, dealing="shuffler")
    used = drive(rig)
    before = rig.snapshot()
    rig = None

    again = f3(path, cards=F3_SHUFFLER[used:], dealing="shuffler")
    assert_recovery(again, jrows, action="resume", state=before["state"])
    assert again.snapshot() == before
    again.finish(F3_DECISIONS)
    assert again.table.result.as_json() == expected
    assert_settled_once(path, round_results, before["round_id"])


@pytest.mark.parametrize("hands", [0, 2])
def test_fortune3_shuffler_interrupted_mid_deal_is_voided_art_11_4(hands, f3, tmp_path, jrows, round_results):
    path = tmp_path / "f3s.sqlite"
    rig = f3(path, cards=F3_SHUFFLER, dealing="shuffler")
    used = f3s_dealing(hands)(rig)
    before = rig.snapshot()
    rig = None

    again = f3(path, cards=F3_SHUFFLER[used:], dealing="shuffler")
    assert_recovery(again, jrows, action="void", state="dealing", why_has="Art. 11(4)")
    t = again.table
    # the round was rebuilt exactly before it was voided
    after = again.snapshot()
    for key in ("round_id", "bets", "cards", "seen", "order", "decisions"):
        assert after[key] == before[key], key
    assert t.state is F3S.VOID
    assert t.result.status == "void" and t.result.void_reason == "interrupted"
    assert t.result.bets == dec(before["bets"])
    records = jrows(path, before["round_id"])
    voids = [r for r in records if r["kind"] == "event" and r["name"] == "void"]
    assert len(voids) == 1 and voids[0]["data"]["returned"] == before["bets"]
    void_inputs = [r for r in records if r["kind"] == "input" and r["name"] == "void"]
    assert len(void_inputs) == 1 and void_inputs[0]["actor"] == "recovery"
    assert "Art. 11(4)" in void_inputs[0]["data"]["kwargs"]["why"]
    assert_settled_once(path, round_results, before["round_id"])
    # the table goes on with a new round, never reusing the id
    t.open_round()
    assert t.round_id == "F3J-000002"


# --- football card game ----------------------------------------------------------------

FB_BETS = {"1": {"upper": 10, "odd": 5}, "4": {"middle": 2}, "common": {"lower": 10}}
# box 1 4S 5H (9: third card 6C), box 4 2C 3D (5), common KS 7D (7)
FB_CARDS = "4S 5H 2C 3D KS 7D 6C".split()
FB_DRAW = 3


def fb_betting(rig):
    rig.open(FB_DRAW)
    rig.bet(FB_BETS)
    rig.table.place_bet("9", "odd", 5)
    rig.table.withdraw_bet("9", "odd")
    return 0


def fb_closed(rig):
    fb_betting(rig)
    rig.table.close_betting()
    rig.table.poll()
    return 0


def fb_dealing(n, state):
    def stop(rig):
        fb_closed(rig)
        rig.table.start_dealing()
        rig.step(n)
        assert rig.table.state is state
        return n

    return stop


FB_STOPS = {
    "betting_open": fb_betting,
    "bets_closed": fb_closed,
    "dealing, no card yet": fb_dealing(0, FS.DEALING),
    "dealing, three cards out": fb_dealing(3, FS.DEALING),
    "third_cards": fb_dealing(6, FS.THIRD_CARDS),
}


def fb_reference(fb, tmp_path, decks):
    ref = fb(tmp_path / "ref.sqlite", cards=FB_CARDS, decks=decks)
    ref.open(FB_DRAW)
    ref.bet(FB_BETS)
    ref.finish()
    assert ref.table.state is FS.COMPLETE
    return ref.table.result.as_json()


@pytest.mark.parametrize("decks", [1, 6])
@pytest.mark.parametrize("stop", list(FB_STOPS))
def test_football_round_resumes_where_it_stopped(stop, decks, fb, tmp_path, jrows, round_results):
    expected = fb_reference(fb, tmp_path, decks)
    path = tmp_path / "fb.sqlite"
    rig = fb(path, cards=FB_CARDS, decks=decks)
    used = FB_STOPS[stop](rig)
    before = rig.snapshot()
    rig = None

    again = fb(path, cards=FB_CARDS[used:], decks=decks)
    assert_recovery(again, jrows, action="resume", state=before["state"])
    assert again.snapshot() == before
    assert again.table.draw.index == FB_DRAW  # the accepted draw, not a new one
    assert "9" not in again.table.book.bets
    # the accepted draw is shown again and its read-back checked
    assert again.display.showing == (before["draw_id"], FB_DRAW)
    again.finish()
    assert again.table.state is FS.COMPLETE
    assert again.table.result.as_json() == expected
    assert_settled_once(path, round_results, before["round_id"])


def test_football_interrupted_before_the_draw_read_back_is_voided(fb, tmp_path, jrows, round_results):
    path = tmp_path / "fb.sqlite"
    rig = fb(path, cards=FB_CARDS)
    rig.draws.next = FB_DRAW
    rig.table.open_round()  # the draw is sent to the display; its read-back never comes
    assert rig.table.state is FS.DRAWING
    rid = rig.table.round_id
    rig = None

    again = fb(path, cards=FB_CARDS)
    assert_recovery(again, jrows, action="void", state="drawing", why_has="read")
    t = again.table
    assert t.state is FS.VOID and t.result.void_reason == "interrupted" and t.result.bets == {}
    assert t.draw is None
    assert_settled_once(path, round_results, rid)
    # the next round makes a fresh draw
    again.open(5)
    assert t.state is FS.BETTING_OPEN and t.draw.index == 5 and t.round_id.endswith("000002")


# --- Wheel of Fortune -----------------------------------------------------------------

W_BETS = [("alice", "5", 10), ("bob", "joker", 2), ("carol", "1", 5)]
SHORT, GOOD = Spin(17, 2.4), Spin(3, 4.1)  # segment 3 is a "5"


def w_betting(rig):
    rig.table.open_round()
    rig.bet(W_BETS)
    rig.table.change_bet("bob", "joker", 3)
    rig.table.place_bet("dave", "logo", 1)
    rig.table.withdraw_bet("dave", "logo")
    return 0


def w_closed(rig):
    w_betting(rig)
    rig.table.close_betting()
    return 0


def w_after_no_spin(rig):
    w_closed(rig)
    rig.step(4)  # start, 2 revolutions, a 2.4-turn result: no spin
    assert rig.table.state is WS.BETS_CLOSED and rig.table.no_spins == 1
    return 1


WHEEL_STOPS = {"betting_open": w_betting, "bets_closed": w_closed, "bets_closed after a no-spin": w_after_no_spin}


def wheel_reference(wheel, tmp_path):
    ref = wheel(tmp_path / "ref.sqlite", spins=[SHORT, GOOD])
    w_betting(ref)
    ref.finish()
    assert ref.table.state is WS.COMPLETE
    return ref.table.result.as_json()


@pytest.mark.parametrize("stop", list(WHEEL_STOPS))
def test_wheel_round_resumes_where_it_stopped(stop, wheel, tmp_path, jrows, round_results):
    expected = wheel_reference(wheel, tmp_path)
    path = tmp_path / "w.sqlite"
    rig = wheel(path, spins=[SHORT, GOOD])
    used = WHEEL_STOPS[stop](rig)
    before = rig.snapshot()
    rig = None

    again = wheel(path, spins=[SHORT, GOOD][used:])
    assert_recovery(again, jrows, action="resume", state=before["state"])
    assert again.snapshot() == before
    assert again.sensor.armed == (before["state"] == "bets_closed")
    again.finish()
    assert again.table.result.as_json() == expected
    assert_settled_once(path, round_results, before["round_id"])


@pytest.mark.parametrize("earlier_no_spins", [0, 1])
def test_wheel_power_loss_mid_spin_calls_no_spin_and_spins_again(earlier_no_spins, wheel, tmp_path, jrows, round_results):
    path = tmp_path / "w.sqlite"
    rig = wheel(path, spins=[SHORT, Spin(40, 6.0)])
    w_closed(rig)
    if earlier_no_spins:
        rig.step(4)
    rig.step(2)  # the spin starts, one full turn ... and the power goes
    assert rig.table.state is WS.SPINNING
    before = rig.snapshot()
    rig = None

    again = wheel(path, spins=[GOOD])
    assert_recovery(again, jrows, action="resume", state="spinning", why_has="no-spin")
    t = again.table
    after = again.snapshot()
    assert t.state is WS.BETS_CLOSED and again.sensor.armed
    assert after["bets"] == before["bets"]
    assert after["no_spins"] == before["no_spins"] + 1
    assert after["spins"] == before["spins"] + [
        {"segment": None, "turns": 1.0, "direction": None, "counts": False, "reason": "power_loss"}
    ]
    # the no-spin is a journaled dealer action of the recovery
    inputs = [r for r in jrows(path) if r["kind"] == "input"]
    assert inputs[-1]["name"] == "declare_no_spin" and inputs[-1]["data"]["args"] == ["power_loss"]
    again.finish()
    assert t.result.outcome == {"segment": 3, "symbol": "5", "no_spins": earlier_no_spins + 1}
    assert t.result.results == {
        "alice": {"5": Decimal(50)}, "bob": {"joker": Decimal(-3)}, "carol": {"1": Decimal(-5)}
    }
    assert_settled_once(path, round_results, before["round_id"])


def test_wheel_motion_while_idle_reported_at_no_more_bets_survives_a_restart(wheel, tmp_path):
    """The sensor reports a spin made while it was idle; close_betting polls it
    and records an incident (never a result). After a restart the recovered
    round must hold the same incidents, and settle with the same outcome."""
    idle = WheelFault("motion_while_idle", segment=10)
    ref = wheel(tmp_path / "ref.sqlite", spins=[GOOD], faults=[idle])
    w_closed(ref)
    ref.finish()
    expected = ref.table.result.as_json()
    assert expected["outcome"]["incidents"]

    path = tmp_path / "w.sqlite"
    rig = wheel(path, spins=[GOOD], faults=[idle])
    w_closed(rig)
    before = rig.snapshot()
    assert before["incidents"]
    rig = None

    again = wheel(path, spins=[GOOD])
    assert again.snapshot() == before
    again.finish()
    assert again.table.result.as_json() == expected


# --- restarts that find nothing to recover; faults; pause -----------------------------------


def test_restart_after_a_finished_round_recovers_nothing_and_goes_on_numbering(f3, tmp_path, jrows):
    path = tmp_path / "f3.sqlite"
    rig = f3(path, cards=F3_SHOE)
    rig.table.open_round()
    rig.bet(F3_BETS)
    rig.finish(F3_DECISIONS)
    count = len(jrows(path))
    rig = None

    again = f3(path, cards=F3_SHOE)
    assert again.report is None
    assert len(jrows(path)) == count  # a restart writes nothing when nothing is unfinished
    assert "recovered" not in again.console_text
    assert again.table.open_round() == "F3J-000002"


def test_a_round_interrupted_twice_is_still_settled_once(f3, tmp_path, jrows, round_results):
    path = tmp_path / "f3.sqlite"
    expected = f3_reference(f3, tmp_path, F3_SHOE)
    rig = f3(path, cards=F3_SHOE)
    f3_dealing(3)(rig)
    rig = f3(path, cards=F3_SHOE[3:])
    rig.step(5)
    rid = rig.table.round_id
    rig = f3(path, cards=F3_SHOE[8:])
    assert [r["data"]["state"] for r in recovery_records(jrows, path)] == ["dealing", "dealing"]
    rig.finish(F3_DECISIONS)
    assert rig.table.result.as_json() == expected
    assert_settled_once(path, round_results, rid)


def test_uncleared_faults_of_earlier_rounds_are_reported_cleared_ones_are_not(fb, tmp_path):
    """Round 1: the shoe misreads while dealing (void, never cleared); round 2:
    the display fails (void), then it is repaired (cleared); round 3 stops
    while betting. After the restart only the shoe's fault is reported."""
    path = tmp_path / "fb.sqlite"
    rig = fb(path, cards=FB_CARDS + FB_CARDS)
    rig.open(FB_DRAW)
    rig.bet(FB_BETS)
    rig.shoe.faults = [MockFault("misread", 1)]
    rig.finish()
    assert rig.table.result.void_reason == "misread"
    rig.display.inject(DisplayFault("segment_fault"))
    rig.open(FB_DRAW)
    assert rig.table.result.void_reason == "display_fault"
    rig.display.repair()
    rig.table.poll()
    rig.open(FB_DRAW)
    rig.bet(FB_BETS)
    rig = None

    again = fb(path, cards=FB_CARDS)
    assert again.report is not None and again.report.action == "resume"
    assert set(again.report.active_faults) == {f"shoe:{MISREAD}"}
    assert f"active fault shoe:{MISREAD}" in again.console_text
    assert f"active fault display:{DISPLAY_SEGMENT}" not in again.console_text


def test_a_fault_never_cleared_is_reported_after_a_restart_even_when_its_round_ended(fb, tmp_path):
    """The display fails while dealing: the round is voided (it ended). It is
    never repaired. The table restarts: the operator must be told about the
    active fault, although there is no unfinished round to recover."""
    path = tmp_path / "fb.sqlite"
    rig = fb(path, cards=FB_CARDS)
    rig.open(FB_DRAW)
    rig.bet(FB_BETS)
    rig.table.close_betting()
    rig.table.start_dealing()
    rig.step(2)
    rig.display.segment_fault()
    rig.table.pump((FS.DEALING, FS.THIRD_CARDS))
    assert rig.table.result.void_reason == "display_fault"
    rig = None

    again = fb(path, cards=FB_CARDS)
    assert f"active fault display:{DISPLAY_SEGMENT}" in again.console_text


def test_a_pause_taken_during_a_round_survives_a_restart(f3, tmp_path, jhead):
    path = tmp_path / "f3.sqlite"
    rig = f3(path, cards=F3_SHOE)
    f3_closed(rig)
    rig.table.pause(actor="pit boss", why="dispute at box 3")
    rig = None

    again = f3(path, cards=F3_SHOE)
    assert again.table.paused
    before = jhead(path)
    with pytest.raises(IllegalAction, match="paused"):
        again.table.start_dealing()
    assert jhead(path) == before
    again.table.resume(actor="pit boss", why="settled")
    again.finish(F3_DECISIONS)
    assert again.table.state is F3S.COMPLETE


def test_a_pause_taken_between_rounds_survives_a_restart(f3, tmp_path, jhead):
    """The operator pauses the table after a round; the power goes. The table
    must come back paused: a dealer must not be able to open a round."""
    path = tmp_path / "f3.sqlite"
    rig = f3(path, cards=F3_SHOE)
    rig.table.open_round()
    rig.bet(F3_BETS)
    rig.finish(F3_DECISIONS)
    rig.table.pause(actor="surveillance", why="review of round 1")
    rig = None

    again = f3(path, cards=F3_SHOE)
    assert again.table.paused
    with pytest.raises(IllegalAction, match="paused"):
        again.table.open_round()


def test_wheel_paused_while_spinning_restarts(wheel, tmp_path):
    """A pause while the wheel spins, then a power loss: the restart must not
    fail (recovery calls the spin off with a journaled no-spin)."""
    path = tmp_path / "w.sqlite"
    rig = wheel(path, spins=[GOOD])
    w_closed(rig)
    rig.step(2)
    rig.table.pause(actor="pit boss", why="player complaint")
    rig = None

    again = wheel(path, spins=[GOOD])  # must not raise
    assert again.report is not None and again.report.state == "spinning"
    assert again.table.paused
    again.table.resume(actor="pit boss", why="resolved")
    again.finish()
    assert again.table.state is WS.COMPLETE


@pytest.mark.parametrize("decks", [1, 6])
def test_football_round_with_a_shoe_count_before_the_crash_is_recovered(decks, fb, tmp_path, jrows, round_results):
    """The shoe reports its card count every 13 cards of the pack (``ShoeCount``:
    cards dealt since the pack was loaded, across rounds). The count arrives
    in the second round of the pack and matches; then the power goes. The
    restart must bring the round back (resume while dealing), not lose it:
    replaying only this round's cards must not turn that count into a
    mismatch that voids the round without a word in the journal."""
    first = "4S 5H 2C 3D 8C 8D 9S 9H KS".split()  # boxes 1, 4, 7, common; box 1 takes a third card
    second = "2H 3H QD 9D 4D".split()  # box 2, common; the common box (9) takes a third card
    path = tmp_path / "fb.sqlite"
    rig = fb(path, cards=first + second, decks=decks)
    rig.open(3)
    rig.bet({"1": {"upper": 10}, "4": {"odd": 5}, "7": {"even": 5}})
    rig.finish()
    assert rig.table.state is FS.COMPLETE and rig.shoe.dealt == 9
    rig.open(4)
    rig.bet({"2": {"lower": 10}})
    rig.table.close_betting()
    rig.table.start_dealing()
    rig.step(4)  # two cards to box 2 and to the common box: the 13th card of the pack ...
    rig.step(1)  # ... and the shoe's count of 13, which matches
    assert [e["dealt"] for e in rig.kinds("shoe_count")] == [13]
    assert rig.table.state is FS.THIRD_CARDS and rig.table.result is None
    before = rig.snapshot()
    rig = None

    again = fb(path, cards=second[4:], decks=decks)
    assert again.report is not None, "the unfinished round was dropped without a recovery record"
    assert again.report.action == "resume" and again.report.state == "third_cards"
    assert again.snapshot()["bets"] == before["bets"]
    assert again.snapshot()["cards"] == before["cards"]
    again.finish()
    assert again.table.state is FS.COMPLETE
    assert_settled_once(path, round_results, before["round_id"])


def test_a_table_never_takes_over_another_tables_unfinished_round(f3, wheel, tmp_path, jhead):
    """Two tables pointed at one journal file (``--journal PATH``): a table
    starting on it must not replay, resume or void a round of another table.
    It may refuse the journal with a clear error, or start idle."""
    path = tmp_path / "shared.sqlite"
    rig = f3(path, cards=F3_SHOE, table_id="F3-A")
    rig.table.open_round()
    rig.bet(F3_BETS)
    before = jhead(path)
    for build in (lambda: f3(path, table_id="F3-B"), lambda: wheel(path, table_id="WHEEL-C")):
        try:
            other = build()
        except InputError:
            assert jhead(path) == before
            continue
        assert other.report is None
        assert other.table.state.value == "idle" and other.table.book.bets == {}
        assert jhead(path) == before


def test_a_pause_taken_before_the_first_round_survives_a_restart(wheel, tmp_path):
    path = tmp_path / "w.sqlite"
    rig = wheel(path)
    rig.table.pause(actor="technician", why="wheel being levelled")
    rig = None
    again = wheel(path)
    assert again.table.paused
    with pytest.raises(IllegalAction, match="paused"):
        again.table.open_round()
    again.table.resume(actor="technician", why="done")
    again.table.open_round()
