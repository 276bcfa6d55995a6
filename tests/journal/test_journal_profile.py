"""The rule profile is part of the record.

Each round's first record names the profile (its name and the SHA-256 of
its canonical content: the rules, not the name, description or layout of
the file); ``history`` shows them; a round begun under one profile is never
resumed under another; a profile whose rules differ from a built-in
regulation's must carry its own name; and pays are bounded to sane ranges.
"""

from __future__ import annotations

import pytest

from drivers.mock import MockShoe, ScriptedCards
from tablecore.cards import parse_dealt
from tablecore.errors import ConfigError, InputError
from tablesim.games.football.profile import load_profile as load_football
from tablesim.games.fortune3.profile import load_profile as load_f3
from tablesim.games.fortune3.profile import Fortune3Settings
from tablesim.games.fortune3.table import Fortune3Table
from tablesim.games.wheel.profile import load_profile as load_wheel
from tablesim.journal.attach import attach_and_recover
from tablesim.profiles import config_root, profile_sha256, profile_stamp

RULES = config_root() / "rules"
SHOE = "AS 9D 2C KS AH TD 2D QC".split()


def profile_file(tmp_path, game_file: str, *edits: tuple[str, str], name: str = "p.toml"):
    text = (RULES / game_file).read_text(encoding="utf-8")
    for old, new in edits:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def f3_table(path, profile):
    shoe = MockShoe(ScriptedCards(parse_dealt(c) for c in SHOE))
    table = Fortune3Table(profile, Fortune3Settings(dealing="shoe"), shoe=shoe, table_id="F3P")
    report = attach_and_recover(table, str(path))
    return table, report


def test_each_round_names_its_profile_and_history_shows_it(tmp_path, run_cli, jrows):
    path = tmp_path / "f3.sqlite"
    assert run_cli("run", "--game", "fortune3", "--mock", "--rounds", "2", "--seed", "1", "--quiet",
                   "--journal", path).code == 0
    stamp = {"name": "macau-2008", "sha256": profile_sha256(load_f3())}
    firsts = [r for r in jrows(path) if (r["kind"], r["name"]) == ("meta", "round")]
    assert [r["round_id"] for r in firsts] == ["F3-MOCK-000001", "F3-MOCK-000002"]
    assert all(r["data"]["profile"] == stamp for r in firsts)
    # the first record of a round is its first: nothing of the round comes before it
    for r in firsts:
        assert min(x["seq"] for x in jrows(path, r["round_id"])) == r["seq"]
    res = run_cli("history", "--journal", path, "--json")
    assert [r["profile"] for r in res.json_lines()] == [stamp, stamp]
    res = run_cli("history", "--journal", path, "--last", "1")
    assert f"profile: macau-2008 (sha256 {stamp['sha256']})" in res.out


def test_the_content_hash_is_the_rules_not_the_text(tmp_path):
    same = profile_file(tmp_path, "fortune3-macau-2008.toml",
                        ('description = "', 'description = "(copied) '), ("ante = 1\n", "ante = 1.00  # the same\n"))
    assert profile_sha256(load_f3(str(same))) == profile_sha256(load_f3())
    other = profile_file(tmp_path, "fortune3-macau-2008.toml", ('name = "macau-2008"', 'name = "house"'),
                         ("\nflush = 4\n", "\nflush = 3\n"), name="o.toml")
    assert profile_stamp(load_f3(str(other))) == {"name": "house", "sha256": profile_sha256(load_f3(str(other)))}
    assert profile_sha256(load_f3(str(other))) != profile_sha256(load_f3())


def test_a_round_is_never_resumed_under_another_profile(tmp_path, jrows):
    path = tmp_path / "f3.sqlite"
    table, _ = f3_table(path, load_f3())
    table.open_round()
    table.place_bet("1", "ante", 100)
    del table  # power loss with the round open
    count = len(jrows(path))
    house = load_f3(str(profile_file(tmp_path, "fortune3-macau-2008.toml", ('name = "macau-2008"', 'name = "house"'),
                                     ("\nflush = 4\n", "\nflush = 3\n"))))
    with pytest.raises(InputError) as info:
        f3_table(path, house)
    text = str(info.value)
    assert "round F3P-000001 began under rule profile 'macau-2008'" in text and "this table runs 'house'" in text
    assert len(jrows(path)) == count  # nothing written
    # under its own profile the round resumes, bet and all
    table, report = f3_table(path, load_f3())
    assert report.action == "resume" and table.book.snapshot() == {"1": {"ante": "100"}}


@pytest.mark.parametrize("game_file, load, edit, key", [
    ("fortune3-macau-2008.toml", load_f3, ("play = 1\n", "play = 2\n"), "pays.play"),
    ("fortune3-macau-2008.toml", load_f3, ("\nflush = 4\n", "\nflush = 3\n"), "pair_plus.flush"),
    ("football-macau-2003.toml", load_football, ("middle = 8\n", "middle = 9\n"), "pays.middle"),
    ("wheel-macau-2003.toml", load_wheel, ("min_turns = 3", "min_turns = 4"), "min_turns"),
])
def test_a_built_in_name_with_other_rules_is_refused(game_file, load, edit, key, tmp_path):
    path = profile_file(tmp_path, game_file, edit)
    with pytest.raises(ConfigError) as info:
        load(str(path))
    assert info.value.where == f"{path}: name"
    assert "built-in" in info.value.message and f"({key})" in info.value.message
    # the same rules under the built-in name (a copy) are fine
    assert load(str(profile_file(tmp_path, game_file, name="copy.toml"))).name.startswith("macau-")


@pytest.mark.parametrize("game_file, load, old, key", [
    ("fortune3-macau-2008.toml", load_f3, "play = 1\n", "pays.play"),
    ("fortune3-macau-2008.toml", load_f3, "\nflush = 4\n", "pair_plus.flush"),
    ("fortune3-macau-2008.toml", load_f3, "straight_flush = 5\n", "ante_bonus.straight_flush"),
    ("football-macau-2003.toml", load_football, "middle = 8\n", "pays.middle"),
    ("wheel-macau-2003.toml", load_wheel, "segments = 2\npays = 20", 'symbols.20.pays'),
])
@pytest.mark.parametrize("value", ["1e300", "1e-30", "100000"])
def test_pays_out_of_a_sane_range_are_refused_with_the_key_named(game_file, load, old, key, value, tmp_path, run_cli):
    lead = "\n" if old.startswith("\n") else ""
    new = old.replace(old.strip().split(" = ")[-1], value) if "segments" not in old else old.replace("pays = 20",
                                                                                                   f"pays = {value}")
    path = profile_file(tmp_path, game_file, (old, lead + new.lstrip("\n")), ('name = "macau-', 'name = "house-'))
    with pytest.raises(ConfigError) as info:
        load(str(path))
    assert key in str(info.value) and "sane" in str(info.value)
    game = game_file.split("-")[0]
    res = run_cli("run", "--game", game, "--mock", "--rounds", "1", "--profile", path, "--journal", "none")
    assert res.code == 2 and len(res.err_lines) == 1 and key in res.err


def test_a_commission_out_of_range_is_refused(tmp_path):
    path = profile_file(tmp_path, "football-macau-2003.toml", ("upper = 0.05", "upper = 1e-30"),
                        ('name = "macau-', 'name = "house-'))
    with pytest.raises(ConfigError, match="commission.upper"):
        load_football(str(path))


@pytest.mark.parametrize("name, why", [
    ("macau-2008 ", "must be 1 to 40"),  # a trailing space: shown as "macau-2008"
    ("macau\u20102008", "must be 1 to 40"),  # a look-alike hyphen
    ("macau-2008\\u001b[0m", "must be 1 to 40"),  # (a TOML escape: an escape sequence)
    ("MACAU-2008", "built-in"),  # another case of the regulation's name
])
def test_a_profile_cannot_pass_for_a_regulation_by_its_name(name, why, tmp_path, run_cli):
    """Other pays under a name that reads as the regulation's are refused."""
    path = profile_file(tmp_path, "fortune3-macau-2008.toml", ("\npair = 1\n", "\npair = 2\n"),
                        ('name = "macau-2008"', f'name = "{name}"'))
    with pytest.raises(ConfigError) as info:
        load_f3(str(path))
    assert info.value.where == f"{path}: name" and why in info.value.message
    res = run_cli("run", "--game", "fortune3", "--mock", "--rounds", "1", "--profile", path, "--journal", "none")
    assert res.code == 2 and len(res.err_lines) == 1 and "name" in res.err
