"""Publishing: a table's journal reaches the stream, in order,
once, also across a broker that is down, killed and restarted, and a table
killed and restarted; and ``audit verify --anchor`` holds it."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

import clirun
from tablesim.studio import attach
from tablesim.studio.anchor import verify_anchor


def tablesim(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """``tablesim ARGS`` in this process (``clirun``): what these tests check is
    what the commands do with the broker and the journals; the processes' own
    part (a table killed, a broker killed) is in the tests that start them."""
    return clirun.tablesim(*args)


def run_table(game: str, journal, url: str, rounds: int = 3, seed: int = 1) -> subprocess.CompletedProcess:
    done = tablesim("run", "--game", game, "--mock", "--quiet", "--rounds", str(rounds), "--seed", str(seed),
                    "--journal", str(journal), "--studio", url)
    register_all()
    return done


def register_all() -> None:
    """What the operator does once per table (tablesim keys export-public,
    tablesim studio register-key): every signing key of this data directory
    registered with the studio (in-process, to keep the tests short; the
    commands have their own test)."""
    from tablesim.journal.location import data_dir
    from tablesim.studio import signing, trust

    for path in sorted(data_dir().glob("*.sign.key")):
        trust.register(None, path.name[: -len(".sign.key")], signing.public_hex(signing.load_signing_key(path)))


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
    # the advisory cursor (saved at most once a second under a stream of records) is current once the
    # table has stopped: the next start begins after the last record published
    cursor = json.loads((journal.parent / f"{journal.name}.studio.json").read_text())
    assert cursor["published"] == report.journal_records
    check = tablesim("audit", "verify", "--journal", str(journal), "--anchor", nats_server.url)
    assert check.returncode == 0, check.stderr
    assert "anchored" in check.stdout


def test_broker_away_records_wait_and_go_at_the_next_start(nats_server, tmp_path):
    journal = tmp_path / "WH-TEST.journal.sqlite"
    nats_server.stop()
    began = time.monotonic()
    done = run_table("wheel", journal, nats_server.url, rounds=2)
    assert done.returncode == 0, done.stderr  # the table never waits for the broker
    assert "still to go" in done.stdout
    # nor for a drain that cannot come: the link found the broker away (it waited the whole
    # DRAIN_SECONDS, 5 s, for an outbox that could not empty)
    assert time.monotonic() - began < attach.DRAIN_SECONDS, time.monotonic() - began
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


@pytest.mark.slow
def test_a_password_in_the_studio_url_is_never_shown_or_sent(tmp_path):
    """`--studio nats://user:password@host:port` (a broker with users): the
    password is not printed, not in the link's status messages on the bus
    (which every subscriber reads), not in the cursor file, not in errors."""
    import asyncio
    import json

    import nats

    from natsserver import NATS_SERVER, NatsServer

    if NATS_SERVER is None:
        pytest.skip("nats-server is not installed (Debian package nats-server): the studio needs a broker")
    server = NatsServer(tmp_path / "store", args=("--user", "tbl", "--pass", "s3cr3t-pw")).start()
    url = f"nats://tbl:s3cr3t-pw@127.0.0.1:{server.port}"
    journal = tmp_path / "WH-PW.journal.sqlite"
    try:
        async def status_while_running():
            nc = await nats.connect(url)
            try:
                sub = await nc.subscribe("tablesim.*.status")
                proc = await asyncio.create_subprocess_exec(
                    sys.executable, "-m", "tablesim.cli.main", "run", "--game", "wheel", "--mock", "--quiet",
                    "--rounds", "3", "--delay", "1", "--journal", str(journal), "--studio", url,
                    stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
                msg = await sub.next_msg(timeout=30)
                out, err = await proc.communicate()
                return msg.data.decode(), out.decode() + err.decode(), proc.returncode
            finally:
                await nc.close()

        status, output, code = asyncio.run(status_while_running())
        assert code == 0, output
        assert json.loads(status)["url"] == f"nats://tbl:***@127.0.0.1:{server.port}"
        assert "s3cr3t" not in status and "s3cr3t" not in output and "every record published" in output
        cursor = journal.parent / f"{journal.name}.studio.json"
        assert cursor.exists() and "s3cr3t" not in cursor.read_text()
        [report] = verify_anchor(str(journal), url)
        assert report.ok and report.anchored == report.journal_records
        checked = tablesim("audit", "verify", "--journal", str(journal), "--anchor", url)
        assert checked.returncode == 0 and "s3cr3t" not in checked.stdout + checked.stderr
    finally:
        server.stop()
    away = tablesim("studio", "report", "--nats", url)
    assert away.returncode == 2 and "s3cr3t" not in away.stderr and "tbl:***@" in away.stderr
