"""``tablesim history``: recall of past rounds from the
journal. ``--json`` gives one object per round in the scripted-round result
format (game, status, void_reason, outcome, results, net) plus round_id, bets
and events; a settled round's JSON equals what ``tablesim script run --json``
gives for the same cards."""

from __future__ import annotations

import json

import pytest

from drivers.events import DRAWN_WHILE_DISARMED, MISREAD
from drivers.mock import MockFault
from drivers.mock.wheel import Spin
from tablecore.cards import parse_dealt
from tablesim.games.fortune3.machine import S as F3S

RESULT_KEYS = ("game", "status", "void_reason", "outcome", "results", "net")

F3_BETS = {"1": {"ante": 10, "pair_plus": 5}, "3": {"ante": 20}, "5": {"pair_plus": 10}}
F3_SHOE = "AS 9D 2C KS  AH TD 2D QC  7C JD 2H 4H".split()
F3_EXPOSED = "AS 9D 2C 5S^ KS  AH TD 2D QC  7C JD 2H 4H".split()
F3_DECISIONS = {"1": "play", "3": "fold"}
FB_BETS = {"1": {"upper": 10, "odd": 5}, "4": {"middle": 2}, "common": {"lower": 10}}
FB_CARDS = "4S 5H 2C 3D KS 7D 6C".split()
W_BETS = [("alice", "5", 10), ("bob", "joker", 2), ("carol", "1", 5)]


def script_json(tmp_path, run_cli, doc: dict) -> dict:
    path = tmp_path / "script.yaml"
    path.write_text(json.dumps(doc), encoding="utf-8")  # JSON is valid YAML
    res = run_cli("script", "run", path, "--json")
    assert res.code == 0, res.err
    (line,) = res.json_lines()
    assert (line.pop("file"), line.pop("round")) == (str(path), 1)
    return line


def history_json(run_cli, path, *args) -> list[dict]:
    res = run_cli("history", "--journal", path, "--json", *args)
    assert res.code == 0, res.err
    return res.json_lines()


def as_result(obj: dict) -> dict:
    """The round's result; ``stakes`` too where the result records them (a
    settled round, recorded since results carry their stakes)."""
    return {k: obj[k] for k in (*RESULT_KEYS, "stakes") if k in obj}


def f3_round(rig, bets, decisions, misdeal_after=None):
    t = rig.table
    t.open_round()
    rig.bet(bets)
    t.close_betting()
    t.start_dealing()
    if misdeal_after is not None:
        rig.step(misdeal_after)
        t.misdeal()  # cards are out: the dealer's call, a supervisor's confirmation (Art. 11(1))
        t.resolve_incident("confirm", actor="supervisor:sam", why="box 3 was skipped")
        return
    t.pump((F3S.DEALING,))
    for box in t.pending_decisions():
        t.decide(box, decisions.get(box, "play"))


@pytest.mark.parametrize("cards", [F3_SHOE, F3_EXPOSED], ids=["plain", "exposed-dealer-card"])
def test_fortune3_settled_round_recalls_as_the_script_result(cards, f3, tmp_path, run_cli):
    path = tmp_path / "f3.sqlite"
    rig = f3(path, cards=cards)
    f3_round(rig, F3_BETS, F3_DECISIONS)
    (got,) = history_json(run_cli, path)
    expected = script_json(tmp_path, run_cli, {
        "game": "fortune3",
        "rounds": [{"bets": F3_BETS, "decisions": F3_DECISIONS, "cards": cards}],
    })
    assert as_result(got) == expected
    assert got["round_id"] == "F3J-000001"
    assert got["bets"] == {"1": {"ante": "10", "pair_plus": "5"}, "3": {"ante": "20"}, "5": {"pair_plus": "10"}}
    kinds = [e["kind"] for e in got["events"]]
    assert kinds.count("card") == 12 and kinds.count("decision") == 2 and "dealer" in kinds
    assert [e["card"] for e in got["events"] if e["kind"] == "card"] == [c for c in cards if not c.endswith("^")]
    assert [(e["box"], e["decision"]) for e in got["events"] if e["kind"] == "decision"] == [("1", "play"), ("3", "fold")]
    if cards is F3_EXPOSED:
        assert [e["card"] for e in got["events"] if e["kind"] == "card_set_aside"] == ["5S^"]


def test_fortune3_void_round_recalls_with_its_returned_bets(f3, tmp_path, run_cli):
    path = tmp_path / "f3.sqlite"
    rig = f3(path, cards=F3_SHOE)
    f3_round(rig, F3_BETS, F3_DECISIONS, misdeal_after=4)
    (got,) = history_json(run_cli, path)
    expected = script_json(tmp_path, run_cli, {
        "game": "fortune3",
        "rounds": [{"bets": F3_BETS, "cards": F3_SHOE[:4], "misdeal_after": 4}],
    })
    assert as_result(got) == expected
    assert got["status"] == "void" and got["void_reason"] == "misdeal" and got["results"] == {} and got["net"] == {}
    returned = {"1": {"ante": "10", "pair_plus": "5"}, "3": {"ante": "20"}, "5": {"pair_plus": "10"}}
    assert got["bets"] == returned
    (void,) = [e for e in got["events"] if e["kind"] == "void"]
    assert void["returned"] == returned and void["reason"] == "misdeal"
    text = run_cli("history", "--journal", path)
    assert text.code == 0
    assert "F3J-000001 fortune3 void (misdeal)" in text.out
    assert "1: ante 10, pair_plus 5" in text.out


def test_football_settled_round_recalls_as_the_script_result(fb, tmp_path, run_cli):
    path = tmp_path / "fb.sqlite"
    rig = fb(path, cards=FB_CARDS)
    rig.open(3)
    rig.bet(FB_BETS)
    rig.finish()
    (got,) = history_json(run_cli, path)
    expected = script_json(tmp_path, run_cli, {
        "game": "football", "rounds": [{"draw": 3, "bets": FB_BETS, "cards": FB_CARDS}],
    })
    assert as_result(got) == expected
    kinds = [e["kind"] for e in got["events"]]
    assert "draw" in kinds and kinds.count("card") == len(FB_CARDS)
    (draw,) = [e for e in got["events"] if e["kind"] == "draw"]
    assert draw["draw"] == 3


def test_wheel_settled_round_recalls_as_the_script_result(wheel, tmp_path, run_cli):
    path = tmp_path / "w.sqlite"
    rig = wheel(path, spins=[Spin(17, 2.4), Spin(3, 4.1)])
    rig.table.open_round()
    rig.bet(W_BETS)
    rig.finish()
    (got,) = history_json(run_cli, path)
    expected = script_json(tmp_path, run_cli, {
        "game": "wheel",
        "rounds": [{
            "bets": [{"player": p, "spot": s, "amount": a} for p, s, a in W_BETS],
            "spins": [{"segment": 17, "turns": 2.4}, {"segment": 3, "turns": 4.1}],
        }],
    })
    assert as_result(got) == expected
    kinds = [e["kind"] for e in got["events"]]
    assert "no_spin" in kinds and "spin_result" in kinds
    assert got["bets"] == {"alice": {"5": "10"}, "bob": {"joker": "2"}, "carol": {"1": "5"}}


def test_history_shows_device_events_faults_and_recoveries(f3, tmp_path, run_cli):
    path = tmp_path / "f3.sqlite"
    stray = parse_dealt("8H").card
    rig = f3(path, cards=F3_SHOE, faults=[MockFault("drawn_while_disarmed", 0, stray), MockFault("misread", 5)])
    t = rig.table
    t.open_round()
    rig.bet(F3_BETS)
    t.poll()  # the stray card
    t.close_betting()
    t.start_dealing()
    t.pump((F3S.DEALING,))  # the 6th card is misread: a blocking incident
    rig = f3(path, cards=F3_SHOE[6:])  # power loss, restart
    rig.table.resolve_incident("confirm", actor="supervisor", why="camera shows TD", card="TD")
    rig.finish(F3_DECISIONS)
    (got,) = history_json(run_cli, path)
    events = got["events"]
    faults = [e for e in events if e["kind"] == "fault"]
    assert sorted(f["code"] for f in faults) == sorted([MISREAD, DRAWN_WHILE_DISARMED])
    assert any(e["kind"] == "incident" and e.get("card") == "8H" for e in events)
    resolved = [e for e in events if e["kind"] == "incident_resolved"]
    assert resolved and resolved[0]["decision"] == "confirm" and resolved[0]["card"] == "TD"
    assert resolved[0]["actor"] == "supervisor" and resolved[0]["why"] == "camera shows TD"
    recovery = [e for e in events if e["kind"] == "recovery"]
    assert len(recovery) == 1 and recovery[0]["actor"] == "recovery" and recovery[0]["action"] == "resume"
    assert got["status"] == "settled"
    text = run_cli("history", "--journal", path).out
    assert "fault by table" in text and "recovery by recovery" in text and "incident_resolved" in text


@pytest.fixture
def three_rounds(tmp_path, run_cli):
    path = tmp_path / "f3.sqlite"
    res = run_cli("run", "--game", "fortune3", "--mock", "--rounds", "3", "--seed", "9", "--quiet", "--journal", path)
    assert res.code == 0, res.err
    return path


def test_last_and_round_select_rounds(three_rounds, run_cli):
    ids = [f"F3-MOCK-{n:06d}" for n in (1, 2, 3)]
    assert [r["round_id"] for r in history_json(run_cli, three_rounds)] == ids
    assert [r["round_id"] for r in history_json(run_cli, three_rounds, "--last", "2")] == ids[1:]
    assert [r["round_id"] for r in history_json(run_cli, three_rounds, "--last", "50")] == ids
    (one,) = history_json(run_cli, three_rounds, "--round", ids[1])
    assert one["round_id"] == ids[1] and set(RESULT_KEYS) <= set(one) and {"bets", "events"} <= set(one)
    text = run_cli("history", "--journal", three_rounds, "--round", ids[0])
    assert text.code == 0
    assert ids[0] in text.out and ids[1] not in text.out
    assert "dealer" in text.out and "net" in text.out


def test_history_uses_the_only_journal_in_the_data_directory(tmp_path, run_cli):
    assert run_cli("run", "--game", "wheel", "--mock", "--rounds", "2", "--seed", "1", "--quiet").code == 0
    res = run_cli("history", "--json")
    assert res.code == 0, res.err
    assert [r["round_id"] for r in res.json_lines()] == ["WHEEL-MOCK-000001", "WHEEL-MOCK-000002"]


@pytest.mark.parametrize(
    "args, says",
    [
        (["--last", "2", "--round", "F3-MOCK-000001"], "not both"),
        (["--round", "F3-MOCK-000099"], "no round"),
        (["--round", ""], "no round"),
    ],
)
def test_bad_history_options_exit_2_with_one_line(args, says, three_rounds, run_cli):
    res = run_cli("history", "--journal", three_rounds, *args)
    assert res.code == 2 and len(res.err_lines) == 1 and says in res.err, res.err
    assert res.out == ""


def test_history_of_a_missing_journal_exits_2_with_one_line(tmp_path, run_cli):
    res = run_cli("history", "--journal", tmp_path / "nope.sqlite", "--json")
    assert res.code == 2 and len(res.err_lines) == 1 and "no such journal file" in res.err
    assert not (tmp_path / "nope.sqlite").exists()
    res = run_cli("history")  # no journal in the data directory at all
    assert res.code == 2 and len(res.err_lines) == 1 and "--journal" in res.err


@pytest.mark.parametrize("command", [["history"], ["audit", "verify"]])
def test_a_journal_path_that_is_no_file_is_named_as_such(command, tmp_path, run_cli):
    for path, says in ((tmp_path, "a folder, not a journal file"),
                       ("/dev/null", "not a regular file (a journal is a file)")):
        res = run_cli(*command, "--journal", path)
        assert res.code == 2 and len(res.err_lines) == 1 and says in res.err, res.err
        assert str(path) in res.err


@pytest.mark.parametrize("args", [["--last", "0"], ["--last", "two"], ["--rounds", "2"]])
def test_history_usage_errors_exit_2_with_one_line(args, three_rounds, run_cli):
    res = run_cli("history", "--journal", three_rounds, *args)
    assert res.code == 2 and len(res.err_lines) == 1, res.err


def test_without_options_history_shows_the_last_ten_rounds(tmp_path, run_cli):
    path = tmp_path / "w.sqlite"
    assert run_cli("run", "--game", "wheel", "--mock", "--rounds", "12", "--seed", "3", "--quiet",
                   "--journal", path).code == 0
    got = [r["round_id"] for r in history_json(run_cli, path)]
    assert got == [f"WHEEL-MOCK-{n:06d}" for n in range(3, 13)]


def test_an_unfinished_last_round_is_shown_in_progress_with_its_bets(f3, tmp_path, run_cli):
    path = tmp_path / "f3.sqlite"
    rig = f3(path, cards=F3_SHOE)
    f3_round(rig, F3_BETS, F3_DECISIONS)
    rig.table.open_round()
    rig.bet({"2": {"ante": 15}})
    first, second = history_json(run_cli, path)
    assert first["status"] == "settled"
    assert second["round_id"] == "F3J-000002" and second["status"] == "in_progress"
    assert second["bets"] == {"2": {"ante": "15"}} and second["results"] == {} and second["net"] == {}


def test_a_positions_own_seat_and_named_players_each_recall_their_own_stake(f3, tmp_path, run_cli):
    """A bet with no player is the box's own seat's; when other
    bets on the table name their player, the recall's ``player_bets`` holds
    the seat's stake too (it equals the round's per-player returns). A
    confirmed misdeal's void names the supervisor who confirmed it."""
    path = tmp_path / "f3.sqlite"
    rig = f3(path, cards=F3_SHOE)
    t = rig.table
    t.open_round()
    t.place_bet("1", "ante", "10", "ann")
    t.place_bet("3", "ante", "10")
    t.place_bet("3", "ante", "5", "3")   # the seat, named
    t.close_betting()
    t.start_dealing()
    rig.step(2)
    t.misdeal()
    t.resolve_incident("confirm", actor="supervisor:sam", why="box 3 was skipped")
    (got,) = history_json(run_cli, path)
    assert got["player_bets"] == {"ann": {"1": {"ante": "10"}}, "3": {"3": {"ante": "15"}}}
    assert got["players"] == {"ann": {"returned": {"1": {"ante": "10"}}}, "3": {"returned": {"3": {"ante": "15"}}}}
    (void,) = [e for e in got["events"] if e["kind"] == "void"]
    assert (void["actor"], void["why"]) == ("supervisor:sam", "box 3 was skipped")
    text = run_cli("history", "--journal", path).out
    assert "void by supervisor:sam" in text and "by None" not in text


def test_history_never_shows_a_forged_round_as_what_happened(tmp_path, run_cli):
    """A bet raised with plain SQL in a closed round (behind the start-up
    check's checkpoint): `history` refuses that round, naming the record,
    and still shows the rounds that verify; the console's history too."""
    import sqlite3

    from tablesim.journal.location import data_dir

    path = tmp_path / "w.journal.sqlite"
    assert run_cli("run", "--game", "wheel", "--mock", "--rounds", "3", "--seed", "2", "--quiet",
                   "--journal", path).code == 0
    with sqlite3.connect(path) as db:
        seq = db.execute("SELECT MIN(seq) FROM records WHERE name = 'bet'").fetchone()[0]
        db.execute("UPDATE records SET data = replace(data, '\"amount\":\"', '\"amount\":\"9') WHERE seq = ?", (seq,))
    for args in ((), ("--json",), ("--round", "WHEEL-MOCK-000001")):
        res = run_cli("history", "--journal", path, *args)
        assert res.code == 2 and len(res.err_lines) == 1, (res.out, res.err)
        assert f"record {seq} was altered or forged" in res.err and "audit verify" in res.err and not res.out
    shown = run_cli("history", "--journal", path, "--last", "1")  # a later round verifies: shown
    assert shown.code == 0 and "WHEEL-MOCK-000003" in shown.out
    key = data_dir() / "WHEEL-MOCK.key"
    assert run_cli("history", "--journal", path, "--key", key).code == 2
    other = tmp_path / "other.key"
    other.write_text("ab" * 32 + "\n")
    other.chmod(0o600)
    res = run_cli("history", "--journal", path, "--last", "1", "--key", other)
    assert res.code == 2 and "not the key given" in res.err
