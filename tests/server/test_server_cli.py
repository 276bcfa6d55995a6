"""``tablesim serve`` as a user runs it: a process on a free port of
127.0.0.1, tokens kept next to the journal, a clean stop on Ctrl-C, and a
restart after a kill that recovers the round."""

from __future__ import annotations

import json
import signal
import socket
import stat
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from tablesim.cli.main import cli
from gamehost import option_refusal
from server_process import Serve

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_serve_runs_a_table_and_stops_cleanly(env, tmp_path):
    journal = tmp_path / "wheel.sqlite"
    s = Serve(env, "--game", "wheel", "--mock", "--port", "0", "--journal", str(journal), "--seed", "3", "--pace", "0.01")
    try:
        assert s.url.startswith("http://127.0.0.1:")
        tokens = tmp_path / "wheel.tokens.json"
        assert f"operator tokens: {tokens} (new)" in s.lines
        assert stat.S_IMODE(tokens.stat().st_mode) == 0o600
        assert {o["role"] for o in json.loads(tokens.read_text())["operators"]} == {"dealer", "supervisor"}
        assert s.post("/api/actions/open_round").status_code == 200
        assert s.post("/api/bets", {"position": "zoe", "bet": "1", "amount": "2"}).status_code == 200
        assert s.client.get("/board").status_code == 200
    finally:
        assert s.stop() == 0
    # a restarted mock table keeps its tokens and recovers the open round
    s2 = Serve(env, "--game", "wheel", "--mock", "--port", "0", "--journal", str(journal), "--pace", "0.01")
    try:
        assert s2.dealer == s.dealer and f"operator tokens: {tokens}" in s2.lines
        snap = s2.client.get("/api/table").json()
        # (the open view: the wheel's totals per bet, not whose; the dealer's book names zoe)
        assert snap["state"] == "betting_open" and snap["bets"] == {"all": {"1": "2"}} and snap["players_count"] == 1
        assert s2.client.get("/api/book", headers={"Authorization": f"Bearer {s2.dealer}"}).json()["bets"] == {
            "zoe": {"1": "2"}}
        assert snap["recovery"].startswith("recovered round WHEEL-MOCK-000001: resumed at betting_open")
    finally:
        assert s2.stop() == 0


@pytest.mark.slow
def test_serve_after_a_kill_recovers_the_round_it_was_dealing(env, tmp_path):
    journal = tmp_path / "f3.sqlite"
    s = Serve(env, "--game", "fortune3", "--mock", "--port", "0", "--journal", str(journal), "--pace", "0.01")
    assert s.post("/api/actions/open_round").status_code == 200
    assert s.post("/api/bets", {"position": "1", "bet": "ante", "amount": "5"}).status_code == 200
    assert s.post("/api/actions/close_betting").status_code == 200
    assert s.post("/api/actions/deal").status_code == 200
    end = time.monotonic() + 5
    while s.client.get("/api/table").json()["state"] != "decisions":
        assert time.monotonic() < end
        time.sleep(0.01)
    s.stop(signal.SIGKILL)
    s2 = Serve(env, "--game", "fortune3", "--mock", "--port", "0", "--journal", str(journal), "--pace", "0.01")
    try:
        snap = s2.client.get("/api/table").json()
        assert snap["state"] == "decisions" and snap["view"]["pending_decisions"] == ["1"]
        assert "resumed at decisions" in snap["recovery"]
        assert s2.post("/api/actions/decide", {"box": "1", "decision": "fold"}).status_code == 200
        assert s2.client.get("/api/table").json()["result"]["net"] == {"1": "-5"}
    finally:
        assert s2.stop() == 0
    assert CliRunner().invoke(cli, ["audit", "verify", "--journal", str(journal)], env={"XDG_DATA_HOME": env["XDG_DATA_HOME"]}).exit_code == 0


@pytest.mark.parametrize(
    "args, message",
    [
        (["--game", "fortune3"], "choose a device mode: --mock"),
        (["--game", "wheel", "--mock", "--dealing", "shoe"], option_refusal("dealing", "wheel")),
        (["--game", "fortune3", "--mock", "--decks", "2"], option_refusal("decks", "fortune3")),
    ],
)
def test_bad_options_are_one_line_and_exit_2(env, monkeypatch, tmp_path, args, message):
    monkeypatch.setenv("XDG_DATA_HOME", env["XDG_DATA_HOME"])
    res = CliRunner().invoke(cli, ["serve", *args, "--journal", str(tmp_path / "j.sqlite")])
    assert res.exit_code == 2 and message in res.output
    assert not (tmp_path / "j.sqlite").exists()


def test_a_busy_port_is_one_line_and_changes_nothing(env, monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_DATA_HOME", env["XDG_DATA_HOME"])
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        res = CliRunner().invoke(cli, ["serve", "--game", "fortune3", "--mock", "--port", str(port),
                                       "--journal", str(tmp_path / "j.sqlite")])
    assert res.exit_code == 2 and f"cannot listen on 127.0.0.1:{port}" in res.output
    assert not (tmp_path / "j.sqlite").exists()


def test_no_journal_and_tokens_from_a_file(env, tmp_path):
    path = tmp_path / "ops.json"
    path.write_text(json.dumps({"operators": [{"name": "li", "role": "supervisor", "token": "s" * 24},
                                              {"name": "ana", "role": "dealer", "token": "d" * 24}]}))
    # readable by others (as written, 0644): refused in one line, as a key file would be
    res = CliRunner().invoke(cli, ["serve", "--game", "football", "--mock", "--journal", "none", "--tokens", str(path)])
    assert res.exit_code == 2 and "the token file is open to others (mode 0644): chmod 600 it" in res.output
    assert len(res.output.strip().splitlines()) == 1 and "Traceback" not in res.output
    path.chmod(0o600)
    s = Serve(env, "--game", "football", "--mock", "--port", "0", "--journal", "none", "--tokens", str(path),
              "--bet-seconds", "5")
    try:
        assert f"operator tokens: {path}" in s.lines
        assert s.dealer == "d" * 24 and s.supervisor == "s" * 24
        assert s.client.get("/api/whoami", headers={"Authorization": "Bearer " + "s" * 24}).json()["name"] == "li"
        assert s.client.get("/api/history").status_code == 404
        assert s.client.get("/api/table").json()["bet_timer"]["seconds"] == 5
    finally:
        assert s.stop() == 0
    assert not (tmp_path / "data").exists()
    bad = tmp_path / "bad.json"
    bad.write_text('{"operators": [{"name": "x", "role": "root", "token": "xxxxxxxxxxxxxxxxxxxx"}]}')
    bad.chmod(0o600)
    res = CliRunner().invoke(cli, ["serve", "--game", "wheel", "--mock", "--journal", "none", "--tokens", str(bad)])
    assert res.exit_code == 2 and "unknown role 'root'" in res.output
    res = CliRunner().invoke(cli, ["serve", "--game", "wheel", "--mock", "--journal", "none", "--tokens", str(tmp_path / "no.json")])
    assert res.exit_code == 2 and "no such token file" in res.output
