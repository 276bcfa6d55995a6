"""Anchoring: the tamperings a single journal file cannot catch
are caught against the stream, each named with its seq; records
not yet published are counted as unanchored, never as errors."""

from __future__ import annotations

import shutil
import sqlite3
import time
from pathlib import Path

import pytest

from tablesim.journal.chain import GENESIS, record_link
from tablesim.journal.keys import default_key_path, load_key
from tablesim.studio.anchor import verify_anchor
from tablesim.studio.outbox import StudioLink

from natsserver import NATS_SERVER, NatsServer
from test_studio_publish import run_table, tablesim

TABLE = "F3-MOCK"  # the mock fortune3 table's id


def publish(journal: Path, url: str) -> Path:
    """A fortune3 journal of 3 rounds, every record published."""
    journal.parent.mkdir(parents=True)
    done = run_table("fortune3", journal, url, rounds=3)
    assert done.returncode == 0 and "every record published" in done.stdout, done.stderr
    return journal


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    """One broker and one published journal for the tamperings, which only
    read them (each tampers with its own copy): (journal, broker, key file)."""
    if NATS_SERVER is None:
        pytest.skip("nats-server is not installed (Debian package nats-server): the studio needs a broker")
    base = tmp_path_factory.mktemp("anchor")
    server = NatsServer(base / "nats-store").start()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_DATA_HOME", str(base / "xdg"))
        journal = publish(base / "orig" / f"{TABLE}.journal.sqlite", server.url)
        key = default_key_path(TABLE)
    yield journal, server, key
    server.stop()


@pytest.fixture
def published(shared):
    return shared[0]


@pytest.fixture
def nats_server(shared):
    return shared[1]


@pytest.fixture
def own(tmp_path):
    """A broker and a published journal of the test's own (it changes them)."""
    if NATS_SERVER is None:
        pytest.skip("nats-server is not installed (Debian package nats-server): the studio needs a broker")
    server = NatsServer(tmp_path / "nats-store").start()
    yield publish(tmp_path / "orig" / f"{TABLE}.journal.sqlite", server.url), server
    server.stop()


KEY: list[Path] = []


@pytest.fixture(autouse=True)
def _key(shared):
    KEY[:] = [shared[2]]


def tampered(published, tmp_path, name: str, *sql: str, rechain: bool = False):
    copy = tmp_path / name / published.name
    copy.parent.mkdir()
    shutil.copy(published, copy)
    db = sqlite3.connect(copy)
    for statement in sql:
        db.execute(statement)
    if rechain:  # what whoever controls the PC (code and key file) can do: rebuild every link after the edit
        key = load_key(KEY[0])
        prev = GENESIS
        rows = db.execute("SELECT seq, ts, table_id, round_id, kind, name, actor, data FROM records ORDER BY seq").fetchall()
        for seq, *rest in rows:
            digest = record_link(key, prev, seq, *rest)
            db.execute("UPDATE records SET prev_hash = ?, hash = ? WHERE seq = ?", (prev, digest, seq))
            prev = digest
        db.execute("DELETE FROM head")
    db.commit()
    db.close()
    return copy


def problems(journal, url):
    [report] = verify_anchor(str(journal), url)
    assert not report.ok
    return report, report.problems


def last_seq(journal) -> int:
    with sqlite3.connect(journal) as db:
        return db.execute("SELECT MAX(seq) FROM records").fetchone()[0]


def test_intact_journal_is_anchored(published, nats_server):
    [report] = verify_anchor(str(published), nats_server.url)
    assert report.ok and report.anchored == report.journal_records == report.stream_records


def test_truncated_tail_with_head_rewritten(published, nats_server, tmp_path):
    n = last_seq(published)
    copy = tampered(published, tmp_path, "trunc", f"DELETE FROM records WHERE seq > {n - 5}", "DELETE FROM head")
    report, found = problems(copy, nats_server.url)
    assert [seq for seq, _ in found] == list(range(n - 4, n + 1))
    assert all("missing from the journal" in text for _, text in found)
    out = tablesim("audit", "verify", "--journal", str(copy), "--key", str(KEY[0]), "--anchor", nats_server.url)
    assert out.returncode == 1
    # one line for the run of missing records, not one per record
    assert f"records {n - 4} to {n}: in the stream, missing from the journal" in out.stderr
    assert out.stderr.count("missing from the journal") == 1


def test_everything_deleted(published, nats_server, tmp_path):
    copy = tampered(published, tmp_path, "all", "DELETE FROM records", "DELETE FROM head")
    report, found = problems(copy, nats_server.url)
    assert report.table_id == TABLE  # named by the file, as the journal names no table any more
    assert len(found) == report.stream_records and found[0][0] == 1


def test_edit_rechained_with_the_codes_own_hash(published, nats_server, tmp_path):
    with sqlite3.connect(published) as db:
        seq = db.execute("SELECT seq FROM records WHERE kind='event' AND name='bet' ORDER BY seq LIMIT 1").fetchone()[0]
    copy = tampered(published, tmp_path, "edit",
                    f"UPDATE records SET data = replace(data, '\"amount\":\"', '\"amount\":\"9') WHERE seq = {seq}",
                    rechain=True)
    report, found = problems(copy, nats_server.url)
    assert found[0] == (seq, "changed: the journal's record differs from the stream's")
    # every later record keeps its content but carries other links
    assert all("re-chained" in text for s, text in found[1:]) and len(found) == last_seq(published) - seq + 1


def test_round_removed_and_renumbered(published, nats_server, tmp_path):
    with sqlite3.connect(published) as db:
        lo, hi = db.execute("SELECT MIN(seq), MAX(seq) FROM records WHERE round_id = ?", (f"{TABLE}-000002",)).fetchone()
    width = hi - lo + 1
    copy = tampered(published, tmp_path, "round",
                    f"DELETE FROM records WHERE round_id = '{TABLE}-000002'",
                    f"UPDATE records SET seq = seq - {width} WHERE seq > {hi}", rechain=True)
    report, found = problems(copy, nats_server.url)
    assert found[0][0] == lo
    assert f"removed and renumbered" in found[0][1]
    assert any("missing from the journal" in text for _, text in found)  # the tail is gone


def test_record_inserted(published, nats_server, tmp_path):
    copy = tampered(published, tmp_path, "insert",
                    "UPDATE records SET seq = seq + 1000 WHERE seq >= 10",
                    "UPDATE records SET seq = seq - 999 WHERE seq >= 1010",
                    "INSERT INTO records SELECT 10, ts, table_id, round_id, kind, name, actor, data, prev_hash, hash"
                    " FROM records WHERE seq = 9", rechain=True)
    report, found = problems(copy, nats_server.url)
    assert found[0][0] == 10 and "inserted into the journal at 10" in found[0][1]


def test_tail_replaced_by_forged_records(published, nats_server, tmp_path):
    n = last_seq(published)
    copy = tampered(published, tmp_path, "forge",
                    f"UPDATE records SET data = '{{\"forged\":1}}' WHERE seq = {n}", rechain=True)
    report, found = problems(copy, nats_server.url)
    assert found == [(n, "changed: the journal's record differs from the stream's")]


def test_unpublished_records_are_unanchored_not_errors(own):
    published, nats_server = own
    nats_server.stop()
    more = run_table("fortune3", published, nats_server.url, rounds=1, seed=9)
    assert more.returncode == 0 and "still to go" in more.stdout
    nats_server.start()
    [report] = verify_anchor(str(published), nats_server.url)
    assert report.ok and report.unanchored > 0
    assert report.anchored + report.unanchored == report.journal_records


def diverged_status(url: str) -> dict:
    """The next status message of the table."""
    import asyncio
    import json

    import nats

    async def listen():
        nc = await nats.connect(url)
        try:
            sub = await nc.subscribe(f"tablesim.{TABLE}.status")
            return json.loads((await sub.next_msg(timeout=10)).data)
        finally:
            await nc.close()

    return asyncio.run(listen())


def test_outbox_refuses_to_anchor_a_rewritten_history(own, tmp_path):
    published, nats_server = own
    KEY[:] = [default_key_path(TABLE)]
    n = last_seq(published)
    copy = tampered(published, tmp_path, "diverge", f"DELETE FROM records WHERE seq > {n - 3}", rechain=True)
    link = StudioLink(nats_server.url, str(copy), TABLE).start()
    try:
        deadline = time.monotonic() + 10
        while link.state != "diverged" and time.monotonic() < deadline:
            time.sleep(0.05)
        assert link.state == "diverged"
        assert f"records {n - 2} to {n} of {TABLE}" in link.error and "audit verify --anchor" in link.error
        # and it says so on the bus (the floor shows the table as diverged), however long it stays so
        assert diverged_status(nats_server.url)["state"] == "diverged"
    finally:
        link.stop()
    [report] = verify_anchor(str(published), nats_server.url)
    assert report.ok and report.stream_records == n  # nothing of the copy was published


@pytest.mark.parametrize("how", ["file deleted", "file emptied", "records table dropped", "key file lost"])
def test_a_journal_gone_or_unreadable_is_still_held_against_the_stream(how, published, nats_server, tmp_path):
    """Deleting the journal file (or emptying it, or dropping its records) is
    deleting everything: with --anchor the stream says what it held, by the
    file's table id, and the audit exits 1, not 2 ("unreadable" alone)."""
    copy = tmp_path / "gone" / published.name
    copy.parent.mkdir()
    shutil.copy(published, copy)
    key = ["--key", str(KEY[0])]
    if how == "file deleted":
        copy.unlink()
    elif how == "file emptied":
        copy.write_bytes(b"")
    elif how == "records table dropped":
        with sqlite3.connect(copy) as db:
            db.execute("DROP TABLE records")
    else:
        key = ["--key", str(tmp_path / "nowhere.key")]
        lost = tablesim("audit", "verify", "--journal", str(copy), "--anchor", nats_server.url, *key)
        assert lost.returncode == 2 and "no such key file" in lost.stderr  # (a --key named is read first)
        key = []  # no key in this data directory: the file is unreadable, its records are still compared
    out = tablesim("audit", "verify", "--journal", str(copy), "--anchor", nats_server.url, *key)
    n = last_seq(published)
    if how == "key file lost":
        # the journal cannot be verified without its key (exit 2), but it is
        # held against the stream all the same: every record is the stream's
        assert out.returncode == 2, out.stderr
        assert f"{n} anchored, 0 unanchored: anchored" in out.stdout and "unreadable" in out.stderr
        return
    assert out.returncode == 1, (out.stdout, out.stderr)
    assert "unreadable" in out.stderr and f"table {TABLE}: {n} records in the stream, 0 in the journal" in out.stderr
    assert f"records 1 to {n}: in the stream, missing from the journal" in out.stderr
    assert "Traceback" not in out.stderr


@pytest.mark.slow
def test_a_start_over_a_journal_that_lacks_published_records_is_refused(own, tmp_path):
    """A new journal under a table id the stream already holds, the key
    still there (a journal deleted, a PC replaced): the start holds the
    journal against the stream and refuses in one line naming the records
    it lacks (exit 2), before anything is written."""
    published, nats_server = own
    n = last_seq(published)
    fresh = tmp_path / "fresh" / published.name
    fresh.parent.mkdir()
    done = run_table("fortune3", fresh, nats_server.url, rounds=1, seed=4)
    assert done.returncode == 2, (done.stdout, done.stderr)
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("tablesim: error: ") and f"records 1 to {n} of {TABLE}" in line and "lacks" in line
    assert not fresh.exists() or last_seq(fresh) is None  # nothing was journaled
    # an older copy of the journal (a restored backup: its last rounds gone)
    older = tampered(published, tmp_path, "older", f"DELETE FROM records WHERE seq > {n - 20}", "DELETE FROM head")
    done = run_table("fortune3", older, nats_server.url, rounds=1, seed=4)
    assert done.returncode == 2 and f"records {n - 19} to {n} of {TABLE}" in done.stderr, done.stderr
    assert last_seq(older) == n - 20
    [report] = verify_anchor(str(published), nats_server.url)
    assert report.ok  # nothing of the new journal was published
