"""Bad input never loses anything.

Bets, decisions and withdrawals that the rules or the table refuse, broken
rule profiles and invalid scripts: each gets a clear refusal (IllegalAction,
InputError, ConfigError, or exit status 2 with one line), and the journal
(its record count and last hash) and the bets in play are exactly as before.
"""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from drivers.mock.wheel import Spin
from tablecore.errors import ConfigError, IllegalAction, InputError
from tablesim.games.football.machine import S as FS
from tablesim.games.football.profile import load_profile as load_fb
from tablesim.games.fortune3.machine import S as F3S
from tablesim.games.fortune3.profile import load_profile as load_f3
from tablesim.profiles import config_root
from tablesim.games.wheel.profile import load_profile as load_wheel

F3_BETS = {"1": {"ante": 10, "pair_plus": 5}, "3": {"ante": 20}, "5": {"pair_plus": 10}}
F3_SHOE = "AS 9D 2C KS  AH TD 2D QC  7C JD 2H 4H".split()
REFUSED = (IllegalAction, InputError)

BAD_AMOUNTS = {
    "negative": -5,
    "negative text": "-5",
    "zero": 0,
    "zero text": "0.00",
    "non-numeric": "ten",
    "empty text": "",
    "none": None,
    "boolean": True,
    "list": [5],
    "float nan": float("nan"),
    "text nan": "NaN",
    "decimal nan": Decimal("NaN"),
    "signalling nan": Decimal("sNaN"),
    "float infinity": float("inf"),
    "minus infinity": float("-inf"),
    "text infinity": "Infinity",
    "over the table limit": 10001,
    "under the table minimum": "0.5",
}


def state_of(rig, jhead):
    t = rig.table
    return {
        "journal": jhead(rig.path),
        "writer": (t.journal.seq, t.journal.last_hash),
        "bets": t.book.snapshot(),
        "state": t.state,
        "round": t.round_id,
        "decisions": dict(getattr(t, "decisions", {})),
    }


def assert_refused_and_unchanged(rig, jhead, action, errors=REFUSED):
    before = state_of(rig, jhead)
    with pytest.raises(errors) as info:
        action(rig.table)
    message = str(info.value)
    assert message and "\n" not in message
    assert state_of(rig, jhead) == before
    return message


# --- fortune3: bets, decisions, withdrawals ---------------------------------------------


@pytest.fixture
def f3_betting(f3, tmp_path):
    rig = f3(tmp_path / "f3.sqlite", cards=F3_SHOE)
    rig.table.open_round()
    rig.bet(F3_BETS)
    return rig


F3_BAD_BETS = {
    **{f"amount {name}": ("2", "ante", value) for name, value in BAD_AMOUNTS.items()},
    "over the limit with the bet already there": ("1", "ante", 9991),
    "box that does not exist": ("8", "ante", 5),
    "box 0": ("0", "ante", 5),
    "box spelled 01": ("01", "ante", 5),
    "the dealer's box": ("dealer", "ante", 5),
    "empty box": ("", "ante", 5),
    "unknown bet name": ("2", "play", 5),
    "bet name in capitals": ("2", "Ante", 5),
}


@pytest.mark.parametrize("case", list(F3_BAD_BETS))
def test_fortune3_bad_bet_is_refused_and_changes_nothing(case, f3_betting, jhead):
    box, bet, amount = F3_BAD_BETS[case]
    assert_refused_and_unchanged(f3_betting, jhead, lambda t: t.place_bet(box, bet, amount))


@pytest.mark.parametrize("state", ["bets_closed", "dealing", "decisions"])
def test_fortune3_bets_and_withdrawals_after_betting_closed_are_refused(state, f3_betting, jhead):
    t = f3_betting.table
    t.close_betting()
    if state != "bets_closed":
        t.start_dealing()
        f3_betting.step(3 if state == "dealing" else 12)
    assert t.state.value == state
    assert "closed" in assert_refused_and_unchanged(f3_betting, jhead, lambda t: t.place_bet("2", "ante", 5))
    assert "closed" in assert_refused_and_unchanged(f3_betting, jhead, lambda t: t.withdraw_bet("1", "ante"))


@pytest.mark.parametrize("box, bet", [("3", "pair_plus"), ("9", "ante"), ("2", "ante"), ("1", "play")])
def test_fortune3_withdrawing_a_bet_that_is_not_there_is_refused(box, bet, f3_betting, jhead):
    assert_refused_and_unchanged(f3_betting, jhead, lambda t: t.withdraw_bet(box, bet))


F3_BAD_DECISIONS = {
    "unknown box": ("9", "play"),
    "box with no bet": ("2", "play"),
    "box without Ante": ("5", "play"),
    "the dealer": ("dealer", "play"),
    "unknown decision": ("1", "raise"),
    "decision in capitals": ("1", "PLAY"),
    "twice": ("3", "play"),
}


@pytest.mark.parametrize("case", list(F3_BAD_DECISIONS))
def test_fortune3_bad_decision_is_refused_and_changes_nothing(case, f3_betting, jhead):
    t = f3_betting.table
    t.close_betting()
    t.start_dealing()
    t.pump((F3S.DEALING,))
    t.decide("3", "fold")
    box, decision = F3_BAD_DECISIONS[case]
    assert_refused_and_unchanged(f3_betting, jhead, lambda t: t.decide(box, decision))
    assert t.state is F3S.DECISIONS and t.pending_decisions() == ["1"]


@pytest.mark.parametrize("state", ["betting_open", "bets_closed", "dealing"])
def test_fortune3_decision_before_the_deal_is_done_is_refused(state, f3_betting, jhead):
    t = f3_betting.table
    if state != "betting_open":
        t.close_betting()
    if state == "dealing":
        t.start_dealing()
        f3_betting.step(11)
    assert t.state.value == state
    assert_refused_and_unchanged(f3_betting, jhead, lambda t: t.decide("1", "play"))


# (after a decision a stray is no longer refused: it waits for a supervisor, Art. 11(3),
# tests/fortune3/test_f3_strays.py)
@pytest.mark.parametrize("state", ["betting_open", "bets_closed", "dealing, declared twice"])
def test_fortune3_stray_outside_the_deal_is_refused(state, f3_betting, jhead):
    t = f3_betting.table
    if state != "betting_open":
        t.close_betting()
    if state.startswith("dealing"):
        t.start_dealing()
        f3_betting.step(2)
        t.stray()
    if state.startswith("decisions"):
        t.start_dealing()
        f3_betting.step(12)
        t.decide(t.pending_decisions()[0], "play")  # the last card may be stray only before anyone decides
    assert_refused_and_unchanged(f3_betting, jhead, lambda t: t.stray())


# --- football and wheel bets ---------------------------------------------------------------


@pytest.fixture
def fb_betting(fb, tmp_path):
    rig = fb(tmp_path / "fb.sqlite", cards="4S 5H KS 7D 6C")
    rig.open(3)
    rig.bet({"1": {"upper": 10}, "common": {"odd": 5}})
    return rig


FB_BAD_BETS = {
    **{f"amount {name}": ("2", "odd", value) for name, value in BAD_AMOUNTS.items()},
    "box 11": ("11", "odd", 5),
    "box 0": ("0", "odd", 5),
    "box Common": ("Common", "odd", 5),
    "unknown bet": ("2", "ante", 5),
}


@pytest.mark.parametrize("case", list(FB_BAD_BETS))
def test_football_bad_bet_is_refused_and_changes_nothing(case, fb_betting, jhead):
    box, bet, amount = FB_BAD_BETS[case]
    assert_refused_and_unchanged(fb_betting, jhead, lambda t: t.place_bet(box, bet, amount))


def test_football_bets_before_the_draw_and_after_close_are_refused(fb, tmp_path, jhead):
    rig = fb(tmp_path / "fb.sqlite", cards="4S 5H KS 7D 6C")
    rig.draws.next = 3
    rig.table.open_round()
    assert rig.table.state is FS.DRAWING
    assert_refused_and_unchanged(rig, jhead, lambda t: t.place_bet("1", "odd", 5))
    rig.table.await_draw()
    rig.bet({"1": {"odd": 5}})
    rig.table.close_betting()
    assert_refused_and_unchanged(rig, jhead, lambda t: t.place_bet("1", "odd", 5))
    assert_refused_and_unchanged(rig, jhead, lambda t: t.withdraw_bet("1", "odd"))
    assert_refused_and_unchanged(rig, jhead, lambda t: t.settle())


@pytest.fixture
def wheel_betting(wheel, tmp_path):
    rig = wheel(tmp_path / "w.sqlite", spins=[Spin(3, 4.1)])
    rig.table.open_round()
    rig.bet([("alice", "5", 10), ("bob", "joker", 2)])
    return rig


WHEEL_BAD = {
    **{f"amount {name}": (lambda v: lambda t: t.place_bet("carol", "1", v))(value) for name, value in BAD_AMOUNTS.items()},
    "unknown spot": lambda t: t.place_bet("carol", "7", 5),
    "spot in capitals": lambda t: t.place_bet("carol", "JOKER", 5),
    "blank player": lambda t: t.place_bet("  ", "5", 5),
    "change a bet that is not there": lambda t: t.change_bet("carol", "5", 5),
    "change to zero": lambda t: t.change_bet("alice", "5", 0),
    "change to nan": lambda t: t.change_bet("alice", "5", "NaN"),
    "change to infinity": lambda t: t.change_bet("alice", "5", float("inf")),
    "change over the limit": lambda t: t.change_bet("alice", "5", 10001),
    "change on an unknown spot": lambda t: t.change_bet("alice", "6", 5),
    "withdraw a bet that is not there": lambda t: t.withdraw_bet("alice", "1"),
    "no spin while betting": lambda t: t.declare_no_spin(),
}


@pytest.mark.parametrize("case", list(WHEEL_BAD))
def test_wheel_bad_input_is_refused_and_changes_nothing(case, wheel_betting, jhead):
    assert_refused_and_unchanged(wheel_betting, jhead, WHEEL_BAD[case])


def test_wheel_bets_after_no_more_bets_are_refused(wheel_betting, jhead):
    wheel_betting.table.close_betting()
    for action in (lambda t: t.place_bet("carol", "1", 5), lambda t: t.change_bet("alice", "5", 1),
                   lambda t: t.withdraw_bet("alice", "5"), lambda t: t.close_betting()):
        assert_refused_and_unchanged(wheel_betting, jhead, action)


# --- rule profiles ---------------------------------------------------------------------------

RULES = config_root() / "rules"


def variant(tmp_path, game, old, new, name="bad.toml"):
    text = (RULES / {"fortune3": "fortune3-macau-2008.toml", "football": "football-macau-2003.toml",
                     "wheel": "wheel-macau-2003.toml"}[game]).read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path = tmp_path / name
    path.write_text(text.replace(old, new), encoding="utf-8")
    return path


WHEEL_LAYOUT_END = '"3", "logo",\n]'
BAD_PROFILES = {
    "fortune3 missing ranking": ("fortune3", 'ranking = ["straight_flush", "three_of_a_kind", "straight", "flush", "pair", "high_card"]\n', "", "ranking"),
    "fortune3 pay as text": ("fortune3", "pair = 1\n", 'pair = "one"\n', "pair"),
    "fortune3 boxes as text": ("fortune3", "boxes = 7\n", 'boxes = "seven"\n', "boxes"),
    "football missing middle pay": ("football", "middle = 8\n", "", "pays.middle"),
    "football middle as text": ("football", "middle = [0, 9]", 'middle = "0 and 9"', "middle"),
    "football boxes as a float": ("football", "boxes = 10\n", "boxes = 10.5\n", "boxes"),
    "wheel missing min_turns": ("wheel", "min_turns = 3\n", "", "min_turns"),
    "wheel min_turns as text": ("wheel", "min_turns = 3\n", 'min_turns = "three"\n', "min_turns"),
    "wheel layout of 51 segments": ("wheel", WHEEL_LAYOUT_END, '"3",\n]', "51 segment"),
    "wheel pays as a list": ("wheel", "[symbols.logo]\nsegments = 1\npays = 45", "[symbols.logo]\nsegments = 1\npays = [45]", "pays"),
}
LOADERS = {"fortune3": load_f3, "football": load_fb, "wheel": load_wheel}


@pytest.mark.parametrize("case", list(BAD_PROFILES))
def test_a_broken_rule_profile_is_a_config_error_naming_the_key(case, tmp_path):
    game, old, new, says = BAD_PROFILES[case]
    path = variant(tmp_path, game, old, new)
    with pytest.raises(ConfigError) as info:
        LOADERS[game](str(path))
    assert says in str(info.value) and str(path) in str(info.value)


@pytest.mark.parametrize("case", ["fortune3 pay as text", "football middle as text", "wheel layout of 51 segments"])
def test_tablesim_run_with_a_broken_profile_exits_2_and_leaves_the_journal_alone(case, tmp_path, run_cli, jhead):
    game, old, new, says = BAD_PROFILES[case]
    journal = tmp_path / "j.sqlite"
    assert run_cli("run", "--game", game, "--mock", "--rounds", "1", "--seed", "1", "--quiet",
                   "--journal", journal).code == 0
    before = jhead(journal)
    res = run_cli("run", "--game", game, "--mock", "--rounds", "1", "--seed", "1", "--quiet",
                  "--profile", variant(tmp_path, game, old, new), "--journal", journal)
    assert res.code == 2 and len(res.err_lines) == 1 and says in res.err, res.err
    assert jhead(journal) == before


def test_tablesim_run_on_a_file_that_is_not_a_journal_exits_2_and_leaves_it_alone(tmp_path, run_cli):
    garbage = tmp_path / "notes.txt"
    garbage.write_text("shift notes, not a journal\n" * 50)
    res = run_cli("run", "--game", "wheel", "--mock", "--rounds", "1", "--journal", garbage)
    assert res.code == 2 and len(res.err_lines) == 1, res.err
    assert garbage.read_text() == "shift notes, not a journal\n" * 50


# --- scripts ---------------------------------------------------------------------------------

LAYOUT_51 = json.loads("[" + (RULES / "wheel-macau-2003.toml").read_text().split("layout = [", 1)[1].split("]", 1)[0]
                       .replace("\n", " ").rstrip().rstrip(",") + "]")[:51]
BAD_SCRIPTS = {
    "unknown game": {"game": "roulette", "rounds": [{}]},
    "bad card code": {"game": "fortune3", "rounds": [{"bets": {"1": {"ante": 5}}, "cards": ["AS", "1X"]}]},
    "nan bet": {"game": "fortune3", "rounds": [{"bets": {"1": {"ante": "NaN"}}, "cards": F3_SHOE[:6]}]},
    "fold without ante": {"game": "fortune3", "rounds": [{"bets": {"1": {"pair_plus": 5}}, "decisions": {"1": "fold"},
                                                            "cards": F3_SHOE[:6]}]},
    "too few cards": {"game": "fortune3", "rounds": [{"bets": {"1": {"ante": 5}}, "cards": F3_SHOE[:4]}]},
    "football draw 9": {"game": "football", "rounds": [{"draw": 9, "bets": {"1": {"odd": 5}},
                                                          "cards": ["4S", "5H", "KS", "7D", "6C"]}]},
    "wheel segment 52": {"game": "wheel", "rounds": [{"bets": [{"player": "a", "spot": "5", "amount": 1}],
                                                       "spins": [{"segment": 52, "turns": 4}]}]},
    "wheel table layout of 51": {"game": "wheel", "table": {"layout": LAYOUT_51},
                                 "rounds": [{"bets": [{"player": "a", "spot": "5", "amount": 1}],
                                             "spins": [{"segment": 3, "turns": 4}]}]},
    "no rounds": {"game": "wheel", "rounds": []},
}


@pytest.mark.parametrize("case", list(BAD_SCRIPTS))
def test_an_invalid_script_exits_2_with_one_line_and_writes_no_journal(case, tmp_path, run_cli):
    assert len(LAYOUT_51) == 51
    path = tmp_path / "bad.yaml"
    path.write_text(json.dumps(BAD_SCRIPTS[case]), encoding="utf-8")
    res = run_cli("script", "run", path, "--json")
    assert res.code == 2, (res.out, res.err)
    assert len(res.err_lines) == 1 and str(path) in res.err and res.out == ""
    assert not (tmp_path / "xdg").exists()


def test_tablesim_run_with_a_directory_as_journal_exits_2(tmp_path, run_cli):
    res = run_cli("run", "--game", "wheel", "--mock", "--rounds", "1", "--journal", tmp_path)
    assert res.code == 2 and len(res.err_lines) == 1, res.err


@pytest.mark.parametrize("where", ["/proc/tablesim-test.sqlite", "/proc/no/such/dir/j.sqlite"])
def test_a_journal_path_where_nothing_can_be_written_is_one_line(where, run_cli):
    """A journal in a place the table cannot write (its lock file, its
    folder): one line naming the path, exit 2, never a traceback."""
    res = run_cli("run", "--game", "fortune3", "--mock", "--rounds", "1", "--journal", where)
    assert res.code == 2, (res.out, res.err)
    lines = res.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tablesim: error: ") and where in lines[0], res.err
    assert "Traceback" not in res.err
