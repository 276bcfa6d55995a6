"""Structured logs: JSON lines on stderr, each line of a round carrying its context."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from tablesim.cli.main import cli

ROOT = Path(__file__).resolve().parents[2]
TABLESIM = shutil.which("tablesim")


def _run(tmp: Path, *args: str) -> subprocess.CompletedProcess:
    cmd = [TABLESIM, *args] if TABLESIM else [sys.executable, "-m", "tablesim.cli.main", *args]
    env = {**os.environ, "XDG_DATA_HOME": str(tmp / "data")}
    return subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=env, timeout=60)


def check_json_logs(stderr: str, table: str) -> list[dict]:
    lines = stderr.splitlines()
    assert lines, "debug logging produced nothing"
    records = []
    for line in lines:
        rec = json.loads(line)  # every line is JSON
        assert isinstance(rec, dict)
        records.append(rec)
    started = False
    for rec in records:
        if rec.get("event") == "table_event" and rec.get("kind") == "state" and rec.get("trigger") == "open_betting":
            started = True
        if started or rec.get("event") == "table_event":
            # logged during a round: it carries the round's context
            assert rec.get("table") == table, rec
            assert rec.get("game") == "fortune3", rec
            assert str(rec.get("round_id", "")).startswith(f"{table}-"), rec
        assert rec.get("level") in ("debug", "info", "warning", "error", "critical")
    return records


def test_console_script_debug_json_logs(tmp_path):
    proc = _run(tmp_path, "--log-level", "debug", "--log-json", "run", "--game", "fortune3", "--mock",
                "--rounds", "3", "--seed", "3")
    assert proc.returncode == 0, proc.stderr[-2000:]
    records = check_json_logs(proc.stderr, "F3-MOCK")
    rounds = {r["round_id"] for r in records if "round_id" in r}
    assert {"F3-MOCK-000001", "F3-MOCK-000002", "F3-MOCK-000003"} <= rounds
    kinds = {r.get("kind") for r in records if r.get("event") == "table_event"}
    assert {"state", "bet", "card", "instruction", "dealer", "settlement"} <= kinds
    # each line names its own round
    current = None
    for rec in records:
        if rec.get("kind") == "state" and rec.get("trigger") == "open_betting":
            current = rec["round_id"]
        if current is not None:
            assert rec["round_id"] == current
    # stdout is still the human display, not logs
    assert "F3-MOCK-000001" in proc.stdout
    assert not any(line.startswith("{") for line in proc.stdout.splitlines())


def test_script_run_debug_json_logs_void_rounds(tmp_path):
    proc = _run(tmp_path, "--log-level", "debug", "--log-json", "script", "run", "--json",
                "scripts/fortune3-irregularities.yaml")
    assert proc.returncode == 0, proc.stderr[-2000:]
    records = check_json_logs(proc.stderr, "SCRIPT")
    voids = [r for r in records if r.get("event") == "round_void"]
    assert {r["reason"] for r in voids} >= {"misdeal", "misread", "duplicate_card"}
    for r in voids:
        assert r["table"] == "SCRIPT" and r["game"] == "fortune3" and r["round_id"].startswith("SCRIPT-")
    # stdout stays JSON results only
    assert all(set(json.loads(line)) >= {"file", "round", "status"} for line in proc.stdout.splitlines())


@pytest.mark.parametrize("dealing", ["shoe", "shuffler"])
def test_cli_runner_debug_json_logs(tmp_path, monkeypatch, dealing):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    res = CliRunner().invoke(cli, ["--log-level", "debug", "--log-json", "run", "--game", "fortune3", "--mock",
                                   "--rounds", "2", "--seed", "3", "--dealing", dealing])
    assert res.exit_code == 0, res.output
    records = check_json_logs(res.stderr, "F3-MOCK")
    assert {"F3-MOCK-000001", "F3-MOCK-000002"} <= {r["round_id"] for r in records}


def test_default_level_is_quiet(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    res = CliRunner().invoke(cli, ["run", "--game", "fortune3", "--mock", "--rounds", "2", "--seed", "3"])
    assert res.exit_code == 0
    assert res.stderr == ""
