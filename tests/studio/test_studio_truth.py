"""A floor that never lies: a stream reset (the broker back on an empty
store) is alerted and the floor rebuilt from what the stream holds;
"connected" and "pending" are asked of the connection and the consumer; a
table not heard from is flagged; a broker that cannot be reached is said
within seconds (``studio serve`` keeps trying, ``studio report`` exits 2)."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import httpx

from natsserver import free_port
from tablesim.studio.consumer import StudioConsumer
from tablesim.studio.outbox import StudioLink
from test_studio_floor import wait_for
from test_studio_identity import invoke as tablesim
from test_studio_publish import register_all
import webclient


class Following:
    """A studio consumer on a thread of its own, as ``studio serve`` runs it."""

    def __init__(self, url: str, **options) -> None:
        self.consumer = StudioConsumer(url, **options)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_until_complete, args=(self.consumer.run(),), daemon=True)

    def __enter__(self) -> StudioConsumer:
        self.thread.start()
        return self.consumer

    def __exit__(self, *exc) -> None:
        self.consumer.stop()
        self.thread.join(30)


def journaled(journal: Path) -> int:
    """The journal's last record: where a floor that read the whole stream has its table."""
    with sqlite3.connect(f"file:{journal}?mode=ro", uri=True) as db:
        return db.execute("SELECT MAX(seq) FROM records").fetchone()[0]


def read_through(consumer, seq: int, table: str = "WHEEL-MOCK") -> bool:
    """Whether the floor has read ``table`` (the stream's one table) up to
    its record ``seq`` and is between two records: its stream place, its
    count and the table's seq agree. (The floor is read from the test's
    thread while the consumer's applies a record, which moves the place
    first and its count next; and the consumer's ``pending`` is the last
    batch's, 0 for a moment when a picture is made again: under load a look
    at either came a record, or a whole stream, short.)"""
    floor = consumer.floor
    view = floor.tables.get(table)
    return view is not None and view.seq == seq == floor.stream_seq == floor.records - floor.redelivered


def test_a_stream_reset_is_alerted_and_the_floor_rebuilt(nats_server, tmp_path):
    done = tablesim("run", "--game", "wheel", "--mock", "--quiet", "--rounds", "2", "--journal",
                    str(tmp_path / "WHEEL-MOCK.journal.sqlite"), "--studio", nats_server.url)
    assert done.returncode == 0 and "every record published" in done.stdout, done.stderr
    register_all()
    with Following(nats_server.url) as consumer:
        last = journaled(tmp_path / "WHEEL-MOCK.journal.sqlite")
        wait_for(lambda: read_through(consumer, last))  # (every record read once: its place, count and seq agree)
        nats_server.kill()
        wait_for(lambda: not consumer.connected)  # at once, not from a flag left from before
        shutil.rmtree(nats_server.store)  # the broker's store lost
        nats_server.start()
        after = tmp_path / "F3-NEW.journal.sqlite"
        done = tablesim("run", "--game", "fortune3", "--mock", "--quiet", "--rounds", "1", "--table-id", "F3-NEW",
                        "--journal", str(after), "--studio", nats_server.url)
        assert done.returncode == 0 and "every record published" in done.stdout, done.stderr
        register_all()

        def rebuilt():
            f = consumer.floor
            return f if "F3-NEW" in f.tables and f.tables["F3-NEW"].seq and consumer.pending == 0 else None
        floor = wait_for(rebuilt)
        assert consumer.connected
        texts = [a["text"] for a in floor.alerts]
        assert any("the floor is rebuilt from what" in t for t in texts), texts
        # what the stream holds now, and nothing of what it lost
        assert "WHEEL-MOCK" not in floor.tables or floor.tables["WHEEL-MOCK"].seq == 0
        assert floor.summary()["floor"]["tables"] == 1
        assert not any("again after record" in t or "gap in the stream" in t for t in texts), texts


def test_a_table_not_heard_from_is_flagged(nats_server, tmp_path):
    journal = tmp_path / "WHEEL-MOCK.journal.sqlite"
    done = tablesim("run", "--game", "wheel", "--mock", "--quiet", "--rounds", "1", "--journal", str(journal))
    assert done.returncode == 0, done.stderr
    link = StudioLink(nats_server.url, str(journal), "WHEEL-MOCK").start()
    register_all()
    with Following(nats_server.url, silent_after=1.0) as consumer:
        try:
            wait_for(lambda: (consumer.floor.tables.get("WHEEL-MOCK") or None) and
                     consumer.floor.tables["WHEEL-MOCK"].link)
        finally:
            link.stop()
        view = consumer.floor.tables["WHEEL-MOCK"]
        wait_for(lambda: (view.link or {}).get("silent") or (consumer.floor.tables["WHEEL-MOCK"].link or {}).get("silent"))
        texts = [a["text"] for a in consumer.floor.alerts if a["table_id"] == "WHEEL-MOCK"]
        assert any(t.startswith("not heard from for 1 s") for t in texts), texts
        assert consumer.floor.tables["WHEEL-MOCK"].as_json()["studio_link"]["silent"] is True


def test_an_unreachable_broker_is_said_within_seconds(tmp_path):
    url = f"nats://127.0.0.1:{free_port()}"  # nobody listens there
    done = tablesim("studio", "report", "--nats", url)
    assert done.returncode == 2
    [line] = done.stderr.strip().splitlines()
    assert line.startswith(f"tablesim: error: cannot reach the studio's NATS at {url}")
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "tablesim.cli.main", "studio", "serve", "--nats", url, "--port",
                             str(port)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        def says():
            c = webclient.get(f"http://127.0.0.1:{port}/api/floor", timeout=10).json()["consumer"]
            return c if not c["connected"] and c["error"] else None
        consumer = wait_for(says, proc=proc)
        assert "no broker answered" in consumer["error"]
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    assert "cannot reach the studio's NATS" in err and "keeps trying" in err
