"""A table's studio link resumes after the broker is killed under it, on
the bus closed by role as a studio runs it (``tablesim studio
credentials``): the table's role may read the stream only through readers
filtered on its own subjects, never message by message (that API reads any
table's messages), so the link reads back what was stored since its last
look through such a reader, and the stream holds the journal, every record
once, in order.

(On an open bus the link reads those few records one by one from the
stream's leader and makes no reader: on a cluster a reader is the metadata
leader's work, and after the node that led both the stream and the cluster
was killed, a loaded cluster refused new readers for tens of seconds. On
the closed bus that is the price of a table reading nothing but its own:
docs/studio.md, The bus closed by role.)"""

from __future__ import annotations

import time

import pytest

import clirun
from natsserver import NATS_SERVER, ClosedNatsServer
from tablesim.studio import outbox
from tablesim.studio.anchor import verify_anchor


def wait(cond, budget: float = 60.0) -> bool:
    """Pure waiting, generous."""
    deadline = time.monotonic() + budget
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.05)
    return cond()


@pytest.fixture
def closed(tmp_path):
    if NATS_SERVER is None:
        pytest.skip("nats-server is not installed (Debian package nats-server): the studio needs a broker")
    server = ClosedNatsServer(tmp_path / "store", ["F3-01"]).start()
    yield server
    server.stop()


def test_the_link_resumes_after_the_broker_through_its_own_reader(closed, tmp_path):
    admin, table = closed.url, closed.role_url("F3-01")
    journal = tmp_path / "F3-01.journal.sqlite"
    done = clirun.tablesim("run", "--game", "fortune3", "--mock", "--table-id", "F3-01", "--quiet", "--rounds", "2",
                           "--journal", str(journal))
    assert done.returncode == 0, done.stderr
    link = outbox.StudioLink(table, str(journal), "F3-01").start()
    try:
        assert wait(lambda: link.state == "up" and link.pending() == 0), link.status()
        closed.kill()
        assert wait(lambda: link.state == "down"), link.status()
        closed.start()
        assert wait(lambda: link.state == "up"), link.status()
        assert link.pending() == 0
    finally:
        link.stop()
    [report] = verify_anchor(str(journal), admin)
    assert report.ok and report.unanchored == 0, report.lines()
    assert report.anchored == report.stream_records == report.journal_records > 30
