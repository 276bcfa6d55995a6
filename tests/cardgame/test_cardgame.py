"""A card game is one folder on the engine's card-table kit plus one entry point.

``baccarette/`` is a game tablesim knows nothing of: two hands from a shoe
with a reader, three bets, a comparison and a tie rule. It is registered
only by ``site/baccarette-0.1.dist-info/entry_points.txt``; through it the
real CLI runs a mock table (with a journal that verifies), scripted rounds,
a simulation held against the exact analysis, and the kit's default console
plays its round in Chromium.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

from browser import needs_chromium, until
from gamehost import pythonpath, served_game

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent


def tablesim(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "200", "XDG_DATA_HOME": str(cwd / "data"), "PYTHONPATH": pythonpath("baccarette")}
    return subprocess.run([sys.executable, "-m", "tablesim.cli.main", *args], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=120)


def test_the_folder_is_the_games_own_parts_on_the_kit():
    """What the page says a card game needs, and no more: the kit gives the
    rest (mock table, console, configured settings, analysis text)."""
    assert sorted(p.name for p in (HERE / "baccarette").glob("*.py")) == [
        "__init__.py", "analysis.py", "dealer.py", "game.py", "script.py", "spec.py", "table.py"]
    assert sorted(p.name for p in (HERE / "baccarette" / "i18n").iterdir()) == ["en.po", "pt.po", "zh-Hant.po"]
    table = (HERE / "baccarette" / "table.py").read_text(encoding="utf-8")
    assert "class BaccaretteTable(CardTable)" in table and "def on_device_event" not in table


def test_run_mock_with_a_journal_that_verifies(tmp_path):
    journal = tmp_path / "b.journal.sqlite"
    out = tablesim("run", "--game", "baccarette", "--mock", "--seed", "5", "--rounds", "5", "--decks", "1",
                   "--journal", str(journal), cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("Baccarette, 1 deck(s), mock devices, seed 5")
    assert "5 round(s) played" in out.stdout
    audit = tablesim("audit", "verify", "--journal", str(journal), cwd=tmp_path)
    assert audit.returncode == 0, audit.stdout + audit.stderr
    history = tablesim("history", "--journal", str(journal), "--json", cwd=tmp_path)
    rounds = [json.loads(line) for line in history.stdout.splitlines()]
    assert len(rounds) == 5 and {r["game"] for r in rounds} == {"baccarette"}
    again = tablesim("run", "--game", "baccarette", "--mock", "--seed", "5", "--rounds", "1", "--decks", "1",
                     "--journal", str(journal), cwd=tmp_path)  # the journal recovers, the table goes on
    assert again.returncode == 0, again.stderr
    assert "BCT-MOCK-000006" in again.stdout
    refused = tablesim("run", "--game", "baccarette", "--mock", "--decks", "9", cwd=tmp_path)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr


def test_scripted_rounds_the_comparison_and_the_tie_rule(tmp_path):
    script = tmp_path / "b.yaml"
    script.write_text(
        "game: baccarette\n"
        "table: {decks: 1}\n"
        "rounds:\n"
        "  - bets: {1: {player: 10}, 2: {tie: 5}}\n"
        "    cards: [9S, 2H, KD, 3C]\n"  # player 9, banker 5
        "    expect: {net: {'1': '10', '2': '-5'}, outcome: {winner: player}}\n"
        "  - bets: {3: {banker: 20, player: 4}, 4: {tie: 2}}\n"
        "    cards: [AS, TD, 6H, 7C]\n"  # 7 and 7: a tie, the player and banker bets lose half
        "    expect: {net: {'3': '-12', '4': '16'}, outcome: {winner: tie}}\n"
        "  - bets: {5: {banker: 3}}\n"
        "    cards: [AS, AS, 5H, 5C]\n"  # the ace of spades twice from one deck: a duplicate, void
        "    expect: {status: void, void_reason: duplicate_card}\n", encoding="utf-8")
    out = tablesim("script", "run", str(script), "--json", cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    rounds = [json.loads(line) for line in out.stdout.splitlines()]
    assert [r["net"] for r in rounds[:2]] == [{"1": "10", "2": "-5"}, {"3": "-12", "4": "16"}]
    assert rounds[2]["status"] == "void"
    short = script.read_text(encoding="utf-8").replace("[9S, 2H, KD, 3C]", "[9S, 2H, KD]")
    script.write_text(short, encoding="utf-8")
    failed = tablesim("script", "run", str(script), cwd=tmp_path)
    assert failed.returncode != 0 and "Traceback" not in failed.stderr


def test_simulation_holds_to_the_exact_analysis(tmp_path):
    out = tablesim("simulate", "baccarette", "--rounds", "3000", "--workers", "1", "--seed", "3", "--decks", "1",
                   "--json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert set(report["bets"]) == {"player", "banker", "tie"}
    assert all(bet["inside999"] for bet in report["bets"].values())
    analysis = json.loads(tablesim("analyze", "baccarette", "--decks", "1", cwd=tmp_path).stdout)
    assert analysis["bets"]["tie"]["exact"] == "-29528/270725"
    assert report["bets"]["tie"]["exact"] == analysis["bets"]["tie"]["return"]
    chance = analysis["chance"]
    assert abs(sum(chance.values()) - 1) < 1e-12 and chance["player"] == chance["banker"]


def test_the_default_mock_takes_the_games_decks(monkeypatch):
    with served_game(monkeypatch, "baccarette", serve=False) as rig:
        assert rig.table.pack.decks == 6 and rig.source is rig.table.shoe.source
    from tablesim.games.rig import mock_rig

    with served_game(monkeypatch, "baccarette", serve=False):
        rig = mock_rig("baccarette", seed=1, options={"decks": 2})
        table = rig.table
        table.open_round()
        table.place_bet("1", "tie", Decimal(1))
        table.close_betting()
        table.deal()
        table.pump((table.state,))
        assert table.result.status == "settled"
        assert rig.source.remaining() == 2 * 52 - 4  # the mock shoe loaded the table's two decks


@needs_chromium
def test_a_dealer_plays_a_round_on_the_default_console(page, monkeypatch):
    with served_game(monkeypatch, "baccarette") as s:
        b = page
        b.goto(f"{s.url}/#token={s.dealer}")
        until(b, "document.body.dataset.live === '1' && document.body.dataset.state === 'idle'")
        b.click("#act-open_round")
        until(b, "document.body.dataset.state === 'betting_open'")
        b.click('[data-chip="10"]')
        b.click('[data-pos="2"][data-bet="banker"]')
        until(b, "document.querySelector('[data-pos=\"2\"][data-bet=\"banker\"] .amt').textContent === '10'")
        b.click("#act-close_betting")
        until(b, "document.body.dataset.state === 'bets_closed'")
        b.click("#act-deal")  # the kit's button for the game's own action; the mock shoe deals
        until(b, "document.body.dataset.state === 'complete' && !!document.querySelector('#result')")
        result = s.state()["result"]
        assert result["status"] == "settled" and result["outcome"]["winner"] in ("player", "banker", "tie")
        net = result["net"]["2"]
        shown = b.evaluate("document.querySelector('[data-net=\"2\"]').textContent")
        assert shown == (net if net.startswith("-") or net == "0" else "+" + net)
        assert b.errors.real() == []
