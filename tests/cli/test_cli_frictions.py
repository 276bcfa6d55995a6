"""What a new user reads: one line for every error, round lines that say
what happened, a summary whose rows keep their order, a replay mismatch
that names the field."""

from __future__ import annotations

import re

from click.testing import CliRunner

from tablesim.cli.main import cli
from tablesim.harness.recording import compare_results


def invoke(*args, tmp_path):
    return CliRunner().invoke(cli, list(args), env={"XDG_DATA_HOME": str(tmp_path), "HOME": str(tmp_path)})


def test_diagram_without_a_game_is_one_error_line(tmp_path):
    result = invoke("diagram", tmp_path=tmp_path)
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tablesim: error: ") and "fortune3, football, wheel" in lines[0]


def test_a_command_group_without_its_command_is_one_error_line(tmp_path):
    result = invoke("audit", tmp_path=tmp_path)
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tablesim: error: missing command (see ")


def run_lines(game, seed, tmp_path, rounds=25):
    result = invoke("run", "--game", game, "--mock", "--rounds", str(rounds), "--seed", str(seed),
                    "--journal", str(tmp_path / f"{game}-{seed}.sqlite"), tmp_path=tmp_path)
    assert result.exit_code == 0, result.output
    return result.output


def test_fortune3_round_lines_show_no_zero_bonus_and_say_why_a_play_was_not_paid(tmp_path):
    out = run_lines("fortune3", 3, tmp_path)
    assert "ante_bonus 0" not in out and "play 0" not in out
    assert "play returned" in out  # the dealer did not qualify


def test_football_says_the_two_card_total_before_the_third_card(tmp_path):
    out = run_lines("football", 1, tmp_path)
    assert "third card: total" in out and not re.search(r"total \d, third card", out)
    assert re.search(r"two cards [09], third card: total \d", out)


def summary_rows(out):
    return [line.split("│")[1].strip() for line in out.splitlines() if line.startswith("│")]


def test_the_hold_table_keeps_the_layout_order_every_run(tmp_path):
    first, second = (summary_rows(run_lines("football", s, tmp_path, rounds=4)) for s in (1, 2))
    order = ["upper", "lower", "odd", "even", "middle", "all"]
    assert first == [b for b in order if b in first] and second == [b for b in order if b in second]


def test_a_replay_mismatch_names_the_field_that_differs():
    recorded = [{"round_id": "R1", "result": {"status": "settled", "net": {"1": "10"},
                                              "outcome": {"boxes": {"1": {"cards": ["AS", "KS", "QS"]}}}}}]
    replayed = [{"round_id": "R1", "result": {"status": "settled", "net": {"1": "10"},
                                              "outcome": {"boxes": {"1": {"cards": ["AS", "KS", "JS"]}}}}}]
    message = compare_results(recorded, replayed)
    assert message == 'round 1 (R1) differs from the recording (outcome.boxes.1.cards[2]): recorded "QS", replayed "JS"'
