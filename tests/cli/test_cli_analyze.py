"""``tablesim analyze fortune3``: exact returns from the rule profile."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner

from tablesim.cli.main import cli
from tablesim.profiles import config_root

DEFAULT_TEXT = (config_root() / "rules" / "fortune3-macau-2008.toml").read_text()


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args))


def temp_profile(tmp_path: Path, old: str, new: str, name: str = "p.toml") -> Path:
    assert DEFAULT_TEXT.count(old) == 1, old
    path = tmp_path / name
    # a profile whose rules differ from the regulation's must carry its own name
    path.write_text(DEFAULT_TEXT.replace(old, new).replace('name = "macau-2008"', 'name = "test-variant"'))
    return path


@pytest.fixture(scope="module")
def default_json() -> dict:
    res = invoke("analyze", "fortune3", "--json")
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_analyze_prints_the_known_returns():
    res = invoke("analyze", "fortune3")
    assert res.exit_code == 0, res.output
    out = res.stdout
    assert "-0.067511" in out  # Pair Plus
    assert "-0.033730" in out  # Ante + Play, best strategy (Q-6-4)
    for cat, n in (("straight_flush", 48), ("three_of_a_kind", 52), ("straight", 720), ("flush", 1096),
                   ("pair", 3744), ("high_card", 16440)):
        assert any(line.split()[:2] == [cat, str(n)] for line in out.splitlines()), cat


def test_analyze_json(default_json):
    data = default_json
    assert data["game"] == "fortune3" and data["hands"] == 22100
    pp = data["bets"]["pair_plus"]
    assert round(pp["return"], 6) == -0.067511
    assert Fraction(pp["exact"]) == Fraction(-1492, 22100)
    ap = data["bets"]["ante_play"]
    assert round(ap["return"], 6) == -0.033730
    q64 = data["bets"]["ante_play_q64"]
    assert round(q64["return"], 6) == -0.033730
    assert {c: v["count"] for c, v in data["categories"].items()} == {
        "straight_flush": 48, "three_of_a_kind": 52, "straight": 720, "flush": 1096, "pair": 3744,
        "high_card": 16440}
    # dealer qualifies with Q-high or better: all but the 6,720 hands below queen-high
    assert data["dealer_qualifies"] == pytest.approx(1 - 6720 / 22100)


def test_pair_plus_return_follows_the_pay_table(tmp_path, default_json):
    """Flush 4 -> 3 lowers the Pair Plus return by exactly 1096/22100."""
    path = temp_profile(tmp_path, "\nflush = 4\n", "\nflush = 3\n")
    res = invoke("analyze", "fortune3", "--profile", str(path), "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    before = Fraction(default_json["bets"]["pair_plus"]["exact"])
    after = Fraction(data["bets"]["pair_plus"]["exact"])
    assert before - after == Fraction(1096, 22100)
    assert round(data["bets"]["pair_plus"]["return"], 6) == round(float(before - Fraction(1096, 22100)), 6)
    # the Ante+Play return does not depend on the Pair Plus table
    assert data["bets"]["ante_play"]["exact"] == default_json["bets"]["ante_play"]["exact"]


def test_ante_bonus_change_moves_ante_play(tmp_path, default_json):
    path = temp_profile(tmp_path, "straight_flush = 5\n", "straight_flush = 6\n")
    data = json.loads(invoke("analyze", "fortune3", "--profile", str(path), "--json").stdout)
    assert Fraction(data["bets"]["ante_play"]["exact"]) > Fraction(default_json["bets"]["ante_play"]["exact"])
    assert data["bets"]["pair_plus"]["exact"] == default_json["bets"]["pair_plus"]["exact"]


def test_analyze_bad_profile_is_one_line(tmp_path):
    path = temp_profile(tmp_path, "\nflush = 4\n", '\nflush = "four"\n')
    res = invoke("analyze", "fortune3", "--profile", str(path))
    assert res.exit_code == 2
    assert res.stderr.strip().splitlines() == [res.stderr.strip()]
    assert str(path) in res.stderr and "pair_plus.flush" in res.stderr


def test_analyze_decks_option_is_refused_cleanly_for_fortune3():
    """BUG: --decks reaches fortune3's analyze() as an unexpected keyword: TypeError traceback."""
    res = invoke("analyze", "fortune3", "--decks", "2")
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    assert res.exit_code == 2
    assert "--decks" in res.stderr and len(res.stderr.strip().splitlines()) == 1
