"""Rule profile validation: every mistake is a ConfigError naming the file and the field."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tablecore.errors import ConfigError
from tablesim.games.fortune3.profile import CATEGORIES, load_profile


def test_default_profile(profile):
    assert profile.name == "macau-2008"
    assert profile.boxes == 7
    assert profile.ranking == CATEGORIES
    assert profile.qualifier_category == "high_card" and profile.qualifier_high_card == 12
    assert profile.ante_pays == 1 and profile.play_pays == 1
    assert profile.ante_bonus == {"straight_flush": 5, "three_of_a_kind": 4, "straight": 1}
    assert profile.pair_plus == {"straight_flush": 40, "three_of_a_kind": 25, "straight": 5, "flush": 4, "pair": 1}
    assert all(isinstance(v, Decimal) for v in (*profile.ante_bonus.values(), *profile.pair_plus.values()))
    assert profile.fold_with_pair_plus == "forfeit"
    assert profile.play_at_least == (12, 6, 4)


def test_profile_loads_by_path(profile_file):
    path = profile_file({'fold_with_pair_plus = "forfeit"': 'fold_with_pair_plus = "forbid"'})
    p = load_profile(str(path))
    assert p.fold_with_pair_plus == "forbid"
    assert p.source == str(path)


def test_profile_values_are_data(profile_file):
    path = profile_file({"\nflush = 4\n": "\nflush = 3.5\n", 'high_card = "Q"': 'high_card = "10"', "boxes = 7": "boxes = 5"})
    p = load_profile(str(path))
    assert p.pair_plus["flush"] == Decimal("3.5")
    assert p.qualifier_high_card == 10
    assert p.boxes == 5


def _error(path) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        load_profile(str(path))
    return info.value


BAD = [
    # missing keys
    ("missing boxes", {"boxes = 7\n": ""}, "boxes", "missing"),
    # (a misspelt key is named as unknown, with the key it left missing)
    ("missing ranking", {'ranking = ["straight_flush"': 'rankings = ["straight_flush"'}, "rankings",
     "unknown key (nearest known key: ranking, which is missing)"),
    ("missing pair plus table", {"[pair_plus]": "[pair_plus_typo]"}, "pair_plus_typo",
     "unknown key (nearest known key: pair_plus, which is missing)"),
    ("missing pays.play", {"play = 1\n": ""}, "pays.play", "missing"),
    ("missing qualifier.category", {'category = "high_card"\n': ""}, "qualifier.category", "missing"),
    ("missing options.fold", {'fold_with_pair_plus = "forfeit"\n': ""}, "options.fold_with_pair_plus", "missing"),
    # unknown keys: a typo is never a silent default
    ("unknown top-level key", {"boxes = 7": 'boxes = 7\ncolour = "red"'}, "colour", "unknown key"),
    ("unknown key in pays", {"play = 1\n": "play = 1\ntip = 2\n"}, "pays.tip", "unknown key"),
    ("unknown key in qualifier", {'high_card = "Q"': 'high_card = "Q"\nhigh = "K"'}, "qualifier.high", "unknown key"),
    ("unknown key in options", {'fold_with_pair_plus = "forfeit"': 'fold_with_pair_plus = "forfeit"\nfold = "x"'},
     "options.fold", "unknown key"),
    ("unknown key in strategy", {'play_at_least = ["Q", "6", "4"]': 'play_at_least = ["Q", "6", "4"]\nplay = 1'},
     "strategy.play", "unknown key"),
    # wrong types
    ("boxes a string", {"boxes = 7": 'boxes = "seven"'}, "boxes", "whole number"),
    ("boxes a float", {"boxes = 7": "boxes = 7.0"}, "boxes", "whole number"),
    ("boxes a bool", {"boxes = 7": "boxes = true"}, "boxes", "whole number"),
    ("too many boxes", {"boxes = 7": "boxes = 8"}, "boxes", "outside"),
    ("no boxes", {"boxes = 7": "boxes = 0"}, "boxes", "outside"),
    ("name a number", {'name = "macau-2008"': "name = 2008"}, "name", "string"),
    ("ranking a string", {'ranking = ["straight_flush", "three_of_a_kind", "straight", "flush", "pair", "high_card"]':
                          'ranking = "straight_flush"'}, "ranking", "list"),
    ("pays.ante a word", {"ante = 1\n": 'ante = "one"\n'}, "pays.ante", "not a number"),
    ("pays.ante negative", {"ante = 1\n": "ante = -1\n"}, "pays.ante", "positive"),
    ("pair plus flush a word", {"\nflush = 4\n": '\nflush = "four"\n'}, "pair_plus.flush", "not a number"),
    ("pair plus a list", {"\nflush = 4\n": "\nflush = [4]\n"}, "pair_plus.flush", None),
    ("ante bonus negative", {"straight = 1\n\n# Art. 9(9)": "straight = -1\n\n# Art. 9(9)"},
     "ante_bonus.straight", "positive"),
    ("qualifier a string", {'[qualifier]\ncategory = "high_card"\nhigh_card = "Q"': 'qualifier = "Q"'},
     "qualifier", "table"),
    ("fold option not a choice", {'fold_with_pair_plus = "forfeit"': 'fold_with_pair_plus = "maybe"'},
     "options.fold_with_pair_plus", "forfeit"),
    ("fold option a bool", {'fold_with_pair_plus = "forfeit"': "fold_with_pair_plus = true"},
     "options.fold_with_pair_plus", "string"),
    # unknown categories in pay tables
    ("unknown pair plus category", {"pair = 1\n\n[options]": "pair = 1\nroyal_flush = 100\n\n[options]"},
     "pair_plus.royal_flush", "unknown hand category"),
    ("unknown ante bonus category", {"straight = 1\n\n# Art. 9(9)": "straight = 1\nfour_of_a_kind = 9\n\n# Art. 9(9)"},
     "ante_bonus.four_of_a_kind", "unknown hand category"),
    # bad ranking lists
    ("ranking misses a category", {'"pair", "high_card"]': '"high_card"]'}, "ranking", "exactly once"),
    ("ranking repeats a category", {'"pair", "high_card"]': '"pair", "pair", "high_card"]'}, "ranking", "exactly once"),
    ("ranking has an extra category", {'"pair", "high_card"]': '"pair", "high_card", "royal"]'}, "ranking",
     "exactly once"),
    ("ranking replaces a category", {'"pair", "high_card"]': '"pair", "royal"]'}, "ranking", "exactly once"),
    ("ranking empty", {'ranking = ["straight_flush", "three_of_a_kind", "straight", "flush", "pair", "high_card"]':
                       "ranking = []"}, "ranking", "exactly once"),
    # bad qualifier
    ("qualifier rank Z", {'high_card = "Q"': 'high_card = "Z"'}, "qualifier.high_card", "not a card rank"),
    ("qualifier rank 1", {'high_card = "Q"': 'high_card = "1"'}, "qualifier.high_card", "not a card rank"),
    ("qualifier rank 11", {'high_card = "Q"': "high_card = 11"}, "qualifier.high_card", "not a card rank"),
    ("qualifier rank two letters", {'high_card = "Q"': 'high_card = "QK"'}, "qualifier.high_card", "not a card rank"),
    ("qualifier category unknown", {'category = "high_card"': 'category = "queen_high"'}, "qualifier.category",
     "not one of"),
    # strategy
    ("strategy two ranks", {'play_at_least = ["Q", "6", "4"]': 'play_at_least = ["Q", "6"]'},
     "strategy.play_at_least", "three ranks"),
    ("strategy bad rank", {'play_at_least = ["Q", "6", "4"]': 'play_at_least = ["Q", "6", "X"]'},
     "strategy.play_at_least", "not a card rank"),
    # the game
    ("profile of another game", {'game = "fortune3"': 'game = "wheel"'}, "game", "wheel"),
]


@pytest.mark.parametrize("name, replacements, field, message", BAD, ids=[b[0] for b in BAD])
def test_bad_profile_is_a_located_config_error(profile_file, name, replacements, field, message):
    path = profile_file(replacements)
    err = _error(path)
    text = str(err)
    assert str(path) in text, text
    if field is not None:
        assert err.where == f"{path}: {field}", text
    if message is not None:
        assert message in err.message, text
    assert "\n" not in text


@pytest.mark.parametrize(
    "entry",
    ["3", "1.5", "true", '["pair"]', "{a = 1}"],
    ids=["int", "float", "bool", "list", "table"],
)
def test_ranking_with_a_non_string_entry_is_a_config_error(profile_file, entry):
    """Regression: sorted() of a mixed list used to raise TypeError, not ConfigError."""
    path = profile_file({'"pair", "high_card"]': f'"pair", {entry}]'})
    err = _error(path)
    assert err.where == f"{path}: ranking"


def test_not_toml(profile_file):
    path = profile_file(append="\nthis is = = not toml\n")
    err = _error(path)
    assert str(path) in str(err) and "TOML" in str(err)


def test_missing_profile_file(tmp_path):
    path = tmp_path / "nope.toml"
    err = _error(path)
    assert str(path) in str(err) and "not found" in str(err)


def test_unknown_profile_name():
    with pytest.raises(ConfigError, match="no rule profile 'atlantis'"):
        load_profile("atlantis")
