"""``scripts/suite_time.py``: the README's test command timed with the machine's
CPU and speed beside it (run here on a stand-in command: the suite cannot time itself)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from tablesim.harness.bench import measure

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def suite_time(monkeypatch):
    spec = importlib.util.spec_from_file_location("suite_time", ROOT / "scripts" / "suite_time.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(measure, "PROBE_ADDS", 1000)  # (the probe's loop, short: its figure is not judged here)
    return module


def stand_in(*lines: str, code: int = 0) -> list[str]:
    """A command that prints ``lines`` (what pytest ends with) and exits with ``code``."""
    return ["--", sys.executable, "-c", f"import sys; print({chr(10).join(lines)!r}); sys.exit({code})"]


def test_each_run_is_timed_with_the_machines_cpu_and_speed_and_the_commands_last_line(suite_time, tmp_path, capsys):
    log = tmp_path / "suite.log"
    code = suite_time.main(["--runs", "2", "--json", "--log", str(log),
                            *stand_in("....", "", "===== 2637 passed, 22 warnings in 1.00s =====")])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert len(out["runs"]) == 2 and out["failed_runs"] == 0 and out["under_goal"] == 2 and out["goal_s"] == 150.0
    for run in out["runs"]:
        assert run["summary"] == "2637 passed, 22 warnings in 1.00s" and run["exit_code"] == 0
        assert run["wall_s"] >= 0 and run["probe_before_s"] >= 0 and run["probe_after_s"] >= 0
        assert run["machine_cpu_s"] >= 0 and run["steal_s"] >= 0 and run["busy_cores"] >= 0  # (Linux: /proc/stat)
    assert out["wall_s"]["lowest"] <= out["wall_s"]["median"] <= out["wall_s"]["highest"]
    # (the command's output kept, each run's after the command it ran, not printed)
    assert log.read_text().splitlines().count("===== 2637 passed, 22 warnings in 1.00s =====") == 2


def test_a_failing_run_is_counted_and_the_script_fails(suite_time, tmp_path, capsys):
    code = suite_time.main(["--runs", "1", "--log", str(tmp_path / "l.log"), *stand_in("1 failed, 3 passed", code=1)])
    text = capsys.readouterr().out
    assert code == 1
    assert "run 1: " in text and "1 failed, 3 passed" in text and "1 of 1 under 150 s" in text


@pytest.mark.parametrize("argv, says", [
    (["--runs", "0"], "--runs: 0 is not a number of runs"),
    (["--runs", "x"], "argument --runs: invalid int value: 'x'"),
    (["--"], "nothing after --"),
    (["--log", "/nonexistent-folder/suite.log", "--", "true"], "--log: the folder '/nonexistent-folder' does not exist"),
    (["--rounds", "3"], "unrecognized arguments: --rounds 3"),
])
def test_bad_options_are_one_line_exit_2_and_nothing_runs(suite_time, argv, says, capsys):
    with pytest.raises(SystemExit) as exc:
        suite_time.main(argv)
    err = capsys.readouterr().err
    assert exc.value.code == 2
    assert err.strip().splitlines() == [err.strip()] and says in err and err.startswith("suite_time.py: ")


def test_without_a_command_it_times_the_readmes_test_command(suite_time):
    readme = (ROOT / "README.md").read_text()
    assert "python -m pytest" in readme.split("```")[1]  # (the README's second command)
    assert suite_time.DEFAULT[1:] == ["-m", "pytest"]
