"""Publishing (issue 13.1): a table's journal reaches the stream, in order,
once, also across a broker that is down, killed and restarted, and a table
killed and restarted; and ``audit verify --anchor`` holds it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tablesim.studio.anchor import verify_anchor


def tablesim(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tablesim.cli.main", *args], capture_output=True, text=True,
                          timeout=timeout)


def run_table(game: str, journal, url: str, rounds: int = 3, seed: int = 1) -> subprocess.CompletedProcess:
    return tablesim("run", "--game", game, "--mock", "--quiet", "--rounds", str(rounds), "--seed", str(seed),
                    "--journal", str(journal), "--studio", url)


def test_run_publishes_every_record_and_the_anchor_holds(nats_server, tmp_path):
    journal = tmp_path / "F3-TEST.journal.sqlite"
    done = run_table("fortune3", journal, nats_server.url)
    assert done.returncode == 0, done.stderr
    assert "studio: every record published" in done.stdout
    [report] = verify_anchor(str(journal), nats_server.url)
    assert report.ok, report.lines()
    assert report.journal_records > 30
    assert report.anchored == report.stream_records == report.journal_records
    assert report.unanchored == 0
    check = tablesim("audit", "verify", "--journal", str(journal), "--anchor", nats_server.url)
    assert check.returncode == 0, check.stderr
    assert "anchored" in check.stdout


def test_broker_away_records_wait_and_go_at_the_next_start(nats_server, tmp_path):
    journal = tmp_path / "WH-TEST.journal.sqlite"
    nats_server.stop()
    done = run_table("wheel", journal, nats_server.url, rounds=2)
    assert done.returncode == 0, done.stderr  # the table never waits for the broker
    assert "still to go" in done.stdout
    nats_server.start()
    [report] = verify_anchor(str(journal), nats_server.url)
    assert report.stream_records == 0 and report.unanchored == report.journal_records > 0
    assert report.ok  # unanchored is not an error
    again = run_table("wheel", journal, nats_server.url, rounds=2, seed=2)
    assert again.returncode == 0, again.stderr
    assert "every record published" in again.stdout
    [report] = verify_anchor(str(journal), nats_server.url)
    assert report.ok and report.unanchored == 0 and report.anchored == report.journal_records


def test_bad_studio_url_is_one_line(tmp_path):
    done = tablesim("run", "--game", "wheel", "--mock", "--journal", str(tmp_path / "j.sqlite"), "--studio", "http://x")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == ["tablesim: error: --studio: 'http://x' is not a NATS URL (nats://HOST:PORT)"]
    assert not (tmp_path / "j.sqlite").exists()
