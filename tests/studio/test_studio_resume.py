"""A table's studio link resumes on the stream's leader alone: on every
(re)connection it reads back the few records stored since its last look one
by one from the stream (answered by the stream's leader), and makes no
reader (consumer). On a cluster a reader is the metadata leader's work, and
after the node that led both the stream and the cluster was killed, a loaded
cluster went on refusing new readers for tens of seconds to minutes after
the stream had a new leader: the links, which made four readers on each
reconnection, stayed down all that time.

Here the broker's users make that exact: the table's user may look at the
stream and read its messages, and nothing else of the JetStream API, so a
link that makes a reader never gets up. The broker is killed under the link
and started again: the link reconnects and the stream holds the journal,
every record once, in order."""

from __future__ import annotations

import time

import pytest

import clirun
from natsserver import NATS_SERVER, NatsServer
from tablesim.studio import outbox
from tablesim.studio.anchor import verify_anchor

USERS = """
authorization {
  users: [
    { user: admin, password: admin }
    { user: F3-01, password: table, permissions: {
        publish: { allow: ["tablesim.F3-01.>", "$JS.API.STREAM.INFO.TABLESIM", "$JS.API.STREAM.MSG.GET.TABLESIM"] }
        subscribe: { allow: ["_INBOX.>", "tablesim.F3-01.live"] }
        allow_responses: true
    } }
  ]
}
"""


def wait(cond, budget: float = 60.0) -> bool:
    """Pure waiting, generous."""
    deadline = time.monotonic() + budget
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.05)
    return cond()


@pytest.fixture
def no_readers(tmp_path):
    if NATS_SERVER is None:
        pytest.skip("nats-server is not installed (Debian package nats-server): the studio needs a broker")
    conf = tmp_path / "node.conf"
    conf.write_text(USERS)
    server = NatsServer(tmp_path / "store", args=("-c", str(conf))).start()
    yield server
    server.stop()


def test_the_link_resumes_after_the_broker_without_making_a_reader(no_readers, tmp_path):
    admin = f"nats://admin:admin@127.0.0.1:{no_readers.port}"
    table = f"nats://F3-01:table@127.0.0.1:{no_readers.port}"
    assert clirun.tablesim("studio", "init", "--nats", admin).returncode == 0
    journal = tmp_path / "F3-01.journal.sqlite"
    done = clirun.tablesim("run", "--game", "fortune3", "--mock", "--table-id", "F3-01", "--quiet", "--rounds", "2",
                           "--journal", str(journal))
    assert done.returncode == 0, done.stderr
    link = outbox.StudioLink(table, str(journal), "F3-01").start()
    try:
        assert wait(lambda: link.state == "up" and link.pending() == 0), link.status()
        no_readers.kill()
        assert wait(lambda: link.state == "down"), link.status()
        no_readers.start()
        assert wait(lambda: link.state == "up"), link.status()
        assert link.pending() == 0
    finally:
        link.stop()
    [report] = verify_anchor(str(journal), admin)
    assert report.ok and report.unanchored == 0, report.lines()
    assert report.anchored == report.stream_records == report.journal_records > 30
