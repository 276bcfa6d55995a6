"""The studio service: every table's figures from the stream,
equal to the journals'; the same after a restart; a gap or a record that
does not chain raises an alert."""

from __future__ import annotations

import json
from decimal import Decimal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

import webclient
from tablesim.studio import wire
from tablesim.studio.floor import Floor

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
from journal_figures import add, as_numbers, journal_figures  # noqa: E402  (the independent recount)
from browser import HAVE_CHROMIUM, until
from natsserver import free_port
from test_studio_publish import register_all, run_table, tablesim

pytestmark = pytest.mark.slow  # real processes each test (started first: see tests/conftest.py)

GAMES = ("fortune3", "football", "wheel")


@pytest.fixture
def three_tables(nats_server, tmp_path):
    journals = []
    for i, game in enumerate(GAMES):
        journal = tmp_path / f"{game}.journal.sqlite"
        done = run_table(game, journal, nats_server.url, rounds=3, seed=i + 1)
        assert done.returncode == 0 and "every record published" in done.stdout, done.stderr
        journals.append(journal)
    return journals


def test_report_totals_equal_the_journals(three_tables, nats_server):
    out = tablesim("studio", "report", "--nats", nats_server.url, "--json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    expected: dict = {}
    for journal in three_tables:
        expected = add(expected, journal_figures(journal))
    assert as_numbers(report["floor"]) == expected
    assert report["floor"]["tables"] == 3
    assert sorted(report["games"]) == sorted(GAMES)  # the games' names come from their records
    assert not report["alerts"]
    for t in report["tables"]:
        assert t["state"] and t["last_results"] and t["figures"]["rounds"] + t["figures"]["void"] == 3
        assert sum(as_numbers(f)["wagered"] for f in t["by_bet"].values()) == as_numbers(t["figures"])["wagered"]
    text = tablesim("studio", "report", "--nats", nats_server.url)
    assert text.returncode == 0 and "the floor: 3 tables" in text.stdout


def wait_for(fn, timeout: float = 90.0, proc: subprocess.Popen | None = None):
    """``fn()``'s first true value. Pure waiting, so generous: a process start
    took 42 s on a CI machine at load 19. A ``proc`` that exits meanwhile
    fails at once, with what it said."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"exited with {proc.returncode}: {proc.stderr.read() if proc.stderr else ''}")
        try:
            value = fn()
        except httpx.HTTPError:
            value = None
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError("timed out")


def studio_serve(url: str, port: int) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "tablesim.cli.main", "studio", "serve", "--nats", url,
                             "--port", str(port)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def caught_up(base: str, records: int):
    def check():
        floor = webclient.get(f"{base}/api/floor", timeout=10).json()
        return floor if floor["records"] == records and floor["consumer"]["pending"] == 0 else None
    return check


def test_serve_shows_the_same_figures_and_again_after_a_restart(three_tables, nats_server, request):
    report = json.loads(tablesim("studio", "report", "--nats", nats_server.url, "--json").stdout)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = studio_serve(nats_server.url, port)
    try:
        floor = wait_for(caught_up(base, report["records"]), proc=proc)
        assert floor["floor"] == report["floor"] and floor["games"] == report["games"]
        assert "The floor" in webclient.get(base + "/", timeout=30).text
        one = webclient.get(f"{base}/api/tables/{floor['tables'][0]['table_id']}", timeout=30).json()
        assert one["figures"] == floor["tables"][0]["figures"]
        assert webclient.get(f"{base}/api/tables/NOPE", timeout=30).status_code == 404
        from websockets.sync.client import connect

        with connect(f"ws://127.0.0.1:{port}/ws") as ws:
            pushed = json.loads(ws.recv(timeout=30))
        assert pushed["type"] == "floor" and pushed["floor"] == report["floor"]
        if HAVE_CHROMIUM:  # the page's per-shift figures are the report's, row by row
            rows = webclient.get(f"{base}/api/report?by=shift", timeout=30).json()["rows"]
            b = request.getfixturevalue("page")
            b.goto(base + "/")
            until(b, f"document.querySelectorAll('#grouped tr').length === {len(rows) + 1}")
            tables = b.evaluate("[...document.querySelectorAll('#grouped tr')].slice(1)"
                                ".map(r => r.children[1].textContent)")
            assert sorted(tables) == sorted(r["table_id"] or "all tables" for r in rows)
            wagered = b.evaluate("[...document.querySelectorAll('#grouped tr')].slice(1).map(r => r.children[5].textContent)")
            assert sorted(wagered) == sorted(f"{Decimal(r['wagered']):,}" for r in rows)  # as the floor's figures: 1,654
            # a money column shows as many decimals on every row (a 5 % commission's .65 above a 4,820)
            for column in (5, 6, 7):
                shown = b.evaluate(f"[...document.querySelectorAll('#grouped tr')].slice(1)"
                                   f".map(r => r.children[{column}].textContent)")
                assert len({text.rpartition(".")[2].__len__() if "." in text else 0 for text in shown}) == 1, shown
    finally:
        proc.terminate()
        proc.wait(30)
    proc = studio_serve(nats_server.url, port)  # restarted: the stream rebuilds the same picture
    try:
        again = wait_for(caught_up(base, report["records"]), proc=proc)
        assert again["floor"] == report["floor"]
    finally:
        proc.terminate()
        proc.wait(30)


def rec(seq: int, prev: str, digest: str, name: str = "state", data: dict | None = None) -> wire.WireRecord:
    return wire.WireRecord(seq, "T1", "T1-000001", "event", name, data or {"state": "betting_open"}, prev, digest, b"")


def test_gap_and_broken_link_raise_alerts_and_are_left_out():
    floor = Floor()
    floor.apply(rec(1, "0" * 64, "a"))
    floor.apply(rec(2, "a", "b"))
    floor.apply(rec(4, "b", "d"))  # record 3 never reached the stream (or 4 is forged)
    floor.apply(rec(3, "x", "c"))  # does not name record 2's hash
    floor.apply(rec(3, "b", "c"))  # the table's own record 3: counted
    floor.apply(rec(3, "b", "c"))  # again
    floor.apply(rec(4, "c", "d2"))  # the table's own record 4 goes on
    texts = [a["text"] for a in floor.alerts]
    assert texts == ["gap in the stream: records 3 to 3 are missing (left out of the figures)",
                     "record 3 does not chain onto record 2 (left out of the figures)",
                     "record 3 again after record 3 (duplicate or out of order: left out of the figures)"]
    table = floor.summary()["tables"][0]
    assert table["alerts"] == 3 and table["seq"] == 4


def test_a_reader_that_sees_a_record_on_the_floor_sees_what_it_did():
    """The floor is read from other threads while its consumer applies records:
    the table's place moves only once the record's figures are in (a reader that
    saw record 2 read the figures without its result: a test failed so, under load)."""
    floor = Floor()
    floor.apply(rec(1, "0" * 64, "a"))
    seen: list[tuple[int, int]] = []
    result = floor._result

    def watched(t, record):
        result(t, record)  # the figures in, as the consumer's thread applies them...
        seen.append((t.seq, t.figures.rounds))  # ...and what another thread would see at that moment

    floor._result = watched
    floor.apply(rec(2, "a", "b", "result", {"game": "wheel", "status": "settled", "outcome": {}, "bets": {},
                                             "results": {}}))
    assert seen == [(1, 1)]  # the place still at record 1 while record 2's round is counted
    table = floor.tables["T1"]
    assert (table.seq, table.figures.rounds) == (2, 1)


def forge(url: str, table_id: str, seq: int, prev: str, data: dict) -> None:
    """What someone with publish rights on the bus could put in the stream."""
    import asyncio

    import nats

    body = wire.canonical({"v": 1, "record": {
        "seq": seq, "ts": "2026-11-30T00:00:00.000000+00:00", "table_id": table_id, "round_id": f"{table_id}-999999",
        "kind": "event", "name": "result", "actor": "table", "data": json.dumps(data, sort_keys=True), "prev_hash": prev,
        "hash": "f" * 64}})

    async def publish():
        nc = await nats.connect(url)
        try:
            await nc.jetstream().publish(wire.record_subject(table_id, "event"), body,
                                         headers={wire.MSG_ID: wire.msg_id(table_id, seq)})
        finally:
            await nc.close()

    asyncio.run(publish())


def test_records_forged_on_the_bus_are_alerted_and_never_counted(three_tables, nats_server):
    """A settled result paying a million, published beside a table (the next
    seq, or far ahead): the studio alerts and leaves it out, so its figures
    still equal the journals' (that the table's own next records still count
    is the test above)."""
    from tablesim.journal.journal import Journal

    report = json.loads(tablesim("studio", "report", "--nats", nats_server.url, "--json").stdout)
    expected = as_numbers(report["floor"])
    journal = Journal(three_tables[2], readonly=True)
    try:
        table_id, last = journal_table(journal)
    finally:
        journal.close()
    prize = {"game": "wheel", "status": "settled", "results": {"x": {"1": "1000000"}}, "net": {"x": "1000000"}}
    forge(nats_server.url, table_id, last + 1, "0" * 64, prize)  # the next seq, not chaining
    forge(nats_server.url, table_id, last + 500, "0" * 64, prize)  # far ahead
    again = json.loads(tablesim("studio", "report", "--nats", nats_server.url, "--json").stdout)
    assert as_numbers(again["floor"]) == expected
    assert len(again["alerts"]) == 2 and all(a["table_id"] == table_id for a in again["alerts"])
    wheel = next(t for t in again["tables"] if t["table_id"] == table_id)
    assert wheel["seq"] == last and wheel["alerts"] == 2  # its picture ends at its own last record


def journal_table(journal) -> tuple[str, int]:
    last = journal.latest()
    return last.table_id, last.seq


def make_full_stream(url: str) -> None:
    """The stream as an operator may have made it (the tables keep an
    operator's settings): so small that no record fits."""
    import asyncio

    import nats
    from nats.js import api

    async def make():
        nc = await nats.connect(url)
        try:
            await nc.jetstream().add_stream(name=wire.STREAM, subjects=wire.stream_subjects(), max_bytes=64,
                                            discard=api.DiscardPolicy.NEW, storage=api.StorageType.FILE)
        finally:
            await nc.close()

    asyncio.run(make())


def test_a_table_whose_records_cannot_reach_the_stream_is_on_the_floor(nats_server, tmp_path, request):
    """A floor supervisor must see a live table whose records do not reach
    the stream (here: a stream too small for any record), not an empty
    floor: it shows with its link and its records still to publish, with no
    figures (figures are the stream's, as `studio report` counts them)."""
    make_full_stream(nats_server.url)
    table = subprocess.Popen([sys.executable, "-m", "tablesim.cli.main", "serve", "--game", "wheel", "--mock",
                              "--port", "0", "--journal", str(tmp_path / "w.journal.sqlite"), "--studio",
                              nats_server.url], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    studio = studio_serve(nats_server.url, port)
    try:
        from tablesim.journal.location import data_dir

        wait_for(lambda: (data_dir() / "WHEEL-MOCK.sign.key").exists(), proc=table)
        register_all()  # (the studio takes a key registered while it runs)

        def heard():
            floor = webclient.get(f"{base}/api/floor", timeout=10).json()
            tables = {t["table_id"]: t for t in floor["tables"]}
            t = tables.get("WHEEL-MOCK")
            return (floor, t) if t and t["studio_link"] and t["studio_link"]["pending"] else None

        floor, t = wait_for(heard, proc=studio)
        assert t["seq"] == 0 and t["game"] == "wheel" and t["figures"]["rounds"] == 0
        assert floor["floor"]["tables"] == 0 and floor["games"] == {}  # no figures from a table with no record
        report = json.loads(tablesim("studio", "report", "--nats", nats_server.url, "--json").stdout)
        assert report["floor"] == floor["floor"]
        if HAVE_CHROMIUM:
            b = request.getfixturevalue("page")
            b.set_viewport_size({"width": 1200, "height": 800})
            b.goto(base + "/")
            until(b, "document.querySelector('#tables .card') !== null")
            text = b.evaluate("document.querySelector('#tables .card').textContent")
            assert "WHEEL-MOCK" in text and "no record in the stream yet" in text
            # no alert: the list says so calmly (not in the alerts' red)
            until(b, "document.querySelector('#alerts li').textContent === 'none'")
            none = b.evaluate("getComputedStyle(document.querySelector('#alerts li')).color")
            bad = b.evaluate("(() => { const s = document.createElement('span'); s.className = 'bad';"
                             " document.body.append(s); const c = getComputedStyle(s).color; s.remove(); return c; })()")
            assert none != bad, none
    finally:
        studio.terminate()
        studio.wait(10)
        # killed, not stopped: a stop would wait out the outbox's drain for records this stream can never take
        table.kill()
        table.wait(10)
