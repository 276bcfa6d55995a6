"""Output that survives a pipe: a table printed to a file or a pipe is never
cut to the terminal width rich guesses (80 columns, or COLUMNS), nor wrapped."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def piped(*args: str) -> str:
    env = {**os.environ, "COLUMNS": "30"}  # a narrow guess: before, every table was cut to it
    proc = subprocess.run([sys.executable, "-m", "tablesim.cli.main", *args], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def rows(out: str, first: str) -> list[str]:
    return [line for line in out.splitlines() if line.strip("│┃ ").startswith(first)]


@pytest.mark.parametrize("args, row", [
    (("run", "--game", "fortune3", "--mock", "--rounds", "3", "--journal", "none", "--seed", "4"), "pair_plus"),
    (("run", "--game", "wheel", "--mock", "--rounds", "3", "--journal", "none", "--seed", "4"), "all"),
    (("simulate", "football", "--rounds", "200", "--seed", "1", "--workers", "1"), "middle"),
], ids=["run-fortune3", "run-wheel", "simulate-football"])
def test_a_table_piped_is_whole(args, row):
    out = piped(*args)
    assert "…" not in out
    found = rows(out, row)
    assert found, out
    # the row's label and every figure on one line, down to the last column
    last = "yes" if args[0] == "simulate" else "%"
    assert all(line.rstrip("│┃ ").endswith(last) for line in found), found
