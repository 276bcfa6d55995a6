"""``tablesim studio init``: the stream and the keys bucket made, idempotent,
a change that would lose records refused in one line with nothing changed;
``studio register-key --nats`` writes the bucket and the studio counts the
tables it registers; ``audit verify --anchor --complete`` fails while
records are unanchored."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import sys

from nats.js import api

from tablesim.studio import natsio, wire


def tablesim(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tablesim.cli.main", *args], capture_output=True, text=True,
                          timeout=timeout)


def stream(url: str) -> api.StreamInfo:
    async def go():
        nc = await natsio.connect(url, "test")
        try:
            return await nc.jetstream().stream_info(wire.STREAM)
        finally:
            await nc.close()
    return asyncio.run(go())


def test_init_is_idempotent_and_refuses_to_lose_records(nats_server, tmp_path):
    url = nats_server.url
    made = tablesim("studio", "init", "--nats", url)
    assert made.returncode == 0, made.stderr
    assert "stream TABLESIM: created (1 replica(s), no limits" in made.stdout
    assert "bucket TABLESIM_KEYS: created" in made.stdout
    again = tablesim("studio", "init", "--nats", url)
    assert again.returncode == 0 and "already as asked" in again.stdout and "created" not in again.stdout
    journal = tmp_path / "WH-INIT.journal.sqlite"
    done = tablesim("run", "--game", "wheel", "--mock", "--quiet", "--rounds", "1", "--journal", str(journal),
                    "--studio", url)
    assert done.returncode == 0, done.stderr
    held = stream(url).state.messages
    assert held > 5
    lower = tablesim("studio", "init", "--nats", url, "--max-msgs", str(held - 1))
    assert lower.returncode == 2
    assert lower.stderr.strip().splitlines() == [
        f"tablesim: error: --max-msgs {held - 1}: stream TABLESIM holds {held}; a lower limit would lose records"]
    assert stream(url).config.max_msgs == -1  # nothing changed
    roomy = tablesim("studio", "init", "--nats", url, "--max-msgs", str(held * 100))
    assert roomy.returncode == 0 and f"max_msgs -1 -> {held * 100}" in roomy.stdout
    assert stream(url).config.discard == api.DiscardPolicy.NEW  # full: new records wait in the journals
    assert stream(url).state.messages == held


def test_init_refuses_another_subject_set(nats_server):
    async def other():
        nc = await natsio.connect(nats_server.url, "test")
        try:
            await nc.jetstream().add_stream(name=wire.STREAM, subjects=["tablesim.*.input", "audit.>"])
        finally:
            await nc.close()
    asyncio.run(other())
    refused = tablesim("studio", "init", "--nats", nats_server.url)
    assert refused.returncode == 2
    assert refused.stderr.strip().splitlines() == [
        "tablesim: error: stream TABLESIM takes audit.> besides the records' subjects: a different subject set "
        "(init only adds the record subjects, it never changes others)"]
    assert stream(nats_server.url).config.subjects == ["tablesim.*.input", "audit.>"]


def test_register_key_in_the_bucket_and_the_studio_counts_it(nats_server, tmp_path):
    url = nats_server.url
    assert tablesim("studio", "init", "--nats", url).returncode == 0
    journal = tmp_path / "F3-KV.journal.sqlite"
    done = tablesim("run", "--game", "fortune3", "--mock", "--quiet", "--rounds", "1", "--journal", str(journal),
                    "--studio", url)
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(journal) as db:
        [(table_id,)] = db.execute("SELECT DISTINCT table_id FROM records").fetchall()
    pub = tmp_path / "pub.json"
    exported = tablesim("keys", "export-public", "--table", table_id, "--out", str(pub))
    assert exported.returncode == 0, exported.stderr
    unknown = json.loads(tablesim("studio", "report", "--nats", url, "--json").stdout)
    assert unknown["floor"]["tables"] == 0  # nobody registered it: it counts nowhere
    reg = tablesim("studio", "register-key", str(pub), "--nats", url)
    assert reg.returncode == 0 and f"{table_id}: key registered (bucket TABLESIM_KEYS)" in reg.stdout, reg.stderr
    assert "already registered" in tablesim("studio", "register-key", str(pub), "--nats", url).stdout
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"v": 1, "table_id": table_id, "ed25519": "ab" * 32}))
    refused = tablesim("studio", "register-key", str(other), "--nats", url)
    assert refused.returncode == 2 and "give --replace" in refused.stderr
    counted = json.loads(tablesim("studio", "report", "--nats", url, "--json").stdout)
    assert counted["floor"]["tables"] == 1 and counted["floor"]["rounds"] == 1
    anchored = tablesim("audit", "verify", "--journal", str(journal), "--anchor", url, "--complete")
    assert anchored.returncode == 0, anchored.stderr
    assert "anchored, every record in the stream" in anchored.stdout


def test_anchor_complete_fails_while_records_are_unanchored(nats_server, tmp_path):
    journal = tmp_path / "WH-GAP.journal.sqlite"
    url = nats_server.url
    assert tablesim("run", "--game", "wheel", "--mock", "--quiet", "--rounds", "1", "--journal", str(journal),
                    "--studio", url).returncode == 0
    nats_server.stop()
    assert tablesim("run", "--game", "wheel", "--mock", "--quiet", "--rounds", "1", "--journal", str(journal),
                    "--studio", url).returncode == 0  # (the broker away: these records wait in the journal)
    nats_server.start()
    plain = tablesim("audit", "verify", "--journal", str(journal), "--anchor", url)
    assert plain.returncode == 0
    assert "not in the stream (unanchored: not published yet; --complete fails on it)" in plain.stdout
    complete = tablesim("audit", "verify", "--journal", str(journal), "--anchor", url, "--complete")
    assert complete.returncode == 1
    assert "NOT complete" in complete.stderr and "unanchored" in complete.stderr
