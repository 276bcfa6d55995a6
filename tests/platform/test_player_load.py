"""scripts/player_load.py, small: every part a real process (nats-server,
the wallet, an autoplay table, a platform, a load process of players on
the WebSocket). Its JSON holds the figures and every player saw every
round's result; the figures themselves are not judged here (no timed
tests: the full run is in docs/performance.md)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from rig import ROOT

pytestmark = pytest.mark.skipif(shutil.which("nats-server") is None, reason="nats-server is not installed")


@pytest.mark.soak
def test_a_small_load_run_reports_every_figure_and_no_player_missed_a_result():
    # (a betting window of 4 s, not 2: once, with the soak tier's other tests beside it, a run
    # placed no bet in its 2 s window; the harness now says what the bets were answered)
    run = subprocess.run([sys.executable, "scripts/player_load.py", "--players", "50", "--bettors", "5",
                          "--bet-rate", "25", "--rounds", "1", "--quiet-rounds", "1", "--bet-seconds", "4",
                          "--pace", "0.05", "--json"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    fig = json.loads(run.stdout)
    assert fig["players"] == 50 and fig["bettors"] == 5 and fig["bets_per_group"] == 4  # (as the page sends them)
    assert fig["dropped"] == 0 and fig["missing_results"] == 0
    assert fig["rounds_watched"] == 3  # the one under way, one only watched, one with bets: each seen by all 50
    assert fig["event_deliveries"] >= 50 * 2 and fig["event_p99_ms"] is not None
    assert fig["bets_placed"] > 0 and fig["bet_answers"].get("placed") == fig["bets_placed"]
    assert fig["bets_per_second"] > 0 and fig["bet_p99_ms"] is not None
    assert fig["rss_mb"] > 0 and "rss_per_player_kb" in fig
    assert set(fig["table_cpu_ms_per_round"]) == {"alone", "players_watching", "players_betting"}
    # the table's CPU a bet by thread, each thread under the name it gave the system
    assert {"loop", "table", "studio", "journal"} <= set(fig["table_cpu_us_per_bet_by_thread"])
    assert fig["load_average"] >= 0
    sat = fig["saturation"]  # (while the bets came: each process's cores, and what limited them if anything)
    assert sat["seconds_measured"] > 0 and {"table", "platforms", "wallet", "broker", "loaders"} <= set(
        sat["cores_while_betting"]) and sat["why"]


def test_bad_options_are_one_line_and_exit_2():
    run = subprocess.run([sys.executable, "scripts/player_load.py", "--players", "0"], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert run.stderr.strip().splitlines()[-1].startswith("tablesim: error: ")
