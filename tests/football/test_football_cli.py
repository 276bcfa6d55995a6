"""The command line end to end: scripts (exit 0/1/2), mock table, analysis, diagram."""

from __future__ import annotations

import hashlib
import json
from decimal import Decimal
from pathlib import Path

import pytest
from click.testing import CliRunner

from tablesim.cli.main import cli

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = sorted((ROOT / "scripts").glob("football-*.yaml"))
BAD = Path(__file__).resolve().parent / "bad"


def run(*args):
    return CliRunner().invoke(cli, list(map(str, args)))


def error_lines(result):
    """What the user sees on standard error, without the JSON log lines."""
    return [line for line in result.stderr.splitlines() if not line.startswith("{")]


#: the format's examples, byte for byte as the format was given with them (their SHA-256)
EXAMPLES = {
    "football-1deck.yaml": "672ba7cddcc8497581df615470b47282dfb385595e17d41e1ebe72a3019f4edd",
    "football-6deck.yaml": "a600c6270285452a106cc7c6518eb765fb05048aaa088ab0e7554a9162dea05e",
}


def test_the_formats_examples_are_there_unchanged():
    for name, digest in EXAMPLES.items():
        assert hashlib.sha256((ROOT / "scripts" / name).read_bytes()).hexdigest() == digest, name


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_every_football_script_passes(path):
    result = run("script", "run", path)
    assert result.exit_code == 0, result.output
    assert "0 expectation mismatch(es)" in result.stdout
    assert "[EXPECTATION FAILED]" not in result.stdout


def _rounds():
    result = run("script", "run", "--json", *SCRIPTS)
    assert result.exit_code == 0
    return [json.loads(line) for line in result.stdout.splitlines()]


def test_json_lines_follow_the_spec():
    result = run("script", "run", "--json", ROOT / "scripts" / "football-1deck.yaml")
    lines = result.stdout.splitlines()
    assert len(lines) == 8
    first = json.loads(lines[0])
    # the spec's fields in the spec's order; a settled round's stakes added after them
    assert list(first) == ["file", "round", "game", "status", "void_reason", "outcome", "results", "net", "stakes"]
    assert first["stakes"]["2"] == {"lower": "1", "upper": "100"}  # what box 2 had at risk
    assert first["game"] == "football" and first["round"] == 1 and first["status"] == "settled"
    assert first["outcome"]["draw"] == 6
    assert first["outcome"]["upper"] == [6, 7, 8, 1] and first["outcome"]["lower"] == [2, 3, 4, 5]
    assert first["outcome"]["boxes"]["5"] == {"cards": ["TC", "QH", "TD"], "total": 0}
    assert first["results"]["2"] == {"lower": "0.95", "upper": "-100"}
    assert first["net"]["2"] == "-99.05"


def test_the_scripts_cover_every_settlement_branch():
    rounds = _rounds()
    seen = set()
    for r in rounds:
        if r["status"] == "void":
            seen.add(("void", r["void_reason"]))
            assert r["results"] == {} and r["net"] == {}
            continue
        boxes = r["outcome"]["boxes"]
        assert list(boxes)[-1] == "common"  # dealt in every round, last
        if "common" not in r["results"]:
            seen.add(("common dealt without bets",))
        for box, info in boxes.items():
            if any(c.endswith("^") for c in info["cards"]):
                seen.add(("exposed",))
            for bet, value in r["results"].get(box, {}).items():
                v = Decimal(value)
                outcome = "win" if v > 0 else "lose" if v < 0 else "push"
                seen.add((bet, outcome, "middle" if info["total"] in (0, 9) else "1-8"))
                if bet in ("upper", "lower") and v > 0 and v != v.to_integral_value():
                    seen.add(("commission",))  # a 1:1 win on a whole stake, less 5%
    expected = {
        ("middle", "win", "middle"), ("middle", "lose", "1-8"),
        ("odd", "lose", "middle"), ("even", "lose", "middle"),
        ("upper", "push", "middle"), ("lower", "push", "middle"),
        ("upper", "win", "1-8"), ("upper", "lose", "1-8"), ("lower", "win", "1-8"), ("lower", "lose", "1-8"),
        ("odd", "win", "1-8"), ("odd", "lose", "1-8"), ("even", "win", "1-8"), ("even", "lose", "1-8"),
        ("commission",), ("exposed",), ("common dealt without bets",),
        ("void", "display_fault"), ("void", "duplicate_card"), ("void", "misread"),
    }
    assert expected <= seen, expected - seen
    finals = {info["total"] for r in rounds if r["status"] == "settled"
              for info in r["outcome"]["boxes"].values() if len(info["cards"]) == 3}
    assert {0, 9} <= finals and finals - {0, 9}  # third cards ending on middle and on 1-8


BAD_FILES = {
    "draw-out-of-range.yaml": ("round 2: draw", "9 is outside 1..8"),
    "box-11.yaml": ("round 1: bets.11", "box '11' does not exist"),
    "unknown-bet.yaml": ("round 1: bets.common.uper", "unknown bet"),
    "third-card-not-due.yaml": ("round 1: cards", "1 card(s) left unused (9H)"),
    "too-few-cards.yaml": ("round 1: cards", "too few cards: the deal needs 5"),
    "too-few-pairs.yaml": ("round 1: cards", "too few cards"),
    "bad-card.yaml": ("round 1: cards[3]", "'1C' is not a card"),
    "bad-amount.yaml": ("round 1: bets.1.odd", "must be positive"),
    "too-many-decks.yaml": ("table.decks", "9 is outside 1..8"),
    "unknown-fault.yaml": ("round 1: faults[0].fault", "'jam' is not one of"),
    "no-mismatch.yaml": ("round 1: faults[0].shown", "no mismatch"),
    "unknown-round-key.yaml": ("round 1: bet", "unknown key (nearest known key: bets, which is missing)"),
    # the table's unit, and amounts refused before any arithmetic
    "off-unit.yaml": ("round 1: bets.1.odd", "12 is not a whole multiple of the table's betting unit 5"),
    "exponent-amount.yaml": ("round 1: bets.1.odd", "'1e1000000' is written with an exponent"),
    "exponent-float-amount.yaml": ("round 1: bets.1.odd", "'1.0e+1000000' is written with an exponent"),
    "underscore-amount.yaml": ("round 1: bets.1.odd", "'1_000' has an underscore"),
    "arabic-digits-amount.yaml": ("round 1: bets.1.odd", "other than the ASCII digits"),
    "fullwidth-digits-amount.yaml": ("round 1: bets.1.odd", "other than the ASCII digits"),
    "too-fine-amount.yaml": ("round 1: bets.1.odd", "too fine: at most 12 digits after the point"),
    "too-large-amount.yaml": ("round 1: bets.1.odd", "too large: at most 12 digits before the point"),
}


def test_every_bad_file_is_tested():
    assert {p.name for p in BAD.glob("*.yaml")} == set(BAD_FILES)


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_bad_scripts_exit_2_with_one_located_line(name):
    path = BAD / name
    result = run("script", "run", path)
    assert result.exit_code == 2
    assert result.stdout == ""  # nothing played, nothing settled
    lines = error_lines(result)
    assert len(lines) == 1
    where, message = BAD_FILES[name]
    assert lines[0].startswith(f"tablesim: error: invalid script: {path}: {where}: ")
    assert message in lines[0]
    assert "Traceback" not in result.stderr


def test_a_bad_file_after_a_good_one_still_exits_2():
    result = run("script", "run", "--json", ROOT / "scripts" / "football-branches.yaml", BAD / "box-11.yaml")
    assert result.exit_code == 2


def test_a_failed_expectation_exits_1(tmp_path):
    path = tmp_path / "wrong.yaml"
    path.write_text(
        "game: football\nrounds:\n- draw: 1\n  bets: {4: {lower: 10}}\n  cards: [KD, QS, TD, 2D, 8D]\n"
        "  expect: {results: {'4': {lower: '10'}}}\n"
    )
    result = run("script", "run", path)
    assert result.exit_code == 1
    assert f"mismatch: {path} round 1: results.4.lower: expected 10, got 9.5" in result.stdout


def test_the_mock_table_plays_and_summarises():
    result = run("run", "--game", "football", "--mock", "--rounds", "5", "--seed", "11", "--journal", "none")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "seed 11" in out and "seeded draws" in out
    assert out.count("draw ") >= 5 and "upper" in out and "lower" in out
    assert "the common box" in out and "total" in out
    assert "5 round(s) played" in out and "hold" in out
    again = run("run", "--game", "football", "--mock", "--rounds", "5", "--seed", "11", "--journal", "none")
    assert again.stdout == out  # a seed reproduces the session


def test_the_mock_table_with_six_decks_and_without_a_seed():
    result = run("run", "--game", "football", "--mock", "--rounds", "3", "--decks", "6", "--journal", "none")
    assert result.exit_code == 0, result.output
    assert "6 decks, continuous shuffle" in result.stdout and "draws from secrets" in result.stdout


def test_analyze_one_deck():
    result = run("analyze", "football")
    assert result.exit_code == 0
    out = result.stdout
    for bet, value in (("middle", "-0.182262"), ("odd", "-0.078009"), ("even", "-0.103710"),
                       ("upper", "-0.022729"), ("lower", "-0.022729")):
        line = next(line for line in out.splitlines() if line.startswith(bet))
        assert value in line
    assert "P(middle) 0.090860" in out


def test_analyze_json_six_decks():
    result = run("analyze", "football", "--decks", "6", "--json")
    data = json.loads(result.stdout)
    assert data["decks"] == 6 and data["cards"] == 312
    assert round(data["bets"]["middle"]["return"]["value"], 6) == -0.163917


def test_diagram():
    result = run("diagram", "football")
    assert result.exit_code == 0
    assert "drawing --> betting_open: draw_shown" in result.stdout
    assert "third_cards --> settlement: settle" in result.stdout
