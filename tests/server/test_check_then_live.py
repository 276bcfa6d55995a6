"""A table PC's first start, as docs/hardware.md has the technician do it:
the check run (`tablesim run --config FILE --rounds 1 --journal none`) on
the table's devices, then the service (`tablesim serve --config FILE` with
its journal) on the same devices, which stayed powered on in between.

The shoe is an emulator on a pty that outlives both programs, as a real
shoe does. It keeps the round it was last armed for and that round's card
index: were the check's round id the live table's first (``F3-01-000001``
both), the live table would arm the shoe for "the same" round, the shoe
would go on at the check's next index and the host would refuse every card
(``card index 7, expected 0``) until the round is voided. A check names its
rounds ``F3-01-CHK-...`` and every table resets its devices' round state
(``RST``) when it starts, so the first live round is dealt and settled."""

from __future__ import annotations

import json

from pathlib import Path

import pytest
from click.testing import CliRunner

from drivers.emulators.launcher import running_emulators
from server_process import Serve
from tablesim.cli.main import cli

ROOT = Path(__file__).resolve().parents[2]
SERIAL = ROOT / "config" / "tables" / "fortune3-serial.toml"


@pytest.fixture
def shoe_config(tmp_path):
    """The example configuration with its shoe on an emulator's pty (a shoe left powered on)."""
    with running_emulators(["shoe"], seed=7, time_scale=0) as urls:
        config = tmp_path / "fortune3-serial.toml"
        text = SERIAL.read_text()
        assert '"/dev/ttyUSB0"' in text
        config.write_text(text.replace('"/dev/ttyUSB0"', f'"{urls["shoe"]}"'))
        yield config


def check_run(config: Path, env: dict) -> str:
    """The documented check (in this process: its drivers open and close the pty as a process's would)."""
    done = CliRunner().invoke(cli, ["run", "--config", str(config), "--rounds", "1", "--journal", "none",
                                    "--seed", "3"], env=env)
    assert done.exit_code == 0, done.output
    return done.output


def play_one(s: Serve) -> dict:
    """One live round on the shoe: betting, the deal, every box plays."""
    assert s.post("/api/actions/open_round").status_code == 200
    s.wait_state("betting_open")
    assert s.post("/api/bets", {"position": "2", "bet": "ante", "amount": "10"}).status_code == 200
    assert s.post("/api/actions/close_betting").status_code == 200
    assert s.post("/api/actions/deal").status_code == 200
    snap = s.wait_state("decisions", "complete", "void")
    for box in snap["view"]["pending_decisions"]:
        assert s.post("/api/actions/decide", {"box": box, "decision": "play"}).status_code == 200
    return s.wait_state("complete", "void")["result"]


def test_a_check_run_never_voids_the_first_live_round(shoe_config, env, tmp_path):
    out = check_run(shoe_config, env)
    journal = tmp_path / "F3-01.journal.sqlite"
    s = Serve(env, "--config", str(shoe_config), "--port", "0", "--journal", str(journal))
    try:
        result = play_one(s)
    finally:
        assert s.stop() == 0
    assert result["status"] == "settled", result
    assert result["round_id"] == "F3-01-000001"
    # the check's rounds are its own: never an id the live journal gives
    assert "F3-01-CHK-000001" in out and "F3-01-000001" not in out.replace("F3-01-CHK-", "")


def test_two_checks_in_a_row_on_the_same_shoe_both_settle(shoe_config, env):
    """Both checks' first round is F3-01-CHK-000001: only the reset at the
    start of the second tells the shoe it is a new round."""
    for _ in range(2):
        out = check_run(shoe_config, env)
        assert "1 round(s) played (0 void)" in out, out


def test_a_recorded_check_replays_with_its_reset_and_its_round_ids(shoe_config, env, tmp_path):
    """A recording of a check holds the reset it sent and its table id; the
    replay sends the reset again and plays the same rounds."""
    recording = tmp_path / "check.jsonl"
    done = CliRunner().invoke(cli, ["run", "--config", str(shoe_config), "--rounds", "2", "--seed", "3", "--quiet",
                                    "--record", str(recording)], env=env)
    assert done.exit_code == 0, done.output
    header = json.loads(recording.read_text().splitlines()[0])
    assert (header["table_id"], header["reset_at_start"]) == ("F3-01-CHK", True)
    sent = [bytes.fromhex(json.loads(line)["hex"]) for line in recording.read_text().splitlines()[1:]
            if '"dir":"host->device"' in line]
    assert b"|RST\x03" in b"".join(sent[:3])  # after HEL, before any ARM
    replayed = CliRunner().invoke(cli, ["replay", str(recording), "--json"], env=env)
    assert replayed.exit_code == 0, replayed.output
    assert [json.loads(line)["round_id"] for line in replayed.stdout.splitlines()] == \
        ["F3-01-CHK-000001", "F3-01-CHK-000002"]
