"""The command line end to end: scripts (exit 0/1/2), analysis, mock table, diagram."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest
from click.testing import CliRunner

from tablesim.cli.main import cli

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = sorted((ROOT / "scripts").glob("wheel*.yaml"))
BAD = ROOT / "tests" / "wheel" / "bad"


def run(*args):
    return CliRunner().invoke(cli, list(args))


def error_lines(result):
    """What the user sees on standard error, without the JSON log lines."""
    return [line for line in result.stderr.splitlines() if not line.startswith("{")]


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_every_wheel_script_passes(path):
    result = run("script", "run", str(path))
    assert result.exit_code == 0, result.output
    assert "0 expectation mismatch(es)" in result.stdout
    assert "[EXPECTATION FAILED]" not in result.stdout


def test_the_scripts_cover_every_symbol_no_spins_voids_and_incidents():
    result = run("script", "run", "--json", *map(str, SCRIPTS))
    assert result.exit_code == 0
    rounds = [json.loads(line) for line in result.stdout.splitlines()]
    settled = [r for r in rounds if r["status"] == "settled"]
    won = {
        r["outcome"]["symbol"]
        for r in settled
        for per in r["results"].values()
        if Decimal(per.get(r["outcome"]["symbol"], "0")) > 0
    }
    assert won == {"1", "3", "5", "10", "20", "joker", "logo"}
    assert any(r["outcome"]["no_spins"] >= 2 for r in settled)
    assert any(r["status"] == "void" and r["void_reason"] == "sensor_fault" for r in rounds)
    assert any("incidents" in r["outcome"] for r in settled)
    assert any(len(r["results"]) >= 3 for r in settled)


def test_json_lines_follow_the_spec():
    result = run("script", "run", "--json", str(ROOT / "scripts" / "wheel.yaml"))
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert len(lines) == 8
    first = json.loads(lines[0])
    assert first == {
        "file": str(ROOT / "scripts" / "wheel.yaml"), "round": 1, "game": "wheel", "status": "settled",
        "void_reason": None, "outcome": {"segment": 9, "symbol": "5", "no_spins": 2},
        "results": {
            "alice": {"joker": "-2", "logo": "-1"},
            "bob": {"logo": "-25", "10": "-10", "1": "-10"},
            "carol": {"3": "-2", "joker": "-5", "10": "-5"},
            "erin": {"10": "-1", "joker": "-10", "3": "-10"},
        },
        "net": {"alice": "-3", "bob": "-45", "carol": "-12", "erin": "-21"},
        # what each player had at risk: their bets
        "stakes": {
            "alice": {"joker": "2", "logo": "1"},
            "bob": {"logo": "25", "10": "10", "1": "10"},
            "carol": {"3": "2", "joker": "5", "10": "5"},
            "erin": {"10": "1", "joker": "10", "3": "10"},
        },
    }


def test_a_failed_expectation_exits_1(tmp_path):
    path = tmp_path / "wrong.yaml"
    path.write_text(
        "game: wheel\nrounds:\n- bets:\n  - {player: ann, spot: '5', amount: 2}\n"
        "  spins:\n  - {segment: 3, turns: 4}\n"
        "  expect:\n    outcome: {no_spins: 1}\n    results: {ann: {'5': '12'}}\n",
        encoding="utf-8",
    )
    result = run("script", "run", str(path))
    assert result.exit_code == 1
    assert "outcome.no_spins: expected 1, got 0" in result.stdout
    assert "results.ann.5: expected 12, got 10" in result.stdout


BAD_CASES = {
    "segment_out_of_range.yaml": ("round 1: spins[0].segment", "52 is outside 0..51"),
    "negative_turns.yaml": ("round 2: spins[0].turns", "negative"),
    "unknown_spot.yaml": ("round 1: bets[1].spot", "unknown spot 'tiger'"),
    "zero_amount.yaml": ("round 1: bets[0].amount", "must be positive"),
    "negative_amount.yaml": ("round 1: bets[0].amount", "must be positive"),
    "no_valid_spin.yaml": ("round 1: spins", "no valid spin"),
    "unused_spins.yaml": ("round 1: spins[2]", "left unused"),
    "layout_51.yaml": ("table.layout", "has 51 segment(s); the wheel has exactly 52"),
    "spins_after_fault.yaml": ("round 1: spins[0]", "never spun"),
    "unknown_key.yaml": ("round 1: spins[0].segmnet", "unknown key"),
    "unknown_fault.yaml": ("round 1: faults[0].fault", "'jam' is not one of"),
}


def test_every_bad_example_is_covered():
    assert {p.name for p in BAD.glob("*.yaml")} == set(BAD_CASES)


@pytest.mark.parametrize("name", sorted(BAD_CASES))
def test_a_bad_script_exits_2_with_one_line_naming_file_round_and_field(name):
    where, message = BAD_CASES[name]
    path = BAD / name
    result = run("script", "run", str(path))
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = error_lines(result)
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"tablesim: error: invalid script: {path}: {where}: ")
    assert message in lines[0]
    assert "Traceback" not in result.output


def test_analyze_wheel_prints_exact_figures():
    result = run("analyze", "wheel", "--json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    expected = {
        "1": "-0.076923", "3": "-0.076923", "5": "-0.076923", "10": "-0.153846",
        "20": "-0.192308", "joker": "-0.115385", "logo": "-0.115385",
    }
    assert {k: v["expected_return_decimal"] for k, v in data["symbols"].items()} == expected
    assert data["symbols"]["20"]["expected_return"] == "-5/26"
    assert data["symbols"]["joker"]["probability"] == "1/52"
    text = run("analyze", "wheel")
    assert text.exit_code == 0
    assert "-3/26" in text.stdout and "-0.192308" in text.stdout and "19.231%" in text.stdout


def test_analyze_wheel_refuses_decks():
    result = run("analyze", "wheel", "--decks", "2")
    assert result.exit_code == 2
    assert "decks" in result.stderr


def test_mock_table_runs_and_summarises():
    result = run("run", "--game", "wheel", "--mock", "--rounds", "40", "--seed", "3", "--journal", "none")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "seed 3" in out
    assert out.count("WHEEL-MOCK-0000") >= 40
    assert "no spin" in out
    assert "hold per symbol" in out and "all" in out
    assert "40 round(s) played" in out
    again = run("run", "--game", "wheel", "--mock", "--rounds", "40", "--seed", "3", "--journal", "none")
    assert again.stdout == out  # a seed reproduces the session


def test_mock_table_refuses_dealing_options():
    result = run("run", "--game", "wheel", "--mock", "--dealing", "shoe", "--journal", "none")
    assert result.exit_code == 2


def test_diagram():
    result = run("diagram", "wheel")
    assert result.exit_code == 0
    assert result.stdout.startswith("stateDiagram-v2")
    assert "spinning --> result: spin_counted" in result.stdout
