"""What the journal writes, when, and where.

Every accepted bet, state change, dealer or operator action, device event and
fault, result and settlement is written before the table acts on it; each
action is one transaction holding its input record and everything it caused;
a refused action writes nothing. The journal lives in the user's data
directory by default (``XDG_DATA_HOME``), ``--journal PATH`` overrides it,
``--journal none`` / ``memory`` run without a file.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from drivers.mock import MockFault
from drivers.mock.wheel import Spin
from tablecore.cards import parse_dealt
from tablecore.errors import IllegalAction
from tablesim.games.fortune3.machine import S as F3S
from tablesim.journal.invariants import check
from tablesim.journal.journal import Journal

BETS = {"1": {"ante": 10, "pair_plus": 5}, "3": {"ante": 20}, "5": {"pair_plus": 10}}
SHOE = "AS 9D 2C KS  AH TD 2D QC  7C JD 2H 4H".split()


def names(records, kind):
    return {r["name"] for r in records if r["kind"] == kind}


def test_a_round_journals_every_kind_of_input_and_outcome(f3, tmp_path, jrows):
    path = tmp_path / "f3.sqlite"
    stray = parse_dealt("8H").card
    rig = f3(path, cards=SHOE, faults=[MockFault("drawn_while_disarmed", 0, stray)])
    t = rig.table
    t.open_round()
    rig.bet(BETS)
    t.place_bet("7", "ante", 5)
    t.withdraw_bet("7", "ante")
    t.poll()  # the shoe reports a card drawn while disarmed: a fault, an incident
    t.pause(actor="pit boss", why="check the stray card")
    t.resume(actor="pit boss", why="card set aside")
    t.close_betting()
    t.start_dealing()
    t.pump((F3S.DEALING,))
    t.decide("1", "play")
    t.decide("3", "fold")
    assert t.state is F3S.COMPLETE
    records = [r for r in jrows(path) if r["kind"] != "meta"]  # (the chain's own records: test_journal_keyed)
    assert {r["round_id"] for r in records} == {"F3J-000001"}
    assert names(records, "input") >= {
        "open_round", "place_bet", "withdraw_bet", "handle", "pause", "resume",
        "close_betting", "start_dealing", "decide",
    }
    assert names(records, "event") >= {
        "state", "bet", "bet_withdrawn", "fault", "incident", "paused", "resumed",
        "card", "decision", "dealer", "settlement", "result",
    }
    # device events are journaled as inputs from the device, dealer and player actions by who took them
    actors = {(r["name"], r["actor"]) for r in records if r["kind"] == "input"}
    assert ("handle", "shoe") in actors and ("place_bet", "player") in actors and ("decide", "dealer") in actors
    assert ("pause", "pit boss") in actors
    cards = [r["data"]["card"] for r in records if r["kind"] == "event" and r["name"] == "card"]
    assert cards == SHOE
    # one result, and it is the table's result
    results = [r["data"] for r in records if r["kind"] == "event" and r["name"] == "result"]
    assert results == [t.result.as_json()]
    # the input of each action comes first, its outcomes after it
    assert records[0]["kind"] == "input" and records[0]["name"] == "open_round"
    assert records[-1]["name"] == "result"


def test_each_input_is_written_before_the_table_acts_on_it(f3, tmp_path):
    """When the table announces a bet or a card, the input that caused it is
    already in the journal (on the journal's own connection, in the action's
    transaction)."""
    rig = f3(tmp_path / "f3.sqlite", cards=SHOE)
    seen: list[tuple[str, str, list]] = []

    def spy(event):
        if event.kind not in ("bet", "card"):
            return
        last_input = [r for r in rig.journal.records() if r.kind == "input"][-1]
        seen.append((event.kind, last_input.name, last_input.data["args"]))

    rig.table.bus.subscribe(spy)
    rig.table.open_round()
    rig.table.place_bet("1", "ante", 10)
    rig.table.close_betting()
    rig.table.start_dealing()
    rig.step(1)
    assert seen[0] == ("bet", "place_bet", ["1", "ante", 10])
    kind, name, args = seen[1]
    assert (kind, name) == ("card", "handle")
    assert args[0]["$event"] == "CardRead" and args[0]["card"] == {"$card": "AS"}


def test_an_accepted_action_is_committed_when_it_returns(f3, tmp_path, jrows):
    """Another connection (another process after a crash) sees the bet as soon
    as place_bet returns, and the card as soon as handle returns."""
    path = tmp_path / "f3.sqlite"
    rig = f3(path, cards=SHOE)
    rig.table.open_round()
    rig.table.place_bet("3", "ante", 25)
    other = sqlite3.connect(str(path))
    try:
        got = other.execute("SELECT kind, name FROM records ORDER BY seq DESC LIMIT 2").fetchall()
        assert got == [("event", "bet"), ("input", "place_bet")]
        rig.table.close_betting()
        rig.table.start_dealing()
        rig.table.handle(rig.device.next_event(0))
        got = other.execute("SELECT name, data FROM records WHERE kind='event' AND name='card'").fetchall()
        assert got == [("card", '{"card":"AS","to":"3"}')]
    finally:
        other.close()


def test_the_journal_is_durable_wal_with_full_sync(f3, tmp_path):
    rig = f3(tmp_path / "f3.sqlite")
    db = rig.journal.store.db
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_an_action_that_breaks_off_midway_leaves_nothing_in_the_journal(f3, tmp_path, jhead, round_results):
    """The last decision starts the settlement; the process fails in the middle
    of it. Nothing of that action may be in the journal: after a restart the
    round is back at the decision, and is settled once."""
    path = tmp_path / "f3.sqlite"
    rig = f3(path, cards=SHOE)
    rig.table.open_round()
    rig.bet(BETS)
    rig.table.close_betting()
    rig.table.start_dealing()
    rig.table.pump((F3S.DEALING,))  # both boxes still to decide
    rig.table.decide("1", "play")
    before = jhead(path)

    def fail(event):
        if event.kind == "settlement":
            raise RuntimeError("power cut in the middle of the settlement")

    rig.table.bus.subscribe(fail)
    with pytest.raises(RuntimeError):
        rig.table.decide("3", "fold")
    assert jhead(path) == before
    rig = None

    again = f3(path, cards=())
    assert again.report.state == "decisions"
    assert again.table.pending_decisions() == ["3"]
    again.table.decide("3", "fold")
    assert again.table.state is F3S.COMPLETE
    journal = Journal(path)
    assert check(journal, allow_open_last=False) == []
    assert len(round_results(path, "F3J-000001")) == 1


@pytest.mark.parametrize(
    "action",
    [
        lambda t: t.close_betting(),  # no bets on the table
        lambda t: t.place_bet("9", "ante", 5),
        lambda t: t.withdraw_bet("1", "ante"),
        lambda t: t.start_dealing(),
        lambda t: t.decide("1", "play"),
        lambda t: t.misdeal(),
        lambda t: t.open_round(),  # the round is not finished
        lambda t: t.resume(actor="op", why="not paused"),
        lambda t: t.resolve_incident("confirm", actor="op", why="none open"),
    ],
    ids=["close-empty", "bad-box", "withdraw-none", "deal-early", "decide-early", "misdeal-early", "open-twice",
         "resume-unpaused", "resolve-none"],
)
def test_a_refused_action_writes_nothing(action, f3, tmp_path, jhead):
    path = tmp_path / "f3.sqlite"
    rig = f3(path)
    rig.table.open_round()
    before = jhead(path)
    with pytest.raises(IllegalAction):
        action(rig.table)
    assert jhead(path) == before
    assert rig.journal.seq == before[0]  # the writer's own idea of the chain is rolled back too
    rig.table.place_bet("1", "ante", 5)  # and the chain goes on from there
    assert jhead(path)[0] == before[0] + 2


# --- where the journal lives ---------------------------------------------------------


def test_default_location_is_the_data_directory_per_table(f3, wheel, tmp_path, jrows):
    rig = f3(None)  # no spec: the table's default journal
    expected = tmp_path / "xdg" / "tablesim" / "F3J.journal.sqlite"
    assert Path(rig.journal.path) == expected
    rig.table.open_round()
    rig.table.place_bet("1", "ante", 5)
    assert [r["name"] for r in jrows(expected)][-1] == "bet"
    other = wheel(None, table_id="WHEEL-2")
    assert Path(other.journal.path) == tmp_path / "xdg" / "tablesim" / "WHEEL-2.journal.sqlite"
    assert f"journal: {expected}" in rig.console_text


def test_without_xdg_data_home_the_journal_goes_to_local_share(f3, tmp_path, monkeypatch):
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    rig = f3(None)
    assert Path(rig.journal.path) == tmp_path / "home" / ".local" / "share" / "tablesim" / "F3J.journal.sqlite"


@pytest.mark.parametrize("game, table_id", [("fortune3", "F3-MOCK"), ("football", "FB-MOCK"), ("wheel", "WHEEL-MOCK")])
def test_tablesim_run_journals_to_the_data_directory_and_goes_on_after_a_restart(game, table_id, tmp_path, run_cli, jrows):
    res = run_cli("run", "--game", game, "--mock", "--rounds", "2", "--seed", "4", "--quiet")
    assert res.code == 0, res.err
    path = tmp_path / "xdg" / "tablesim" / f"{table_id}.journal.sqlite"
    assert f"journal: {path}" in res.out
    res = run_cli("run", "--game", game, "--mock", "--rounds", "2", "--seed", "5", "--quiet")
    assert res.code == 0, res.err
    records = jrows(path)
    results = [r["round_id"] for r in records if r["kind"] == "event" and r["name"] == "result"]
    assert results == [f"{table_id}-{n:06d}" for n in range(1, 5)]
    assert run_cli("audit", "verify").code == 0  # the only journal in the data directory
    assert list((tmp_path / "cwd").iterdir()) == []


def test_journal_path_overrides_the_default(tmp_path, run_cli, jrows):
    path = tmp_path / "elsewhere" / "w.sqlite"
    path.parent.mkdir()  # (a journal named on purpose goes in a folder that is there)
    res = run_cli("run", "--game", "wheel", "--mock", "--rounds", "1", "--seed", "2", "--quiet", "--journal", path)
    assert res.code == 0, res.err
    assert [r["name"] for r in jrows(path) if r["kind"] == "event"][-1] == "result"
    # the data directory holds only the mock table's key (created on first use) and the journal's mark
    files = sorted(p.name for p in (tmp_path / "xdg").rglob("*") if p.is_file())
    assert len(files) == 2 and files[0] == "WHEEL-MOCK.key" and files[1].startswith("WHEEL-MOCK.key."), files
    assert files[1].endswith(".mark")


@pytest.mark.parametrize("spec", ["none", "memory"])
def test_journal_none_or_memory_writes_no_file(spec, tmp_path, run_cli):
    with_file = run_cli("run", "--game", "fortune3", "--mock", "--rounds", "3", "--seed", "2", "--journal",
                        tmp_path / "j.sqlite")
    keys = sorted((tmp_path / "xdg").rglob("*"))  # the journaled run's key
    res = run_cli("run", "--game", "fortune3", "--mock", "--rounds", "3", "--seed", "2", "--journal", spec)
    assert res.code == 0, res.err
    assert sorted((tmp_path / "xdg").rglob("*")) == keys
    assert list((tmp_path / "cwd").iterdir()) == []
    # the same session, journaled or not
    strip = lambda out: [line for line in out.splitlines() if not line.startswith("journal:")]  # noqa: E731
    assert strip(res.out) == strip(with_file.out)


def test_journal_spec_memory_and_none_in_process(wheel, tmp_path):
    rig = wheel("memory", spins=[Spin(3, 4.1)])
    assert rig.journal is not None and rig.journal.path == ":memory:"
    rig.table.open_round()
    rig.table.place_bet("a", "5", 1)
    assert [r.name for r in rig.journal.records()][-1] == "bet"
    none = wheel("none", spins=[Spin(3, 4.1)])
    assert none.journal is None and none.report is None
    assert not (tmp_path / "xdg").exists()


def _close_betting_with_a_device_report(kind, f3, wheel, tmp_path):
    from drivers.mock.wheel import WheelFault

    path = tmp_path / f"{kind}.sqlite"
    if kind == "fortune3 shoe: card drawn while disarmed":
        rig = f3(path, cards=SHOE, faults=[MockFault("drawn_while_disarmed", 0, parse_dealt("8H").card)])
        rig.table.open_round()
        rig.bet(BETS)
    elif kind == "fortune3 shuffler: shuffle report":
        rig = f3(path, cards=SHOE, dealing="shuffler")
        rig.table.open_round()
        rig.bet(BETS)
    else:
        rig = wheel(path, spins=[Spin(3, 4.1)], faults=[WheelFault("motion_while_idle", segment=10)])
        rig.table.open_round()
        rig.table.place_bet("alice", "5", 10)
    rig.table.close_betting()  # the table polls its device here
    return path


@pytest.mark.parametrize(
    "kind",
    ["fortune3 shoe: card drawn while disarmed", "fortune3 shuffler: shuffle report", "wheel: motion while idle"],
)
def test_a_device_report_taken_at_no_more_bets_is_journaled_as_an_input(kind, f3, wheel, tmp_path, jrows):
    """close_betting polls the device; whatever it reports there is a device
    event like any other: written as a ``handle`` input (by the device) before
    the table acts on it, so that a replay sees it too."""
    path = _close_betting_with_a_device_report(kind, f3, wheel, tmp_path)
    records = jrows(path)
    close = next(i for i, r in enumerate(records) if r["kind"] == "input" and r["name"] == "close_betting")
    after = records[close:]
    reported = [r for r in after if r["kind"] == "event" and r["name"] in ("fault", "shuffle")]
    assert reported, "the device's report left no trace"
    handled = [r for r in after if r["kind"] == "input" and r["name"] == "handle"]
    assert handled, "the device event the table acted on was never written as an input"
    assert after.index(handled[0]) < after.index(reported[0])


def test_the_record_append_returns_is_the_record_read_back(tmp_path):
    """``append`` builds its record without the dataclass's ``__init__`` (a
    group builds thousands): it is the same record as the one read back."""
    from dataclasses import fields

    from tablesim.journal.journal import Journal
    from tablesim.journal.record import Record

    journal = Journal(tmp_path / "j.sqlite", key=b"k" * 32)
    written = journal.append("T1", "T1-000001", "event", "bet", {"position": "1", "bet": "ante", "amount": "5"}, "table")
    with journal.transaction(group=True):
        grouped = journal.append("T1", "T1-000001", "event", "bet", {"position": "2", "bet": "ante", "amount": "1"})
    read = {r.seq: r for r in journal.records()}
    assert written == read[written.seq] and grouped == read[grouped.seq]
    assert [f.name for f in fields(Record)] == list(vars(written))
    journal.close()
