"""What `run` and `history` show: Fortune 3's history lists
Play and Ante Bonus; the wheel's lines say which number is a stake and which
a symbol; on a terminal wins are green, losses red, a quiet long run shows a
progress bar; piped output stays plain."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from tablesim.cli.main import cli

ROOT = Path(__file__).resolve().parents[2]
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def on_a_terminal(tmp_path: Path, *args: str) -> str:
    """The command's output as a terminal shows it (a pty)."""
    master, slave = pty.openpty()
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "COLUMNS": "120", "TERM": "xterm-256color"}
    env.pop("NO_COLOR", None)
    proc = subprocess.Popen([sys.executable, "-m", "tablesim.cli.main", *args], stdout=slave, stderr=slave,
                            env=env, cwd=ROOT)
    os.close(slave)
    out = b""
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        out += data
    os.close(master)
    assert proc.wait(60) == 0, out.decode(errors="replace")
    return out.decode(errors="replace")


def test_fortune3_history_text_shows_play_and_ante_bonus(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    journal = tmp_path / "f3.sqlite"
    res = CliRunner().invoke(cli, ["run", "--game", "fortune3", "--mock", "--rounds", "6", "--seed", "5",
                                   "--journal", str(journal), "--quiet"])
    assert res.exit_code == 0, res.output
    text = CliRunner().invoke(cli, ["history", "--journal", str(journal), "--round", "F3-MOCK-000001"]).stdout
    # box 1 played: its Play and Ante Bonus results are listed with the Ante
    assert "  1: ante 5 -> +5, ante_bonus -> 0, play -> +5  net +10" in text.splitlines()
    assert "  3: ante 25 -> -25  net -25" in text.splitlines()


def test_wheel_lines_name_stake_and_symbol():
    res = CliRunner().invoke(cli, ["run", "--game", "wheel", "--mock", "--rounds", "2", "--seed", "3",
                                   "--journal", "none"])
    lines = res.stdout.splitlines()
    assert "  frank: 10 on symbol 3 (-10), 25 on symbol 1 (-25)  net -35" in lines
    bet = re.compile(r"\d+(\.\d+)? on symbol (1|3|5|10|20|joker|logo) \((\+|-)?\d+(\.\d+)?\)")
    for line in lines:
        if line.startswith("  ") and " on symbol " in line:
            player, _, rest = line.strip().partition(": ")
            stakes, _, net = rest.rpartition("  net ")
            assert all(bet.fullmatch(part) for part in stakes.split(", ")), line


def test_results_are_coloured_on_a_terminal_and_plain_when_piped(tmp_path):
    args = ["run", "--game", "fortune3", "--mock", "--rounds", "8", "--seed", "5", "--journal", "none"]
    shown = on_a_terminal(tmp_path, *args)
    assert "\x1b[32m+5\x1b[0m" in shown  # a player's win, green
    assert "\x1b[31m-25\x1b[0m" in shown  # a loss, red
    piped = subprocess.run([sys.executable, "-m", "tablesim.cli.main", *args], capture_output=True, text=True,
                           cwd=ROOT, env={**os.environ, "XDG_DATA_HOME": str(tmp_path / "d2")}, timeout=60)
    assert piped.returncode == 0 and not ANSI.search(piped.stdout) and "net +10" in piped.stdout
    assert ANSI.sub("", shown).replace("\r\n", "\n").count("net +10") == piped.stdout.count("net +10")


def test_a_quiet_long_run_shows_a_progress_bar_on_a_terminal_only(tmp_path):
    args = ["run", "--game", "wheel", "--mock", "--rounds", "200", "--seed", "1", "--journal", "none", "--quiet"]
    shown = ANSI.sub("", on_a_terminal(tmp_path, *args))
    assert re.search(r"rounds .* 200/200", shown) or "/200" in shown
    piped = CliRunner().invoke(cli, args)
    assert "/200" not in piped.stdout and "200 round(s) played" in piped.stdout


def test_logs_are_coloured_on_a_terminal(tmp_path):
    shown = on_a_terminal(tmp_path, "--log-level", "debug", "run", "--game", "wheel", "--mock", "--rounds", "1",
                          "--seed", "1", "--journal", "none")
    log_lines = [line for line in shown.splitlines() if "table_event" in line]
    assert log_lines and all("\x1b[" in line for line in log_lines)
    assert not any(ANSI.sub("", line).lstrip().startswith("{") for line in log_lines)  # not JSON on a terminal
