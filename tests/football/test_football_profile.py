"""The football rule profile: its defaults, and located errors for bad profiles."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tablecore.errors import ConfigError
from tablesim.games.football.profile import load_profile


def test_default_profile_is_the_regulation(profile):
    assert profile.name == "macau-2003"
    assert profile.boxes == 10
    assert profile.positions[-1] == "common" and len(profile.positions) == 11
    assert profile.middle == {0, 9}
    assert profile.odd == {1, 3, 5, 7} and profile.even == {2, 4, 6, 8}
    assert profile.draws[1].upper == (1, 2, 3, 4) and profile.draws[1].lower == (5, 6, 7, 8)
    assert profile.draws[6].upper == (6, 7, 8, 1) and profile.draws[6].lower == (2, 3, 4, 5)
    assert profile.pays == {b: Decimal(p) for b, p in
                            {"upper": 1, "lower": 1, "odd": 1, "even": 1, "middle": 8}.items()}
    assert profile.commission == {"upper": Decimal("0.05"), "lower": Decimal("0.05")}
    assert all(isinstance(v, Decimal) for v in (*profile.pays.values(), *profile.commission.values()))
    assert profile.on_middle == {"middle": "win", "odd": "lose", "even": "lose", "upper": "push", "lower": "push"}


def test_a_profile_by_path_with_changed_pays(profile_file):
    path = profile_file({"middle = 8\n": "middle = 9\n", "upper = 0.05": "upper = 0.04"})
    p = load_profile(str(path))
    assert p.pays["middle"] == 9 and p.commission["upper"] == Decimal("0.04")


BAD = [
    ({"middle = 8\n": 'middle = "eight"\n'}, "pays.middle", "not a number"),
    ({"odd = 1\neven = 1\n": "odd = 1\n"}, "pays.even", "missing required key"),
    ({"middle = 8\n": "middle = 8\nmidle = 8\n"}, "pays.midle", "unknown key"),
    ({"middle = 8\n": "middle = 0\n"}, "pays.middle", "more than 0"),
    ({"upper = 0.05": "upper = 1"}, "commission.upper", "fraction below 1"),
    ({"lower = 0.05": "lower = 0.05\nmiddel = 0.05"}, "commission.middel", "unknown bet"),
    ({"K = 0\n": ""}, "card_values", "no value for rank(s) K"),
    ({"K = 0\n": "K = 10\n"}, "card_values.K", "outside 0..9"),
    ({"K = 0\n": "K = 0\nZ = 0\n"}, "card_values.Z", "not a card rank"),
    ({"middle = [0, 9]": "middle = [0, 9, 10]"}, "numbers.middle", "not a total"),
    ({"even = [2, 4, 6, 8]": "even = [2, 4, 6, 8, 9]"}, "numbers.even", "9 is already middle"),
    ({"odd = [1, 3, 5, 7]": "odd = [1, 3, 5, 7, 7]"}, "numbers.odd", "twice"),
    ({"3 = { upper = [3, 4, 5, 6]": "3 = { upper = [3, 4, 5, 9]"}, "draws.3.upper", "9 is a middle number"),
    ({"4 = { upper = [4, 5, 6, 7]": "4 = { upper = [4, 5, 6, 8]"}, "draws.4.lower", "8 is both upper and lower"),
    ({"8 = { upper": "9 = { upper"}, "draws", "numbered 1..8"),
    ({'lower = "push"': 'lower = "returned"'}, "on_middle.lower", "not one of win, lose, push"),
    ({"boxes = 10": "boxes = 0"}, "boxes", "outside 1..20"),
    ({'description = "Football card game, Despacho 41/2003"':
      'description = "Football card game, Despacho 41/2003"\ncomision = 0.05'}, "comision", "unknown key"),
]


@pytest.mark.parametrize("replacements, where, message", BAD, ids=[b[1] for b in BAD])
def test_bad_profiles_are_refused_with_a_located_error(profile_file, replacements, where, message):
    path = profile_file(replacements)
    with pytest.raises(ConfigError) as info:
        load_profile(str(path))
    err = info.value
    assert err.where == f"{path}: {where}"
    assert message in err.message


def test_a_profile_for_another_game_is_refused(profile_file):
    path = profile_file({'game = "football"': 'game = "wheel"'})
    with pytest.raises(ConfigError, match="not 'football'"):
        load_profile(str(path))


def test_an_unknown_profile_name_is_refused():
    with pytest.raises(ConfigError, match="no rule profile 'macau-1999'"):
        load_profile("macau-1999")
