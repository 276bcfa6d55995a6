"""One identity per table: a second process under a table id that is live on
the bus, or whose stream holds another journal's chain, is refused at start
in one line naming the other; ``--table-id`` gives a mock table another id."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import nats
import pytest
from click.testing import CliRunner

from tablesim.cli.main import cli
from tablesim.studio import presence
from tablesim.studio.outbox import StudioLink
from test_studio_floor import wait_for


def one_error(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tablesim: error: "), done.stderr
    return lines[0]


def invoke(*args: str) -> subprocess.CompletedProcess:
    """In-process (a refusal happens before anything starts): as the command line says it."""
    res = CliRunner().invoke(cli, list(args))
    return subprocess.CompletedProcess(args, res.exit_code, res.stdout, res.stderr)


@pytest.mark.parametrize("command", ["run", "serve"])
def test_a_bad_table_id_is_one_line(command, tmp_path):
    for bad in ("bad id", "x" * 33, "a.b"):
        line = one_error(invoke(command, "--game", "wheel", "--mock", "--table-id", bad,
                                "--journal", str(tmp_path / "j.sqlite")))
        assert "--table-id" in line and repr(bad) in line
    line = one_error(invoke(command, "--config", "wheel-serial", "--table-id", "W2"))
    assert "--table-id does not apply to --config" in line
    assert not (tmp_path / "j.sqlite").exists()


def live(url: str, table_id: str) -> dict | None:
    async def ask():
        nc = await nats.connect(url)
        try:
            return await presence.ask(nc, table_id)
        finally:
            await nc.close()
    return asyncio.run(ask())


def test_a_table_id_live_on_the_bus_or_another_chain_is_refused(nats_server, tmp_path, monkeypatch):
    url = nats_server.url
    first = subprocess.Popen([sys.executable, "-m", "tablesim.cli.main", "serve", "--game", "wheel", "--mock",
                              "--port", "0", "--journal", str(tmp_path / "a.journal.sqlite"), "--studio", url],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        other = wait_for(lambda: live(url, "WHEEL-MOCK"), proc=first)
        assert other["pid"] == first.pid and other["journal"].endswith("a.journal.sqlite")
        second = tmp_path / "b.journal.sqlite"
        line = one_error(invoke("run", "--game", "wheel", "--mock", "--rounds", "2", "--quiet", "--journal",
                                str(second), "--studio", url))
        assert "table WHEEL-MOCK is already live on the bus" in line and f"pid {first.pid}" in line
        assert "a.journal.sqlite" in line and "--table-id" in line
        assert not second.exists()  # refused before anything was written
        # the same game under another id, beside it: a laptop's two tables
        done = invoke("run", "--game", "wheel", "--mock", "--rounds", "2", "--quiet", "--table-id", "WHEEL-2",
                      "--studio", url)
        assert done.returncode == 0 and "every record published" in done.stdout, done.stderr
        assert "WHEEL-2" in done.stdout
    finally:
        first.terminate()
        first.wait(30)
    # Gone from the bus, its chain stays in the stream: a new journal under its id is refused
    line = one_error(invoke("run", "--game", "wheel", "--mock", "--rounds", "1", "--journal", str(second),
                            "--studio", url))
    assert "signed by this table" in line and "the journal is empty" in line
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "another-pc"))  # another PC's keys, the same id
    line = one_error(invoke("run", "--game", "wheel", "--mock", "--rounds", "1", "--studio", url))
    assert "holds another journal's chain as table WHEEL-MOCK" in line and "signed by another key" in line


def test_two_links_started_at_once_one_publishes_nothing(nats_server, tmp_path):
    """Two started at the same moment both pass the check at start: the
    outbox asks again on connecting, after it subscribed, so one of them
    hears the other and publishes nothing, saying who."""
    journals = []
    for name in ("a", "b"):
        journal = tmp_path / f"{name}.journal.sqlite"
        done = invoke("run", "--game", "wheel", "--mock", "--rounds", "1", "--quiet", "--journal", str(journal))
        assert done.returncode == 0, done.stderr
        journals.append(journal)
    a = StudioLink(nats_server.url, str(journals[0]), "WHEEL-MOCK").start()
    b = None
    try:
        wait_for(lambda: a.state == "up" and a.pending() == 0)
        b = StudioLink(nats_server.url, str(journals[1]), "WHEEL-MOCK").start()
        wait_for(lambda: b.state == "diverged")
        assert "another process is live on the bus as table WHEEL-MOCK" in b.error
        assert "a.journal.sqlite" in b.error and b.published == 0
        assert a.state == "up"
    finally:
        a.stop()
        if b is not None:
            b.stop()


def test_a_journal_file_killed_before_its_first_record_still_starts(nats_server, tmp_path):
    """A table killed as it first started leaves a journal file with no
    records table: holding it against the stream finds nothing to refuse."""
    journal = tmp_path / "WHEEL-MOCK.journal.sqlite"
    journal.touch()
    done = invoke("run", "--game", "wheel", "--mock", "--rounds", "1", "--quiet", "--journal", str(journal),
                    "--studio", nats_server.url)
    assert done.returncode == 0 and "every record published" in done.stdout, done.stderr
