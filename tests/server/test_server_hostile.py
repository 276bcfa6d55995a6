"""Hostile requests to `tablesim serve` (a real process): no body is read
before the token is checked, bodies over the limit are refused 413 without
costing memory, and a bad body gets one readable reason."""

from __future__ import annotations

import json
import socket

import pytest

from hostile import HUNDRED_MB, rss_kib, send_big

from server_process import Serve
from tablesim.server.bodyguard import MAX_BODY

CHANGING_ROUTES = ["/api/bets", "/api/actions/open_round", "/api/pause", "/api/resume", "/api/void",
                   "/api/incident/resolve"]


@pytest.fixture
def served(env, tmp_path):
    s = Serve(env, "--game", "fortune3", "--mock", "--port", "0", "--journal", str(tmp_path / "f3.sqlite"),
              "--pace", "0.01")
    yield s
    assert s.stop() == 0


def test_no_body_is_read_before_the_token_and_big_bodies_cost_nothing(served):
    pid = served.proc.pid
    before = rss_kib(pid)
    for path in CHANGING_ROUTES:
        status, sent = send_big(served.url, path, token=None, declare=True)
        assert status == 401, path
        assert sent < HUNDRED_MB, f"{path}: the server read the whole body"
    for declare in (True, False):  # a dealer's token, but a body over the limit
        status, sent = send_big(served.url, "/api/bets", token=served.dealer, declare=declare)
        assert status == 413 and sent < HUNDRED_MB
    status, _ = send_big(served.url, "/api/bets", token="x" * 30, declare=False)
    assert status == 401
    after = rss_kib(pid)
    assert after - before < 20 * 1024, f"RSS grew from {before} to {after} kB"
    # and the table is untouched and still serves
    assert served.state()["state"] == "idle"
    assert served.post("/api/actions/open_round").status_code == 200


def test_a_body_just_under_the_limit_is_still_parsed(served):
    assert served.post("/api/actions/open_round").status_code == 200
    pad = "x" * (MAX_BODY - 200)
    res = served.post("/api/bets", {"position": "1", "bet": "ante", "amount": "10", "pad": pad})
    assert res.status_code == 422  # read and refused for its unknown field, not for its size
    res = served.post("/api/bets", {"position": "1", "bet": "ante", "amount": "10", "pad": pad + "x" * 400})
    assert res.status_code == 413 and res.json()["error"] == "too_large"
    assert served.state()["bets"] == {}


@pytest.mark.parametrize("body, reason", [
    ({"position": "3", "bet": "ante"}, "amount: Field required"),
    ({"position": "3", "bet": "ante", "amount": 10.5}, "amount"),
    ({"position": "3", "bet": "ante", "amount": "10", "plyer": "x"}, "plyer: Extra inputs are not permitted"),
])
def test_a_validation_error_is_one_readable_reason(served, body, reason):
    assert served.post("/api/actions/open_round").status_code == 200
    res = served.post("/api/bets", body)
    assert res.status_code == 422
    detail = res.json()["detail"]
    assert isinstance(detail, str) and "\n" not in detail and reason in detail, detail
    res = served.client.post("/api/bets", content=b"{not json",
                             headers={"Authorization": f"Bearer {served.dealer}", "Content-Type": "application/json"})
    assert res.status_code == 422 and isinstance(res.json()["detail"], str)
    res = served.post("/api/actions/decide", {"box": "3", "decision": "maybe"})
    assert res.status_code == 422 and isinstance(res.json()["detail"], str) and "decision" in res.json()["detail"]


def test_tokens_in_a_file_are_not_printed_unless_asked(env, tmp_path, monkeypatch):
    import subprocess
    import sys

    from server_process import ROOT

    journal = tmp_path / "w.sqlite"
    proc = subprocess.Popen([sys.executable, "-m", "tablesim.cli.main", "serve", "--game", "wheel", "--mock",
                             "--port", "0", "--journal", str(journal)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    lines = []
    try:
        while not lines or not lines[-1].startswith("stop with"):
            line = proc.stdout.readline()
            assert line, proc.stderr.read()
            lines.append(line.rstrip("\n"))
    finally:
        proc.terminate()
        proc.wait(10)
        proc.stdout.close()
        proc.stderr.close()
    tokens_file = tmp_path / "w.tokens.json"
    text = "\n".join(lines)
    assert f"operator tokens: {tokens_file} (new)" in lines and "--show-tokens" in text
    import json

    for op in json.loads(tokens_file.read_text())["operators"]:
        assert op["token"] not in text
    assert any(line.startswith("console: http://127.0.0.1:") and line.endswith("/") for line in lines)


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGINT"])
def test_a_table_stopped_as_soon_as_it_says_so_stops_cleanly(env, tmp_path, sig):
    """Once "stop with Ctrl-C" is out, a stop is a clean stop, however soon it
    comes: it used to raise at whatever line the signal came (a traceback in
    an import, exit 1, about one start in three) or be lost in the event loop
    (a table that never stopped)."""
    import signal
    import subprocess
    import sys

    from server_process import ROOT

    proc = subprocess.Popen([sys.executable, "-m", "tablesim.cli.main", "serve", "--game", "wheel", "--mock",
                             "--port", "0", "--journal", str(tmp_path / "w.sqlite")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    try:
        while not (line := proc.stdout.readline()).startswith("stop with"):
            assert line, proc.stderr.read()
        proc.send_signal(getattr(signal, sig))
        out, err = proc.communicate(timeout=60)  # pure waiting: a loaded machine
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    assert out.splitlines()[-1] == "WHEEL-MOCK: stopped" and "Traceback" not in err


@pytest.mark.parametrize("body, reason", [
    ({"position": ["3"], "bet": "ante", "amount": "10"}, "position: a text or a whole number"),
    ({"position": "3", "bet": "ante", "amount": 10.5}, "amount: a string like '12.50' or a whole number; never a float"),
    (b"\xff\xfe{", "the body is not valid JSON"),
])
def test_a_choice_of_types_or_broken_json_reads_as_one_reason_not_pydantics_parts(served, body, reason):
    """'amount.str: Input should be a valid string; amount.int: ...'
    is pydantic's inside; the client reads what the field takes."""
    assert served.post("/api/actions/open_round").status_code == 200
    headers = {"Authorization": f"Bearer {served.dealer}", "Content-Type": "application/json"}
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    res = served.client.post("/api/bets", content=content, headers=headers)
    assert res.status_code == 422 and res.json()["detail"] == reason
    batch = served.client.post("/api/bets/batch", content=b'{"bets": [%s]}' % content, headers=headers)
    if not isinstance(body, bytes):
        assert batch.status_code == 200
        assert batch.json()["results"][0]["detail"] == "bets.0." + reason


def test_a_websocket_client_cannot_make_the_server_hold_big_messages(served):
    """The stream takes nothing from a client but ``{"since": N}`` and pings:
    a message of a megabyte (anyone may open /ws) is refused at once (close
    1009), costing the server no memory; other clients and the API go on."""
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    pid = served.proc.pid
    url = served.url.replace("http", "ws") + "/ws?since="
    before = rss_kib(pid)
    closed = []
    for _ in range(3):
        with connect(url, open_timeout=5, max_size=None) as ws:
            try:
                ws.send("x" * (1024 * 1024))
                while True:
                    ws.recv(timeout=5)
            except ConnectionClosed as exc:
                closed.append(exc.rcvd.code if exc.rcvd else None)
    assert closed == [1009] * 3
    assert rss_kib(pid) - before < 20 * 1024
    with connect(url, open_timeout=5) as ws:
        ws.send(json.dumps({"since": 0}))
        assert json.loads(ws.recv(timeout=5))["type"]
    assert served.state()["state"] == "idle"


def test_a_websocket_client_sending_on_after_its_refusal_is_cut_off(served):
    """A client refused for its frame (one declaring a gigabyte) reads the
    close, but may not keep the server reading what it goes on sending: the
    connection is cut after ``LINGER_BYTES`` more (well before ``LINGER``)."""
    import base64
    import os
    import time

    from tablesim.web.wsframes import LINGER, LINGER_BYTES

    host, port = served.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as conn:
        key = base64.b64encode(os.urandom(16)).decode()
        conn.sendall((f"GET /ws?since= HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                      f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        assert conn.recv(4096).startswith(b"HTTP/1.1 101")
        conn.sendall(bytes([0x81, 0xFF]) + (1 << 30).to_bytes(8, "big") + b"mask")  # a masked text frame of 1 GB
        started, sent = time.monotonic(), 0
        with pytest.raises(OSError):  # (a reset, or a broken pipe)
            while time.monotonic() - started < 3 * LINGER:
                sent += conn.send(b"y" * 65536)
        assert sent < LINGER_BYTES + 16 * 1024 * 1024  # (what the sockets' buffers held besides)
    assert served.state()["state"] == "idle"
