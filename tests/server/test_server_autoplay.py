"""A table that plays by itself (``tablesim serve --mock --autoplay``): rounds
of each game open, close on the bet timer, deal, decide and settle with
nobody at the console, every move journaled; a player's own Fortune 3
decision is waited for (the decision timer folds it); an incident stops it
until the supervisor resolves it; the options are checked."""

from __future__ import annotations

import sqlite3
import time
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest

from clirun import tablesim
from server_helpers import Served
from tablesim.journal.attach import attach_and_recover
from tablesim.server.auth import TokenStore
from tablesim.server.autoplay import ACTOR, PLAYERS_ACTOR, Autoplay
from tablesim.harness.devicetables import emulated_table
from tablesim.games.rig import mock_rig
from tablesim.server.process import ServerThread
from tablesim.server.runner import TableRunner
import webclient

#: pure waiting (a loaded machine): generous
WAIT = 60.0


@pytest.fixture
def autoplayed(tmp_path: Path):
    """``autoplayed(game, emulated=(), **autoplay) -> Served``: a table that plays by itself."""
    stack = ExitStack()

    def start(game: str, *, faults=None, bet_seconds: float = 1.0, name: str = "", **settings) -> Served:
        rig = None
        if faults is None:
            rig = mock_rig(game, seed=5)
            table = rig.table
        else:
            table = emulated_table(stack, game, seed=11, time_scale=0.0, faults=faults).table
        path = tmp_path / f"{game}{name}.journal.sqlite"
        report = attach_and_recover(table, str(path))
        stack.callback(table.journal.close)
        if rig is not None:
            rig.after_recovery()
        tokens = TokenStore.generate()
        runner = TableRunner(table, rig=rig, pace=0.002, bet_seconds=bet_seconds, recovery=report,
                             autoplay=Autoplay(**settings))
        server = ServerThread(runner, tokens).start()
        stack.callback(server.stop)
        client = webclient.client(base_url=server.url, timeout=WAIT)
        stack.callback(client.close)
        return Served(server, runner, tokens, path, client)

    yield start
    stack.close()


def _wait(check, what: str):
    end = time.monotonic() + WAIT
    while True:
        got = check()
        if got:
            return got
        assert time.monotonic() < end, f"timed out waiting for {what}"
        time.sleep(0.02)


def _results(s: Served, n: int) -> list[dict]:
    return _wait(lambda: (r := s.get("/api/results", params={"last": 50}).json()) and len(r) >= n and r,
                 f"{n} rounds")


def _actors(path: Path, name: str) -> list[str]:
    with sqlite3.connect(path) as db:
        return [a for (a,) in db.execute("SELECT actor FROM records WHERE name = ? ORDER BY seq", (name,))]


@pytest.mark.parametrize("game", ["fortune3", "football", "wheel"])
def test_rounds_play_by_themselves_and_are_journaled(autoplayed, game):
    s = autoplayed(game)
    results = _results(s, 2)
    assert all(r["status"] == "settled" for r in results), results
    for r in results:  # each in the journal's history as settled
        assert s.get("/api/history", params={"round": r["round_id"]}).json()[0]["status"] == "settled"
    opened = _actors(s.journal_path, "open_round")
    assert len(opened) >= 2 and set(opened) == {ACTOR}
    assert set(_actors(s.journal_path, "close_betting")) == {"timer"}  # the bet timer closes betting
    assert set(_actors(s.journal_path, "place_bets")) == {PLAYERS_ACTOR}  # (a group of bets: one record)
    if game == "fortune3":
        assert set(_actors(s.journal_path, "decide")) == {ACTOR}
    if game == "football":
        assert set(_actors(s.journal_path, "start_dealing")) == {ACTOR}


def test_a_players_own_decision_is_waited_for_and_no_decision_folds(autoplayed):
    waits = autoplayed("fortune3", players=False, decision_seconds=3600.0, name="-waits")
    folds = autoplayed("fortune3", players=False, decision_seconds=0.5, name="-folds")
    for s in (waits, folds):  # nobody else bets: betting stays open until ana does
        s.wait_state("betting_open", timeout=WAIT)
        assert s.post("/api/bets", {"position": "2", "bet": "ante", "amount": "10", "player": "ana"}).status_code == 200
    waits.wait_state("decisions", timeout=WAIT)
    time.sleep(0.5)
    assert waits.state()["view"]["pending_decisions"] == ["2"]  # ana's to make: autoplay does not make it
    res = waits.post("/api/actions/decide", {"box": "2", "decision": "play", "player": "ana"})
    assert res.status_code == 200, res.text
    assert _results(waits, 1)[0]["status"] == "settled"
    assert _actors(waits.journal_path, "decide") == [f"dealer:{waits.tokens.first('dealer')[1].name}"]
    # nobody decides within the decision timer: box 2 folds (the Ante lost)
    folded = _results(folds, 1)[0]
    assert folded["status"] == "settled" and folded["net"]["2"] == "-10", folded
    assert _actors(folds.journal_path, "decide") == ["timer"]


def test_an_incident_stops_it_until_the_supervisor_resolves_it(autoplayed):
    s = autoplayed("fortune3", faults=("shoe:misread@card=3",))
    snap = _wait(lambda: (t := s.state())["incident"] and t, "the misread")
    held = snap["round_id"]
    time.sleep(0.5)
    again = s.state()
    assert again["round_id"] == held and again["incident"] and again["state"] == snap["state"]  # it waits
    res = s.post("/api/incident/resolve", {"decision": "reject", "why": "unreadable"}, role="supervisor")
    assert res.status_code == 200, res.text
    after = _wait(lambda: [r for r in s.get("/api/results").json() if r["round_id"] != held
                           and r["status"] == "settled"], "a round after the void")
    assert after and s.get("/api/results").json()[-1]["status"] == "void"


def test_options_are_checked(tmp_path):
    env_args = ("--journal", "none", "--port", "0")
    res = tablesim("serve", "--config", str(Path(__file__).resolve().parents[2] / "config/tables/fortune3-mock.toml"), "--autoplay", *env_args)
    assert res.returncode == 2 and res.stderr.count("\n") == 1 and "--autoplay" in res.stderr, res.stderr
    res = tablesim("serve", "--game", "wheel", "--mock", "--players", "none", *env_args)
    assert res.returncode == 2 and "--players applies to --autoplay" in res.stderr, res.stderr
