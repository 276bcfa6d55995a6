"""Records signed at the source: whoever can publish on the bus cannot make
a record or a status count, displace the table's own record unseen, or put
a table on the floor; and the anchor names the table its journal should be
(each failed before the fix, on a real nats-server)."""

from __future__ import annotations

import asyncio
import json
import shutil
import sqlite3
import sys
import time
from pathlib import Path

import nats
import pytest

import webclient
from tablesim.studio import outbox, trust, wire
from tablesim.studio.anchor import verify_anchor
from tablesim.studio.consumer import StudioConsumer, read_floor
from tablesim.studio.outbox import StudioLink

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
from journal_figures import as_numbers, journal_figures  # noqa: E402
from test_studio_publish import run_table, tablesim

TABLE = "F3-MOCK"
PRIZE = {"game": "fortune3", "status": "settled", "results": {"1": {"ante": "1000000"}}, "net": {"1": "1000000"},
         "stakes": {"1": {"ante": "1"}}}


def last_record(url: str, table_id: str) -> tuple[int, str]:
    """The stream's last record of the table: (seq, hash)."""
    async def read():
        nc = await nats.connect(url)
        try:
            msg = await nc.jetstream().get_last_msg(wire.STREAM, wire.record_subject(table_id, "event"))
            rec = wire.decode(msg.data)
            return rec.seq, rec.hash
        finally:
            await nc.close()
    return asyncio.run(read())


def forge(url: str, table_id: str, seq: int, prev: str, *, subject_kind: str = "event", name: str = "result",
          data: dict | None = None, headers: dict | None = None) -> None:
    """A record as anyone on the bus could publish it: the table's next
    message id, chained to the stream's last hash (or far ahead)."""
    body = wire.canonical({"v": 1, "record": {
        "seq": seq, "ts": "2026-12-01T00:00:00.000000+00:00", "table_id": table_id, "round_id": f"{table_id}-000009",
        "kind": subject_kind, "name": name, "actor": "table", "data": json.dumps(data or PRIZE, sort_keys=True),
        "prev_hash": prev, "hash": "f" * 64}})

    async def publish():
        nc = await nats.connect(url)
        try:
            await nc.jetstream().publish(wire.record_subject(table_id, subject_kind), body,
                                         headers={wire.MSG_ID: wire.msg_id(table_id, seq), **(headers or {})})
        finally:
            await nc.close()
    asyncio.run(publish())


def wait_for(fn, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = fn()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError("timed out")


@pytest.fixture
def published(nats_server, tmp_path):
    journal = tmp_path / f"{TABLE}.journal.sqlite"
    done = run_table("fortune3", journal, nats_server.url, rounds=2)
    assert done.returncode == 0 and "every record published" in done.stdout, done.stderr
    return journal


def more_rounds(journal: Path) -> None:
    """The table plays on (its journal grows; no --studio: the test's link publishes)."""
    done = tablesim("run", "--game", "fortune3", "--mock", "--quiet", "--rounds", "1", "--seed", "5",
                    "--journal", str(journal))
    assert done.returncode == 0, done.stderr


def test_a_forged_next_record_never_displaces_the_tables_own_unseen(published, nats_server, monkeypatch):
    """The forgery takes the table's next message id first: the stream
    answers the table's own record 'duplicate'. The outbox reads the stored
    message back, finds it is not its record, and diverges loudly; the floor
    never counts the forged payout; the anchor names the forgery, not the
    journal."""
    monkeypatch.setattr(outbox, "STATUS_EVERY", 3600.0)  # (only the read-back can see it here)
    url = nats_server.url
    figures = journal_figures(published)
    link = StudioLink(url, str(published), TABLE).start()
    try:
        wait_for(lambda: link.state == "up")
        seq, digest = last_record(url, TABLE)
        forge(url, TABLE, seq + 1, digest)
        more_rounds(published)
        wait_for(lambda: link.state == "diverged")
        assert "as a duplicate" in link.error and "forged on the bus" in link.error, link.error
    finally:
        link.stop()
    floor = asyncio.run(read_floor(url, trust.load_trust(None)))
    summary = floor.summary()
    assert as_numbers(summary["floor"]) == figures  # the million is not counted
    assert summary["rejected"] == {TABLE: 1} and any("badly signed" in a["text"] or "unsigned" in a["text"]
                                                     for a in summary["alerts"])
    out = tablesim("audit", "verify", "--journal", str(published), "--anchor", url)
    assert out.returncode == 1, out.stdout + out.stderr
    assert f"record {seq + 1}: the stream's message" in out.stderr and "forged on the bus" in out.stderr
    assert "changed" not in out.stderr  # the genuine journal is not blamed


def test_a_forged_record_far_ahead_stops_the_link(published, nats_server):
    """Seq 1,000,000 under the table's subject: the stream's highest record of
    the table (not the last message per subject) is what the link checks,
    while it runs and at every connection."""
    url = nats_server.url
    link = StudioLink(url, str(published), TABLE).start()
    try:
        wait_for(lambda: link.state == "up")
        _, digest = last_record(url, TABLE)
        forge(url, TABLE, 1_000_000, digest, subject_kind="meta", name="note", data={"x": 1})
        wait_for(lambda: link.state == "diverged")
        assert "did not sign" in link.error and "forged on the bus" in link.error
    finally:
        link.stop()
    again = StudioLink(url, str(published), TABLE).start()  # and again at the next connection
    try:
        wait_for(lambda: again.state == "diverged")
    finally:
        again.stop()


def test_forged_status_messages_put_no_table_on_the_floor(published, nats_server):
    """An EVIL-1 nobody registered, and a status of a real table signed by
    another key: neither shows on the floor or counts; both are alerted."""
    url = nats_server.url

    async def scenario():
        consumer = StudioConsumer(url)
        task = asyncio.create_task(consumer.run())
        try:
            await asyncio.wait_for(consumer.caught_up.wait(), 60)
            nc = await nats.connect(url)
            try:
                evil = {"table_id": "EVIL-1", "game": "fortune3", "state": "up", "pending": 0, "published": 99}
                await nc.publish(wire.status_subject("EVIL-1"), wire.canonical(evil))
                fake = {"table_id": TABLE, "game": "fortune3", "state": "up", "pending": 7, "published": 1}
                await nc.publish(wire.status_subject(TABLE), wire.canonical(fake),
                                 headers={wire.SIG_HEADER: "ed25519:" + "ab" * 64})
                await nc.flush()
            finally:
                await nc.close()
            deadline = time.monotonic() + 60
            while len(consumer.floor.rejected) < 2 and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            return consumer.floor.summary()
        finally:
            consumer.stop()
            task.cancel()
    summary = asyncio.run(scenario())
    assert [t["table_id"] for t in summary["tables"]] == [TABLE] and summary["floor"]["tables"] == 1
    assert summary["rejected"] == {"EVIL-1": 1, TABLE: 1}
    mine = summary["tables"][0]
    assert mine["studio_link"] is None or mine["studio_link"].get("pending") != 7


def test_another_tables_journal_does_not_pass_the_anchor(nats_server, tmp_path):
    """F3-TWO's journal copied over F3-MOCK's: the anchor checks F3-MOCK (the
    file's name, or --table) and reports every record of F3-MOCK the file
    lacks, as one line per run."""
    url = nats_server.url
    mine = tmp_path / "mock" / f"{TABLE}.journal.sqlite"
    mine.parent.mkdir()
    assert run_table("fortune3", mine, url, rounds=1).returncode == 0
    config = tmp_path / "two.toml"
    shutil.copy(Path(__file__).resolve().parents[2] / "config" / "tables" / "fortune3-mock.toml", config)
    text = config.read_text().replace('id = "F3-MOCK"', 'id = "F3-TWO"')
    assert 'id = "F3-TWO"' in text
    config.write_text(text)
    two = tmp_path / "two" / "F3-TWO.journal.sqlite"
    two.parent.mkdir()
    done = tablesim("run", "--config", str(config), "--quiet", "--rounds", "1", "--journal", str(two), "--studio", url)
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(mine) as db:
        n = db.execute("SELECT MAX(seq) FROM records").fetchone()[0]
    shutil.copy(two, mine)
    out = tablesim("audit", "verify", "--journal", str(mine), "--anchor", url)
    assert out.returncode == 1, out.stdout + out.stderr
    assert f"table {TABLE}: {n} records in the stream, 0 in the journal" in out.stderr
    assert "holds table F3-TWO's records" in out.stderr
    assert f"records 1 to {n}: in the stream, missing from the journal" in out.stderr
    assert out.stderr.count("missing from the journal") == 1
    elsewhere = tmp_path / "elsewhere.sqlite"  # a name that names no table: --table says which
    shutil.copy(two, elsewhere)
    named = tablesim("audit", "verify", "--journal", str(elsewhere), "--table", TABLE, "--anchor", url)
    assert named.returncode == 1 and f"records 1 to {n}: in the stream, missing" in named.stderr, named.stderr


def test_a_record_stored_as_a_blob_is_one_line(published, nats_server):
    with sqlite3.connect(published) as db:
        db.execute("UPDATE records SET data = CAST(data AS BLOB) WHERE seq = 5")
    out = tablesim("audit", "verify", "--journal", str(published), "--anchor", nats_server.url)
    assert "Traceback" not in out.stderr, out.stderr
    assert out.returncode == 1
    assert "record 5: changed: its data is stored as a bytes (a BLOB)" in out.stderr


def test_a_served_table_whose_link_diverges_says_so_loudly(nats_server, tmp_path):
    """A record forged beside a served table: its console shows an incident
    naming the divergence, and the floor raises an alert for the table."""
    import subprocess

    
    from natsserver import free_port
    from test_studio_bets import wait_table
    from test_studio_publish import register_all

    url = nats_server.url
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen([sys.executable, "-m", "tablesim.cli.main", "serve", "--game", "fortune3", "--mock",
                             "--port", str(port), "--journal", str(tmp_path / f"{TABLE}.journal.sqlite"),
                             "--studio", url], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_table(base, lambda t: (t.get("studio") or {}).get("state") == "up")
        register_all()

        async def scenario():
            consumer = StudioConsumer(url)
            task = asyncio.create_task(consumer.run())
            try:
                await asyncio.wait_for(consumer.caught_up.wait(), 60)
                await asyncio.to_thread(forge, url, TABLE, 1_000_000, "0" * 64)
                deadline = time.monotonic() + 90
                while time.monotonic() < deadline:
                    if any("studio link diverged" in a["text"] for a in consumer.floor.alerts):
                        return consumer.floor.summary()
                    await asyncio.sleep(0.1)
                raise AssertionError("no floor alert")
            finally:
                consumer.stop()
                task.cancel()
        summary = asyncio.run(scenario())
        assert summary["tables"][0]["studio_link"]["state"] == "diverged"
        table = wait_table(base, lambda t: t.get("incident") is not None, timeout=60)
        assert table["studio"]["state"] == "diverged"
        assert "studio link diverged" in table["incident"]["text"] and not table["incident"]["blocking"]
        assert webclient.get(f"{base}/api/health", timeout=10).status_code == 200
    finally:
        proc.terminate()
        proc.wait(30)


def test_a_genuine_status_played_back_later_is_left_out(published, nats_server):
    """A status the table signed, recorded off the bus and published again
    after a newer one: its signature holds, but it is older than the last
    one taken (its signed ``sent``), so the floor's link stays the newer one
    and the playback is alerted."""
    url = nats_server.url

    async def scenario():
        consumer = StudioConsumer(url)
        task = asyncio.create_task(consumer.run())
        link = StudioLink(url, str(published), TABLE).start()
        nc = await nats.connect(url)
        try:
            heard: list = []

            async def took(msg) -> None:
                heard.append(msg)

            await nc.subscribe(wire.status_subject(TABLE), cb=took)
            deadline = time.monotonic() + 60
            while len(heard) < 2 and time.monotonic() < deadline:  # (one every STATUS_EVERY)
                await asyncio.sleep(0.05)
            assert len(heard) >= 2, heard
            second = json.loads(heard[1].data)["sent"]
            while (TABLE not in consumer.floor.tables or consumer.floor.tables[TABLE].status_sent < second) \
                    and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            newer = consumer.floor.tables[TABLE].status_sent
            assert newer >= second > json.loads(heard[0].data)["sent"]
            old = heard[0]
            await nc.publish(old.subject, old.data, headers=old.headers)
            await nc.flush()
            while TABLE not in consumer.floor.rejected and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            return consumer.floor, newer
        finally:
            await nc.close()
            link.stop()
            consumer.stop()
            task.cancel()

    floor, newer = asyncio.run(scenario())
    assert floor.rejected == {TABLE: 1}
    assert floor.tables[TABLE].status_sent >= newer  # (the playback did not take the link back)
    assert any("played back" in a["text"] for a in floor.summary()["alerts"])


def test_a_status_is_taken_only_when_sent_after_the_last_one():
    from tablesim.studio.floor import TableView

    view = TableView("F3-01")
    assert view.takes_status(None)  # (a table of an earlier release: no ``sent``)
    assert view.takes_status(5)
    view.status_sent = 5
    assert not view.takes_status(5) and not view.takes_status(4) and view.takes_status(6)
    assert not view.takes_status(None)  # (once the table sends it, a status without it is not taken)
    assert not view.takes_status(True) and not view.takes_status("9") and not view.takes_status(9.0)
