"""The served table's smaller promises under hostile or broken conditions:
WebSocket origins, bodies nested too deeply, a journal that cannot commit
(health, systemd's watchdog, a batch of bets), where the journal is."""

from __future__ import annotations

import json
import time

import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from server_helpers import ok
from test_server_sdnotify import NotifySocket


def ws_url(s) -> str:
    return s.url.replace("http", "ws") + "/ws?since="


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "http://127.0.0.1.evil.example",
                                    "file://", "http://localhost:1"])
def test_a_websocket_from_another_origin_is_refused(serve, origin):
    s = serve("wheel", journal=False)
    with pytest.raises(InvalidStatus) as refused:
        connect(ws_url(s), origin=origin, open_timeout=5)
    assert refused.value.response.status_code == 403


def test_the_tables_own_origin_no_origin_and_a_configured_one_are_served(serve, tmp_path):
    s = serve("wheel", journal=False)
    own = s.url  # the page the table itself served
    for origin in (own, None):
        with connect(ws_url(s), origin=origin, open_timeout=5) as ws:
            assert json.loads(ws.recv(timeout=10))["type"] == "hello"
    from tablesim.server.process import ServerThread

    other = ServerThread(s.runner, s.tokens, allowed_origins=["https://floor.example:8443"]).start()
    try:
        url = other.url.replace("http", "ws") + "/ws?since="
        with connect(url, origin="https://floor.example:8443", open_timeout=5) as ws:
            assert json.loads(ws.recv(timeout=10))["type"] == "hello"
        with pytest.raises(InvalidStatus):
            connect(url, origin="https://floor.example:8444", open_timeout=5)
    finally:
        other.stop()


@pytest.mark.parametrize("path", ["/api/bets", "/api/bets/batch", "/api/actions/open_round",
                                  "/api/actions/decide", "/api/pause", "/api/incident/resolve"])
def test_json_nested_too_deeply_is_bad_input_in_one_line(serve, path):
    s = serve("fortune3")
    ok(s.post("/api/actions/open_round"))
    before = s.records()
    for body in (b"[" * 7000 + b"]" * 7000, b'{"bets": ' + b"[" * 7000 + b"]" * 7000 + b"}"):
        assert len(body) < 16 * 1024
        for headers in ({"content-type": "application/json"}, {}):
            res = s.client.post(path, content=body, headers={**s.auth("supervisor"), **headers})
            assert res.status_code == 422, (path, res.status_code, res.text[:200])
            detail = res.json()["detail"]
            assert isinstance(detail, str) and "\n" not in detail
    assert s.records() == before
    assert s.get("/api/health").json()["ok"]


def test_a_journal_that_cannot_commit_is_told_by_health_the_watchdog_and_each_bet(serve, notify, monkeypatch):
    monkeypatch.setenv("NOTIFY_SOCKET", str(notify.path))
    monkeypatch.setenv("WATCHDOG_USEC", "100000")
    s = serve("fortune3")
    ok(s.post("/api/actions/open_round"))
    notify.wait_for("WATCHDOG=1")
    assert s.get("/api/health").json() == {"ok": True, "table_id": s.table.table_id, "game": "fortune3",
                                           "journal": "ok"}
    reserve = s.table.journal.reserve
    s.on_table(lambda: setattr(s.table.journal, "reserve", 1 << 62))  # the disk has less room than an action needs
    bets = [{"position": str(b), "bet": "ante", "amount": "10", "ref": f"r{b}"} for b in (1, 2, 3)]
    res = s.post("/api/bets/batch", {"bets": bets})
    assert res.status_code == 200, res.text
    results = res.json()["results"]
    assert [r["ref"] for r in results] == ["r1", "r2", "r3"] and not any(r["ok"] for r in results)
    assert all("disk is full" in r["reason"] for r in results)
    single = s.post("/api/bets", bets[0])
    assert single.status_code == 409 and "disk is full" in single.json()["reason"]
    health = s.get("/api/health")
    assert health.status_code == 503 and not health.json()["ok"] and "disk is full" in health.json()["journal"]
    folder = str(s.journal_path.parent)
    assert all(folder not in text for text in (res.text, single.text, health.text))
    end = time.monotonic() + 10
    while not any(m.startswith("STATUS=the journal's last commit failed") and "disk is full" in m
                  for _, m in list(notify.messages)):
        assert time.monotonic() < end, notify.messages
        time.sleep(0.01)
    quiet = time.monotonic()
    time.sleep(0.5)
    assert notify.pings(quiet + 0.05, time.monotonic()) == 0  # systemd sees a table that cannot work
    s.on_table(lambda: setattr(s.table.journal, "reserve", reserve))
    ok(s.post("/api/bets/batch", {"bets": bets}))  # room again: the next commit clears it
    assert s.get("/api/health").json()["ok"]
    back = end = time.monotonic()
    while not notify.pings(back, time.monotonic() + 1):  # the pings are back
        assert time.monotonic() < end + 10, notify.messages
        time.sleep(0.01)


def test_the_table_view_and_the_hello_do_not_say_where_the_journal_is(serve):
    s = serve("football")
    folder = str(s.journal_path.parent)
    assert s.state()["journal"] == s.journal_path.name and folder not in s.get("/api/table").text
    with connect(ws_url(s), open_timeout=5) as ws:
        assert folder not in ws.recv(timeout=10)


@pytest.fixture
def notify(tmp_path):
    ns = NotifySocket(tmp_path / "notify.sock")
    yield ns
    ns.close()
