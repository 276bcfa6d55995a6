"""Hostile or absurd input on the command line, in scripts and in config
files: each is refused with one line (`tablesim: error: ...`), exit 2, and
nothing runs."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from tablesim.cli.main import cli
from tablesim.cli.options import RUN_ROUNDS_MAX
from tablecore.errors import InputError
from tablesim.harness.scripting import yamlload

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _private_data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.chdir(ROOT)


def one_error_line(*args: str) -> str:
    res = CliRunner().invoke(cli, list(args))
    assert res.exit_code == 2, res.output
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith("tablesim: error: "), lines[0]
    assert res.stdout == "", "nothing may run before the refusal"
    return lines[0]


MOCK = ["run", "--game", "fortune3", "--mock", "--journal", "none", "--rounds", "1"]
SERVE = ["serve", "--game", "wheel", "--mock", "--journal", "none", "--port", "0"]


@pytest.mark.parametrize("args, option", [
    (MOCK + ["--delay", "nan"], "--delay"),
    (MOCK + ["--delay", "inf"], "--delay"),
    (MOCK + ["--delay", "-1"], "--delay"),
    (["run", "--game", "fortune3", "--emulated", "--time-scale", "nan"], "--time-scale"),
    (["run", "--game", "fortune3", "--emulated", "--time-scale", "inf"], "--time-scale"),
    (SERVE + ["--time-scale", "nan"], "--time-scale"),
    (SERVE + ["--pace", "nan"], "--pace"),
    (SERVE + ["--bet-seconds", "nan"], "--bet-seconds"),
    (SERVE + ["--bet-seconds", "inf"], "--bet-seconds"),
    (["emulate", "shoe", "--time-scale", "nan"], "--time-scale"),
    (["run", "--game", "fortune3", "--mock", "--rounds", str(RUN_ROUNDS_MAX + 1)], "--rounds"),
    (["simulate", "wheel", "--rounds", "10000000000"], "--rounds"),
])
def test_non_finite_or_unbounded_numbers_are_refused(args, option):
    line = one_error_line(*args)
    assert option in line


def test_a_usage_error_has_the_one_prefix():
    line = one_error_line("run", "--frobnicate")
    assert "--frobnicate" in line and "run --help" in line


@pytest.mark.parametrize("kind", ["profile", "config"])
def test_a_non_utf8_file_is_one_line(tmp_path, kind):
    bad = tmp_path / "bad.toml"
    bad.write_bytes(b'game = "fortune3"\nname = "\xff\xfe"\n')
    args = ["run", "--game", "fortune3", "--mock", "--profile", str(bad)] if kind == "profile" \
        else ["run", "--config", str(bad)]
    line = one_error_line(*args)
    assert str(bad) in line and "not UTF-8" in line and "0xff" in line


def test_a_non_utf8_script_is_one_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_bytes(b"game: fortune3\nrounds: []\n# \xc3\x28\n")
    line = one_error_line("script", "run", str(bad))
    assert line.startswith(f"tablesim: error: invalid script: {bad}: not UTF-8")


BOMB = """\
game: fortune3
a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]
b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]
e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]
f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]
g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]
h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]
i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h]
rounds: [*i]
"""


def test_an_alias_bomb_is_refused_at_once(tmp_path):
    path = tmp_path / "bomb.yaml"
    path.write_text(BOMB)
    assert len(BOMB) < 600
    start = time.perf_counter()
    line = one_error_line("script", "run", str(path))
    assert time.perf_counter() - start < 5
    assert "expands to more than" in line and str(path) in line


def test_benign_anchors_still_load(tmp_path):
    path = tmp_path / "anchors.yaml"
    path.write_text("bets: &bets {1: {ante: 10}}\nrounds: [{bets: *bets}, {bets: *bets}]\n")
    data = yamlload.load_yaml(path)
    assert data["rounds"][1]["bets"] == {1: {"ante": 10}}


def test_a_recursive_alias_is_refused(tmp_path):
    path = tmp_path / "loop.yaml"
    path.write_text("a: &a [1, *a]\n")
    with pytest.raises(InputError, match="contains it"):
        yamlload.load_yaml(path)


def test_an_oversized_script_is_refused_without_reading_it_all(tmp_path):
    path = tmp_path / "big.yaml"
    path.write_bytes(b"# " + b"x" * (yamlload.MAX_BYTES + 10) + b"\n")
    line = one_error_line("script", "run", str(path))
    assert "larger than" in line


def test_every_shipped_script_is_within_the_limits():
    for path in sorted((ROOT / "scripts").glob("*.yaml")):
        assert path.stat().st_size < yamlload.MAX_BYTES / 10, path
        yamlload.load_yaml(path)
