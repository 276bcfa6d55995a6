"""``tablesim run --game fortune3 --mock``, ``tablesim diagram`` and bad options."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from tablesim.cli.main import cli

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _private_data_dir(tmp_path, monkeypatch):
    """Journals go to a private directory, never the user's."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.chdir(ROOT)


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args))


ROUND_LINE = re.compile(r"^F3-MOCK-(\d{6})  dealer (\S\S \S\S \S\S) \(([a-z ]+)\), (qualifies|does not qualify)$")
VOID_LINE = re.compile(r"^F3-MOCK-(\d{6}): void \((\w+)\); every bet returned$")


@pytest.mark.parametrize("dealing", [None, "shoe", "shuffler"])
def test_mock_run_shows_rounds_and_a_summary(dealing):
    args = ["run", "--game", "fortune3", "--mock", "--rounds", "5", "--seed", "3", "--journal", "memory"]
    if dealing:
        args += ["--dealing", dealing]
    res = invoke(*args)
    assert res.exit_code == 0, res.output
    out = res.stdout
    assert f"dealing by {dealing or 'shoe'}" in out and "seed 3" in out
    rounds = [m.group(1) for line in out.splitlines() if (m := ROUND_LINE.match(line) or VOID_LINE.match(line))]
    assert rounds == [f"{n:06d}" for n in range(1, 6)]
    assert "5 round(s) played" in out
    assert "hold per bet" in out and "ante" in out and "all" in out
    # each box line shows cards, hand, stakes, results and a net
    box_lines = [line for line in out.splitlines() if line.startswith("  box ")]
    assert box_lines
    for line in box_lines:
        assert re.match(r"^  box [1-7]: (\S\S\^? ){3}\(", line), line
        assert "net " in line


@pytest.mark.parametrize("dealing", ["shoe", "shuffler"])
def test_same_seed_same_output(dealing, tmp_path, monkeypatch):
    args = ["run", "--game", "fortune3", "--mock", "--rounds", "5", "--seed", "3", "--dealing", dealing]
    outs = []
    for _ in range(2):
        data = tmp_path / "same-place"
        shutil.rmtree(data, ignore_errors=True)  # a fresh journal each time, at the same path
        monkeypatch.setenv("XDG_DATA_HOME", str(data))
        res = invoke(*args)
        assert res.exit_code == 0, res.output
        outs.append(res.stdout)
    assert outs[0] == outs[1]
    memory = [invoke(*args, "--journal", "memory").stdout for _ in range(2)]
    assert memory[0] == memory[1]
    other = invoke("run", "--game", "fortune3", "--mock", "--rounds", "5", "--seed", "4", "--dealing", dealing,
                   "--journal", "memory")
    assert other.stdout != memory[0]


def test_quiet_prints_only_the_summary():
    res = invoke("run", "--game", "fortune3", "--mock", "--rounds", "3", "--seed", "1", "--quiet", "--journal", "memory")
    assert res.exit_code == 0
    assert "F3-MOCK-000001" not in res.stdout
    assert "3 round(s) played" in res.stdout


def test_mock_run_with_a_profile_path(tmp_path):
    from tablesim.profiles import config_root

    text = (config_root() / "rules" / "fortune3-macau-2008.toml").read_text()
    path = tmp_path / "mine.toml"
    path.write_text(text.replace('name = "macau-2008"', 'name = "my-casino"'))
    res = invoke("run", "--game", "fortune3", "--mock", "--rounds", "2", "--seed", "1", "--profile", str(path),
                 "--journal", "memory")
    assert res.exit_code == 0, res.output
    assert "profile my-casino" in res.stdout


# --- diagram -------------------------------------------------------------------------


def test_diagram_prints_mermaid():
    from tablesim.games.fortune3.table import Fortune3Table

    res = invoke("diagram", "fortune3")
    assert res.exit_code == 0
    assert res.stdout.startswith("stateDiagram-v2\n")
    assert res.stdout == Fortune3Table.diagram()
    for line in ("idle --> betting_open: open_betting", "betting_open --> bets_closed: close_betting",
                 "dealing --> decisions: hands_dealt", "dealer_reveal --> void: void", "complete --> [*]"):
        assert line in res.stdout


# --- bad options ---------------------------------------------------------------------------


def one_error_line(res) -> str:
    assert res.exit_code == 2, res.output
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    assert "Traceback" not in res.output
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, res.stderr
    return lines[0]


@pytest.mark.parametrize(
    "args, part",
    [
        (["run", "--game", "fortune3"], "--mock"),
        (["run", "--game", "fortune3", "--mock", "--decks", "2"], "--decks"),
        (["run", "--game", "fortune3", "--mock", "--profile", "atlantis"], "atlantis"),
        (["run", "--game", "fortune3", "--mock", "--profile", "/nonexistent/f3.toml"], "/nonexistent/f3.toml"),
        (["analyze", "fortune3", "--profile", "atlantis"], "atlantis"),
    ],
)
def test_project_errors_are_one_line(args, part):
    line = one_error_line(invoke(*args))
    assert line.startswith("tablesim: error:") and part in line


@pytest.mark.parametrize(
    "args, part",
    [
        (["run", "--game", "fortune3", "--mock", "--rounds", "0"], "--rounds"),
        (["run", "--game", "poker", "--mock"], "--game"),
        (["run", "--game", "fortune3", "--mock", "--dealing", "by_hand"], "--dealing"),
        (["run", "--game", "fortune3", "--mock", "--frobnicate"], "--frobnicate"),
        (["diagram", "poker"], "poker"),
        (["--log-level", "loud", "run", "--game", "fortune3", "--mock"], "--log-level"),
    ],
)
def test_bad_options_exit_2_with_one_line(args, part):
    """The brief: bad options exit 2 with one line (click's usage errors print
    four: usage, a hint, a blank line, the error)."""
    line = one_error_line(invoke(*args))
    assert part in line


@pytest.mark.parametrize(
    "args",
    [
        ["run", "--game", "fortune3", "--mock", "--rounds", "0"],
        ["run", "--game", "poker", "--mock"],
        ["diagram", "poker"],
    ],
)
def test_bad_options_exit_2_without_traceback(args):
    res = invoke(*args)
    assert res.exit_code == 2
    assert "Traceback" not in res.output
    assert "error" in res.stderr.lower()


# --- the console script, for real --------------------------------------------------------------

TABLESIM = shutil.which("tablesim")


def _run(tmp: Path, *args: str) -> subprocess.CompletedProcess:
    cmd = [TABLESIM, *args] if TABLESIM else [sys.executable, "-m", "tablesim.cli.main", *args]
    env = {**os.environ, "XDG_DATA_HOME": str(tmp / "data"), "COLUMNS": "120"}
    return subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=env, timeout=60)


def test_console_script_mock_run_is_reproducible(tmp_path):
    a = _run(tmp_path / "a", "run", "--game", "fortune3", "--mock", "--rounds", "5", "--seed", "3",
             "--dealing", "shuffler", "--journal", "memory")
    b = _run(tmp_path / "b", "run", "--game", "fortune3", "--mock", "--rounds", "5", "--seed", "3",
             "--dealing", "shuffler", "--journal", "memory")
    assert a.returncode == 0, a.stderr
    assert a.stdout == b.stdout
    assert "F3-MOCK-000005" in a.stdout and "5 round(s) played" in a.stdout
    assert a.stderr == ""
