"""``tablesim run --json`` (the session as one object), ``--metrics-port``
(the table's Prometheus metrics while it runs) and an interrupted run, which
tells what it played."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
from prometheus_client.parser import text_string_to_metric_families

from clirun import tablesim
from tablesim.harness.ports import free_port

ROOT = Path(__file__).resolve().parents[2]


def test_run_json_is_one_object_with_each_round_and_the_summary(tmp_path):
    res = tablesim("run", "--game", "football", "--mock", "--rounds", "3", "--seed", "2", "--journal",
                   str(tmp_path / "j.sqlite"), "--json")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)  # (nothing else on stdout: the banner went to stderr)
    assert (doc["game"], doc["rounds_requested"], doc["rounds_played"], doc["interrupted"]) == ("football", 3, 3, False)
    assert [r["status"] for r in doc["rounds"]] == ["settled"] * 3
    assert len({r["round_id"] for r in doc["rounds"]}) == 3
    assert doc["summary"]["rounds"] == 3 and set(doc["summary"]["by_bet"]) <= {"upper", "lower", "odd", "even", "middle"}
    assert res.stderr  # (the banner, on stderr)


def test_a_busy_metrics_port_is_one_line_and_nothing_runs(tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        res = tablesim("run", "--game", "wheel", "--mock", "--rounds", "1", "--journal", str(tmp_path / "j.sqlite"),
                       "--metrics-port", str(port))
    assert res.returncode == 2
    assert res.stderr.strip().count("\n") == 0 and f"--metrics-port {port}" in res.stderr
    assert not (tmp_path / "j.sqlite").exists()


def metric(url: str, name: str) -> float:
    text = httpx.get(url, timeout=5).text
    return sum(s.value for f in text_string_to_metric_families(text) for s in f.samples if s.name == name)


def test_an_interrupted_run_tells_what_it_played_and_its_metrics_counted_it(tmp_path):
    """Ctrl-C (SIGINT) in the middle of a long run: the rounds played so far
    are printed (here as JSON), the status is 130; the metrics served while it
    ran counted those rounds."""
    port = free_port()
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data")}
    proc = subprocess.Popen([sys.executable, "-m", "tablesim.cli.main", "run", "--game", "wheel", "--mock",
                             "--rounds", "100000", "--delay", "0.01", "--journal", str(tmp_path / "j.sqlite"),
                             "--json", "--metrics-port", str(port)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env)
    try:
        url = f"http://127.0.0.1:{port}/metrics"
        deadline = time.monotonic() + 60
        while True:  # (waits on the rounds counted, never on a time)
            assert proc.poll() is None, proc.stderr.read()
            try:
                if metric(url, "tablesim_rounds_total") >= 2:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "the run never counted two rounds"
            time.sleep(0.05)
        assert metric(url, "tablesim_journal_commit_seconds_count") > 0
        assert metric(url, "tablesim_bets_total") > 0
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    assert proc.returncode == 130, err
    doc = json.loads(out)
    assert doc["interrupted"] is True and doc["rounds_played"] >= 2
    assert doc["rounds_played"] == len(doc["rounds"]) == doc["summary"]["rounds"]
    assert f"interrupted: {doc['rounds_played']} of 100000 round(s) played" in err
    assert "Traceback" not in err
