"""Divergence is loud: a studio link that diverges or stops publishing is an
incident in the table's journal (on its console) and an alert on the floor
at once, and ``tablesim run`` exits non-zero with the line."""

from __future__ import annotations

import asyncio
import sqlite3
import threading

from tablesim.studio.consumer import StudioConsumer
from tablesim.studio.outbox import StudioLink
from test_studio_floor import forge, make_full_stream, wait_for
from test_studio_identity import invoke as tablesim
from test_studio_publish import register_all


def incidents(journal) -> list[str]:
    db = sqlite3.connect(journal)
    try:
        return [row[0] for row in db.execute("SELECT data FROM records WHERE name = 'incident' ORDER BY seq")]
    finally:
        db.close()


def test_a_run_whose_link_diverges_says_so_at_once_and_exits_non_zero(nats_server, tmp_path):
    journal = tmp_path / "F3-LOUD.journal.sqlite"
    done = tablesim("run", "--game", "fortune3", "--mock", "--quiet", "--rounds", "1", "--seed", "1",
                    "--journal", str(journal), "--table-id", "F3-LOUD", "--studio", nats_server.url)
    assert done.returncode == 0 and "every record published" in done.stdout, done.stderr
    db = sqlite3.connect(journal)
    last, head = db.execute("SELECT seq, hash FROM records ORDER BY seq DESC LIMIT 1").fetchone()
    db.close()
    forge(nats_server.url, "F3-LOUD", last + 1, head, {"status": "settled"})  # published beside the table
    done = tablesim("run", "--game", "fortune3", "--mock", "--quiet", "--rounds", "2", "--seed", "2",
                    "--journal", str(journal), "--table-id", "F3-LOUD", "--studio", nats_server.url)
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "studio: the link diverged (" in done.stdout  # (between rounds too, where it diverged before the last)
    assert "none will be while the journal and the stream disagree" in done.stdout
    assert any('"code":300' in d.replace(" ", "") for d in incidents(journal)), incidents(journal)


def test_a_link_that_stops_publishing_is_an_incident_and_a_floor_alert(nats_server, tmp_path):
    """A stream no record fits in (an operator's limits): the link has
    records to publish and publishes none; after its stall time it says so,
    in its status, and the floor raises an alert; ``run`` journals an
    incident."""
    make_full_stream(nats_server.url)
    journal = tmp_path / "WHEEL-MOCK.journal.sqlite"
    done = tablesim("run", "--game", "wheel", "--mock", "--quiet", "--rounds", "1", "--journal", str(journal))
    assert done.returncode == 0, done.stderr
    link = StudioLink(nats_server.url, str(journal), "WHEEL-MOCK")
    link.stall_after = 1.0
    link.start()
    register_all()
    consumer = StudioConsumer(nats_server.url)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_until_complete, args=(consumer.run(),), daemon=True)
    thread.start()
    try:
        wait_for(lambda: link.stalled and link.status()["stalled"])

        def alerted():
            return [a for a in list(consumer.floor.alerts) if "stopped publishing" in a["text"]]
        [alert] = wait_for(alerted)
        assert alert["table_id"] == "WHEEL-MOCK" and "records not published" in alert["text"]
    finally:
        consumer.stop()
        thread.join(30)
        link.stop()
