"""One command line: a bare ``tablesim`` lists the commands; the game is
given as ``--game`` in every command, the first-argument form kept working."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clirun import tablesim


def test_a_bare_tablesim_lists_the_commands():
    res = tablesim()
    assert res.returncode == 0 and res.stderr == ""
    assert "Commands:" in res.stdout
    for name in ("run", "serve", "simulate", "analyze", "studio", "wallet", "platform", "audit"):
        assert f"\n  {name} " in res.stdout, name


@pytest.mark.parametrize("args", [("diagram",), ("analyze", "--json"), ("simulate", "--rounds", "50", "--workers", "1",
                                                                        "--json")])
def test_the_game_is_given_as_game_or_as_the_first_argument(args):
    command, rest = args[0], list(args[1:])
    by_option = tablesim(command, "--game", "wheel", *rest)
    by_argument = tablesim(command, "wheel", *rest)
    assert by_option.returncode == by_argument.returncode == 0, by_option.stderr
    if "--json" in rest:
        assert json.loads(by_option.stdout)["game"] == json.loads(by_argument.stdout)["game"] == "wheel"
    else:
        assert by_option.stdout == by_argument.stdout


@pytest.mark.parametrize("args, said", [
    (("diagram",), "no game given: --game fortune3, football, wheel"),
    (("diagram", "wheel", "--game", "football"), "two games given: wheel and --game football"),
])
def test_no_game_or_two_games_is_one_line(args, said):
    res = tablesim(*args)
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr.strip() == f"tablesim: error: {said}"


def test_a_misspelt_key_in_a_script_is_named_with_the_nearest_known_key(tmp_path):
    script = tmp_path / "spin.yaml"
    script.write_text("game: wheel\nrounds:\n- bets:\n  - {player: alice, spot: '1', amount: 10}\n"
                      "  spin:\n  - {segment: 0, turns: 3}\n")
    res = tablesim("script", "run", script)
    assert res.returncode == 2 and res.stderr.count("\n") == 1
    assert res.stderr.strip().endswith("round 1: spin: unknown key (nearest known key: spins, which is missing)")
    script.write_text("game: wheel\nrounds:\n- bets:\n  - {player: alice, spot: '1', amount: 10}\n"
                      "  spins:\n  - {segment: 0, turns: 3}\n  expectt: {status: settled}\n")
    res = tablesim("script", "run", script)
    assert res.returncode == 2
    assert res.stderr.strip().endswith("round 1: expectt: unknown key (nearest known key: expect)")


def test_a_misspelt_key_in_a_table_configuration_is_named_with_the_nearest_known_key(tmp_path):
    config = tmp_path / "t.toml"
    text = (Path(__file__).resolve().parents[2] / "config" / "tables" / "fortune3-mock.toml").read_text()
    config.write_text(text.replace("[table]\n", "[table]\ngamme = \"x\"\n", 1))
    res = tablesim("run", "--config", config, "--rounds", "1", "--journal", "none")
    assert res.returncode == 2 and res.stderr.count("\n") == 1
    assert "table.gamme: unknown key (nearest known key: game)" in res.stderr, res.stderr


def test_shell_completion_as_the_readme_sets_it_up_completes_commands_and_games():
    import os
    import subprocess
    import sys

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    assert 'eval "$(_TABLESIM_COMPLETE=bash_source tablesim)"' in readme

    def complete(words: str) -> list[str]:
        env = {**os.environ, "_TABLESIM_COMPLETE": "bash_complete", "COMP_WORDS": words,
               "COMP_CWORD": str(len(words.split()) - (0 if words.endswith(" ") else 1))}
        out = subprocess.run([sys.executable, "-m", "tablesim.cli.main"], env=env, capture_output=True, text=True,
                             timeout=60)
        return [line.split(",", 1)[1] for line in out.stdout.splitlines()]

    assert complete("tablesim ana") == ["analyze"]
    assert complete("tablesim diagram --game ") == ["fortune3", "football", "wheel"]
