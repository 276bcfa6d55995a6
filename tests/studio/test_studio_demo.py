"""``tablesim studio demo``: a studio on this machine in one command. It
starts (a real nats-server, three tables playing by themselves, the wallet,
the platform, the floor), every address it prints answers, a player's bet
through the platform's API on the wheel is placed and settled to the wallet
by the rounds the table plays by itself, Ctrl-C stops every process; no
nats-server on PATH, or a folder that is a file, is one line and status 2;
a child that stops by itself is named and the others are stopped."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from decimal import Decimal
from pathlib import Path

import httpx
import pytest

import reaper
from reaper import alive
from clirun import tablesim
from natsserver import NATS_SERVER
from tablesim.cli.children import ChildDied, Child, Children, says
import webclient

ROOT = Path(__file__).resolve().parents[2]
#: pure waiting (seven processes start on a loaded machine): generous
START = 180.0
WAIT = 60.0


def _children_of(pid: int) -> list[int]:
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


class Demo:
    """``studio demo --json``: one object with every address and token, printed once all is up."""

    def __init__(self, folder: Path) -> None:
        env = {**os.environ, "PYTHONUNBUFFERED": "1", "COLUMNS": "300",
               "PATH": f"{Path(NATS_SERVER).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
        self.proc = reaper.track(subprocess.Popen(
            [sys.executable, "-m", "tablesim.cli.main", "studio", "demo", "--dir", str(folder),
             "--bet-seconds", "1", "--pace", "0.02", "--json"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT))
        lines: list[str] = []
        end = time.monotonic() + START
        while not lines or lines[-1] != "}":  # (the object's last line)
            line = self.proc.stdout.readline()
            assert line, f"the demo stopped: {self.proc.wait()} {self.proc.stderr.read()}"
            lines.append(line.rstrip("\n"))
            assert time.monotonic() < end
        self.doc = json.loads("\n".join(lines))
        self.urls = {"lobby": self.doc["lobby"]["link"], "floor": self.doc["floor"]["url"],
                     **{f"console {tid}": t["link"] for tid, t in self.doc["tables"].items()}}


def _wait(check, what: str):
    end = time.monotonic() + WAIT
    while not (got := check()):
        assert time.monotonic() < end, f"timed out waiting for {what}"
        time.sleep(0.1)
    return got


def _bet_on_the_wheel(lobby: str) -> tuple[dict, httpx.Client]:
    base, _, token = lobby.partition("/#token=")
    client = webclient.client(base_url=base, timeout=WAIT)
    session = client.post("/api/session", json={"token": token}).json()
    assert session["balance"] == "10000.00", session
    client.headers["Authorization"] = f"Bearer {session['session']}"

    def placed():
        res = client.post("/api/bets", json={"table": "WHEEL-DEMO", "bet": "1", "amount": "5"})
        assert res.status_code in (200, 409), res.text  # (409: betting closed between two rounds)
        return res.json() if res.status_code == 200 else None

    return _wait(placed, "a bet placed at the wheel"), client


def _a_second_visit_takes_a_fresh_link(demo: Demo, platform: str) -> None:
    """The lobby's launch token opened its session: opened again it is refused;
    the printed command prints a fresh launch link, which opens one."""
    used = webclient.post(platform + "/api/session", json={"token": demo.urls["lobby"].partition("#token=")[2]},
                          timeout=WAIT)
    assert used.status_code == 401 and used.json()["status"] == "token_used", used.text
    argv = demo.doc["another_launch_link"]
    assert argv[:3] == ["tablesim", "wallet", "token"], argv
    res = tablesim(*argv[1:])
    assert res.returncode == 0, res
    base, _, token = res.stdout.strip().partition("#token=")
    assert base == platform + "/", res.stdout
    fresh = webclient.post(platform + "/api/session", json={"token": token}, timeout=WAIT)
    assert fresh.status_code == 200 and fresh.json()["player"] == "demo1", fresh.text


def _scrape(url: str) -> dict[str, float]:
    """A service's metrics: each sample name -> the sum of its samples."""
    from prometheus_client.parser import text_string_to_metric_families

    res = webclient.get(url, timeout=WAIT)
    assert res.status_code == 200 and res.headers["content-type"].startswith("text/plain"), res.text
    out: dict[str, float] = {}
    for family in text_string_to_metric_families(res.text):
        for sample in family.samples:
            out[sample.name] = out.get(sample.name, 0.0) + sample.value
    return out


def _every_service_counted_it(doc: dict) -> None:
    """Each service's /metrics, as Prometheus scrapes them: the rounds the tables
    played, the floor's picture of them, the platform's bet and the wallet's debit."""
    for tid, table in doc["tables"].items():
        _wait(lambda: _scrape(table["metrics"]).get("tablesim_rounds_total", 0) >= 1, f"{tid}'s rounds counted")
        found = _scrape(table["metrics"])
        assert found["tablesim_studio_link_up"] == 1
        assert found["tablesim_bets_total"] >= 1  # (the simulated players' bets too, placed past the intake's queue)
    _wait(lambda: _scrape(doc["floor"]["metrics"]).get("tablesim_floor_rounds_total", 0) >= 3, "the floor's rounds")
    platform = _scrape(doc["platform"]["metrics"])
    assert platform["tablesim_platform_remote_bets_total"] >= 1 and platform["tablesim_platform_bus_connected"] == 1
    assert platform["tablesim_platform_wallet_call_seconds_count"] >= 2
    wallet = _scrape(doc["wallet"]["metrics"])
    assert wallet["tablesim_wallet_writes_total"] >= 2 and wallet["tablesim_wallet_requests_total"] >= 3


def _credit(ledger: Path, round_id: str) -> tuple | None:
    """The player's credit of the round, as (amount,), once the wallet has it."""
    with sqlite3.connect(f"file:{ledger}?mode=ro", uri=True) as db:
        row = db.execute("SELECT amount FROM tx WHERE kind='credit' AND tbl='WHEEL-DEMO' AND round=? "
                         "AND player='demo1'", (round_id,)).fetchone()
    return None if row is None else (Decimal(row[0]),)


@pytest.mark.skipif(NATS_SERVER is None, reason="nats-server is not installed (Debian package nats-server)")
def test_the_demo_serves_a_bet_settled_to_the_wallet_and_stops_on_ctrl_c(tmp_path):
    demo = Demo(tmp_path / "demo")
    consoles = [k for k in demo.urls if k.startswith("console ")]
    assert sorted(consoles) == ["console F3-DEMO", "console FB-DEMO", "console WHEEL-DEMO"], demo.lines
    platform = demo.urls["lobby"].partition("/#")[0]
    lobby = webclient.get(platform + "/", timeout=WAIT)
    assert lobby.status_code == 200 and "<html" in lobby.text.lower(), lobby.status_code
    assert webclient.get(platform + "/api/health", timeout=WAIT).json()["ok"]
    assert webclient.get(demo.urls["floor"], timeout=WAIT).status_code == 200
    for name in consoles:
        base = demo.urls[name].partition("/#")[0]
        assert webclient.get(base + "/", timeout=WAIT).status_code == 200
        assert webclient.get(base + "/api/health", timeout=WAIT).json()["ok"]
    bet, client = _bet_on_the_wheel(demo.urls["lobby"])
    assert bet["status"] == "placed" and bet["balance"] == "9995.00"
    _a_second_visit_takes_a_fresh_link(demo, platform)
    credit = _wait(lambda: _credit(tmp_path / "demo" / "wallet.db", bet["round"]), "the round's credit")
    after = Decimal("9995.00") + credit[0]  # the stake's return (0 on a lost round) paid back
    _wait(lambda: Decimal(client.get("/api/balance").json()["balance"]) == after, "the balance after the round")
    client.close()
    _every_service_counted_it(demo.doc)
    pids = _children_of(demo.proc.pid)
    assert len(pids) == 7, pids  # nats-server, three tables, the wallet, the platform, the floor
    demo.proc.send_signal(signal.SIGINT)
    assert demo.proc.wait(WAIT) == 0, demo.proc.stderr.read()
    assert demo.proc.stdout.read().strip() == ""  # (--json: the object alone on stdout)
    assert demo.proc.stderr.read().strip().endswith("studio demo: stopped")
    assert not [pid for pid in pids if alive(pid)]


def test_no_nats_server_on_path_is_one_line(tmp_path):
    empty = tmp_path / "bin"
    empty.mkdir()
    res = tablesim("studio", "demo", "--dir", tmp_path / "d", env={**os.environ, "PATH": str(empty)})
    assert res.returncode == 2, res
    assert res.stderr.count("\n") == 1 and "apt install nats-server" in res.stderr, res.stderr
    assert not (tmp_path / "d").exists()  # nothing made


def test_bad_input_is_one_line(tmp_path):
    (tmp_path / "file").write_text("x")
    env = {**os.environ, "PATH": f"{Path(NATS_SERVER or '/usr/sbin/x').parent}{os.pathsep}{os.environ['PATH']}"}
    for args in (["--dir", str(tmp_path / "file")], ["--port-base", "80"], ["--bet-seconds", "nan"]):
        res = tablesim("studio", "demo", *args, env=env)
        assert res.returncode == 2 and res.stderr.startswith("tablesim: error: "), (args, res)
        assert res.stderr.count("\n") == 1, res.stderr


@pytest.mark.skipif(NATS_SERVER is None, reason="nats-server is not installed (Debian package nats-server)")
def test_a_busy_port_is_one_line_and_nothing_is_made(tmp_path):
    import socket

    env = {**os.environ, "PATH": f"{Path(NATS_SERVER or '/usr/sbin/x').parent}{os.pathsep}{os.environ['PATH']}"}
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        res = tablesim("studio", "demo", "--port-base", port, "--dir", tmp_path / "d", env=env)
    assert res.returncode == 2 and res.stderr.count("\n") == 1, res.stderr
    assert f"port {port} (for nats) is not free" in res.stderr, res.stderr
    assert not (tmp_path / "d").exists()


def test_a_child_that_stops_is_named_and_the_others_are_stopped(tmp_path):
    children = Children(dict(os.environ))
    sleepers = [Child(f"s{i}", ["sleep", "60"], tmp_path / f"s{i}.log", says("never")) for i in range(2)]
    quitter = Child("quitter", ["sh", "-c", "echo going; exit 4"], tmp_path / "q.log", says("never"))
    children.start(*sleepers, quitter)
    with pytest.raises(ChildDied) as died:
        children.wait_ready([*sleepers, quitter], WAIT)
    assert died.value.child is quitter and quitter.proc.returncode == 4 and quitter.said("going")
    children.stop([["s1"], ["s0"]])
    assert all(s.proc.returncode == -signal.SIGTERM for s in sleepers)
    assert not [pid for pid in children.pids() if alive(pid)]
