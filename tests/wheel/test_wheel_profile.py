"""The wheel's rule profile: the default, and every validation error located."""

from __future__ import annotations

import re
from collections import Counter
from decimal import Decimal
from pathlib import Path

import pytest

from tablecore.errors import ConfigError
from tablesim.profiles import rule_profile_path
from tablesim.games.wheel.profile import load_profile

DEFAULT = rule_profile_path("wheel", "macau-2003")


def test_default_profile_is_the_regulation():
    p = load_profile()
    assert p.name == "macau-2003"
    assert p.segments == 52 and len(p.layout) == 52
    assert p.min_turns == 3
    assert p.spots == ("1", "3", "5", "10", "20", "joker", "logo")
    assert [s.segments for s in p.symbols] == [24, 12, 8, 4, 2, 1, 1]
    assert {s.name: s.pays for s in p.symbols} == {
        "1": 1, "3": 3, "5": 5, "10": 10, "20": 20, "joker": 45, "logo": 45,
    }
    assert all(isinstance(s.pays, Decimal) for s in p.symbols)
    assert Counter(p.layout) == {"1": 24, "3": 12, "5": 8, "10": 4, "20": 2, "joker": 1, "logo": 1}


def test_default_layout_is_the_one_in_rules_md():
    rules = (
        "1 3 1 5 1 3 1 10 1 5 1 3 1 20 1 3 1 5 1 3 "
        "1 10 1 5 1 3 1 joker 1 3 1 5 1 3 1 10 1 5 1 3 "
        "1 20 1 3 1 5 1 3 10 5 3 logo"
    ).split()
    assert load_profile().layout == tuple(rules)


def _variant(tmp_path: Path, edit) -> Path:
    text = DEFAULT.read_text(encoding="utf-8")
    new = edit(text)
    assert new != text, "the edit did not apply"
    # a changed profile carries its own name (the loader refuses a built-in name with other rules)
    new = new.replace('name = "macau-2003"', 'name = "test-variant"')
    path = tmp_path / "wheel-test.toml"
    path.write_text(new, encoding="utf-8")
    return path


def _error(path: Path) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        load_profile(str(path))
    return info.value


def test_layout_with_51_segments_is_refused(tmp_path):
    path = _variant(tmp_path, lambda t: t.replace('  "3", "logo",\n', '  "logo",\n'))
    # 51 entries: one "3" gone; the length is what is reported
    err = _error(path)
    assert err.where == f"{path}: layout"
    assert "has 51 segment(s); the wheel has exactly 52" in err.message


def test_wrong_symbol_counts_in_the_layout_are_refused(tmp_path):
    # one "1" becomes a "3": still 52 segments, but 23 ones and 13 threes
    path = _variant(tmp_path, lambda t: t.replace('layout = [\n  "1",', 'layout = [\n  "3",', 1))
    err = _error(path)
    assert err.where == f"{path}: layout"
    assert "symbol '1' is on 23 segment(s); it must be on exactly 24" in err.message


def test_symbol_counts_must_add_up_to_the_wheel(tmp_path):
    path = _variant(tmp_path, lambda t: t.replace('[symbols."1"]\nsegments = 24', '[symbols."1"]\nsegments = 25'))
    err = _error(path)
    assert err.where == f"{path}: symbols"
    assert "= 53, not the wheel's 52" in err.message


def test_a_symbol_without_a_pay_is_refused(tmp_path):
    path = _variant(tmp_path, lambda t: t.replace('segments = 4\npays = 10\n', 'segments = 4\n'))
    err = _error(path)
    assert err.where == f"{path}: symbols.10.pays"
    assert err.message == "missing required key"


def test_a_zero_pay_is_refused(tmp_path):
    path = _variant(tmp_path, lambda t: t.replace("segments = 2\npays = 20", "segments = 2\npays = 0"))
    err = _error(path)
    assert err.where == f"{path}: symbols.20.pays"


def test_unknown_keys_are_refused(tmp_path):
    path = _variant(tmp_path, lambda t: t.replace("min_turns = 3", "min_turns = 3\nmin_turn = 2"))
    err = _error(path)
    assert (err.where, err.message) == (f"{path}: min_turn", "unknown key (nearest known key: min_turns)")
    path = _variant(tmp_path, lambda t: t.replace("segments = 1\npays = 45", "segments = 1\npays = 45\npay = 40", 1))
    err = _error(path)
    assert (err.where, err.message) == (f"{path}: symbols.joker.pay", "unknown key (nearest known key: pays)")


def test_a_layout_symbol_the_profile_does_not_know(tmp_path):
    path = _variant(tmp_path, lambda t: t.replace('"3", "logo",', '"3", "tiger",'))
    err = _error(path)
    assert err.where == f"{path}: layout[51]"
    assert "'tiger' is not a symbol of the wheel" in err.message


def test_min_turns_is_required_and_a_whole_number(tmp_path):
    path = _variant(tmp_path, lambda t: re.sub(r"\nmin_turns = 3\n", "\n", t))
    err = _error(path)
    assert (err.where, err.message) == (f"{path}: min_turns", "missing required key")
    path = _variant(tmp_path, lambda t: t.replace("min_turns = 3", "min_turns = 2.5"))
    assert _error(path).where == f"{path}: min_turns"


def test_a_profile_of_another_game_is_refused(tmp_path):
    path = _variant(tmp_path, lambda t: t.replace('game = "wheel"', 'game = "football"'))
    err = _error(path)
    assert err.where == f"{path}: game"


def test_min_turns_is_data(tmp_path):
    path = _variant(tmp_path, lambda t: t.replace("min_turns = 3", "min_turns = 4"))
    assert load_profile(str(path)).min_turns == 4
