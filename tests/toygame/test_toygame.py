"""A game is one folder plus one entry point.

``coin/`` here is a fourth game that tablesim knows nothing of: it is
registered only by ``site/coin-0.1.dist-info/entry_points.txt`` (group
``tablesim.games``), found when both folders are on the path, exactly as
an installed package's would be. Through it the real CLI runs a mock table,
scripted rounds and a simulation, with no file of tablesim touched.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

from gamehost import option_refusal

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent


def tablesim(*args: str, toy: bool = True, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "200", "XDG_DATA_HOME": str(cwd / "data")}
    if toy:
        env["PYTHONPATH"] = os.pathsep.join([str(HERE), str(HERE / "site"), env.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-m", "tablesim.cli.main", *args], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=120)


def test_the_toy_game_is_known_only_through_its_entry_point(tmp_path):
    from tablesim.games import registry

    installed = registry.names()  # (the built-in games, and any a package installed)
    with_toy = tablesim("run", "--help", cwd=tmp_path)
    assert "|".join([*installed, "coin"]) in with_toy.stdout.replace("\n", "").replace(" ", "")
    without = tablesim("run", "--game", "coin", "--mock", toy=False, cwd=tmp_path)
    assert without.returncode == 2
    assert f"'coin' is not one of {', '.join(map(repr, installed))}" in without.stderr


def test_run_mock_plays_the_toy_game(tmp_path):
    out = tablesim("run", "--game", "coin", "--mock", "--seed", "4", "--rounds", "6", "--journal", "none",
                   cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("Coin toss, mock devices, seed 4")
    assert out.stdout.count("COIN-MOCK-0000") == 6
    assert "6 round(s) played (0 void)" in out.stdout
    again = tablesim("run", "--game", "coin", "--mock", "--seed", "4", "--rounds", "6", "--journal", "none",
                     cwd=tmp_path)
    assert again.stdout == out.stdout  # the seed replays the session
    refused = tablesim("run", "--game", "coin", "--mock", "--decks", "2", cwd=tmp_path)
    assert refused.returncode == 2
    assert option_refusal("decks", "coin") in refused.stderr


def test_run_mock_with_a_journal_recovers_nothing_twice(tmp_path):
    journal = tmp_path / "coin.journal.sqlite"
    first = tablesim("run", "--game", "coin", "--mock", "--seed", "1", "--rounds", "3", "--quiet",
                     "--journal", str(journal), cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    audit = tablesim("audit", "verify", "--journal", str(journal), cwd=tmp_path)
    assert audit.returncode == 0, audit.stdout + audit.stderr
    history = tablesim("history", "--journal", str(journal), "--json", cwd=tmp_path)
    rounds = [json.loads(line) for line in history.stdout.splitlines()]
    assert [r["status"] for r in rounds] == ["settled"] * 3
    assert {r["game"] for r in rounds} == {"coin"}


def test_script_run_plays_the_toy_game(tmp_path):
    script = tmp_path / "coin.yaml"
    script.write_text(
        "game: coin\n"
        "rounds:\n"
        "  - bets: {1: {heads: 20}, 2: {tails: 10}}\n"
        "    side: heads\n"
        "    expect: {net: {'1': '19', '2': '-10'}}\n"
        "  - bets: {3: {tails: 4}}\n"
        "    side: tails\n"
        "    expect: {net: {'3': '3.8'}, outcome: {side: tails}}\n", encoding="utf-8")
    out = tablesim("script", "run", str(script), "--json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    rounds = [json.loads(line) for line in out.stdout.splitlines()]
    assert [r["net"] for r in rounds] == [{"1": "19", "2": "-10"}, {"3": "3.8"}]
    wrong = script.read_text(encoding="utf-8").replace("'3.8'", "'4'")
    script.write_text(wrong, encoding="utf-8")
    failed = tablesim("script", "run", str(script), cwd=tmp_path)
    assert failed.returncode == 1
    assert "expected 4, got 3.8" in failed.stdout


def test_simulate_measures_the_toy_game_against_its_exact_figure(tmp_path):
    out = tablesim("simulate", "coin", "--rounds", "4000", "--workers", "1", "--seed", "3", "--json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["game"] == "coin" and report["rounds"] == 4000
    assert set(report["bets"]) == {"heads", "tails"}
    for bet in report["bets"].values():
        assert bet["exact"] == -0.025
        assert bet["inside999"]
    # a box on both sides loses exactly the commission on the winning one: 0.05 a round
    total = sum(Decimal(b["returned"]) for b in report["bets"].values())
    assert total == Decimal("-0.05") * 3 * 4000
    assert report["shoe_state"] == "a fair coin, tossed from the table's seeded generator"
    analysis = tablesim("analyze", "coin", cwd=tmp_path)  # (the kit's plain rendering: the analysis as JSON)
    assert json.loads(analysis.stdout)["bets"]["heads"] == {"return": -0.025, "exact": "-1/40"}
    diagram = tablesim("diagram", "coin", cwd=tmp_path)
    assert "betting_open --> bets_closed" in diagram.stdout.replace(": close_betting", "")


def test_the_toy_game_is_one_folder_of_its_own_parts_and_the_kit_does_the_rest(monkeypatch):
    """The folder holds only what is the coin game's own; the kit's defaults
    give it a mock table (through the device registry), a console with the
    engine's buttons, a configured table's settings and an analysis text."""
    from tablecore.errors import ConfigError
    from tablecore.validate import Reader
    from tablesim.games import registry
    from tablesim.games.gamespec import DEFAULTS
    from tablesim.games.rig import mock_rig

    monkeypatch.syspath_prepend(str(HERE / "site"))
    monkeypatch.syspath_prepend(str(HERE))
    registry.refresh()
    try:
        spec = registry.spec("coin")
        assert sorted(p.name for p in (HERE / "coin").glob("*.py")) == [
            "__init__.py", "analysis.py", "dealer.py", "game.py", "script.py", "spec.py", "table.py"]
        assert not set(spec.parts) & {"mock", "console", "config_settings", "render_analysis", "devices", "diagram"}
        assert set(spec.required) <= set(spec.parts) and set(DEFAULTS).isdisjoint(spec.required)

        rig = mock_rig("coin", seed=5)
        table = rig.table
        assert table.table_id == "COIN-MOCK" and rig.rng is not None
        console = spec.part("console")(table, rig)
        assert console.layout() == {"kind": "boxes", "positions": ["1", "2", "3"], "bets": ["heads", "tails"],
                                    "bet_labels": {"heads": "heads", "tails": "tails"}}
        buttons = console.actions()
        assert [n for n in buttons] == ["open_round", "close_betting", "toss_heads", "toss_tails"]
        assert buttons["open_round"].describe()["enabled"] and not buttons["close_betting"].describe()["enabled"]
        buttons["open_round"].run(None)
        assert table.state.value == "betting_open" and buttons["close_betting"].describe()["enabled"]
        first_round = table.round
        table.place_bet("1", "heads", Decimal(5))
        buttons["close_betting"].run(None)
        table.toss("heads")
        assert table.result.net == {"1": Decimal("4.75")}
        buttons["open_round"].run(None)
        assert table.round is not first_round and table.side is None  # a new round's state, not the last one's

        read = spec.part("config_settings")
        assert read(spec.load_profile(), Reader({}, "table"), None).limits.by_bet["heads"].maximum == 100
        try:
            read(spec.load_profile(), Reader({}, "table"), Reader({"heads": {}}, "limits", file="coin.toml"))
        except ConfigError as exc:
            assert str(exc) == "coin.toml: limits: the coin table takes no limits of its own (its defaults apply)"
        else:
            raise AssertionError("a configured coin table took limits")
    finally:
        registry.refresh()
