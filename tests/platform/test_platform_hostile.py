"""Hostile requests to a real platform process: a body far over the limit,
declared or chunked, to each route that reads one (opening a session needs
no session, so anyone may send it) is refused once the limit is passed,
before the platform holds it; its memory stays put and it goes on serving.
JSON nested thousands of levels deep, to each route and on the player's
socket, is refused as bad input in one line (the socket lives on)."""

from __future__ import annotations

import pytest

from hostile import HUNDRED_MB, rss_kib, send_big
from tablesim.platform.fastbets import MAX_BODY

ROUTES = ("/api/session", "/api/decisions", "/api/bets")


@pytest.fixture(scope="module")
def platform(_rig):
    import reaper

    p = _rig.platform(db="hostile.db")
    reaper._STARTED.remove(p.proc)  # (the module's: stopped with it, not after each test)
    yield p
    _rig.stop_platforms()


@pytest.mark.parametrize("declare", [True, False], ids=["content-length", "chunked"])
def test_a_hundred_megabytes_to_each_route_is_refused_without_holding_it(_rig, platform, declare):
    session = platform.session(_rig.token("kim"))["session"]
    before = rss_kib(platform.proc.pid)
    for path in ROUTES:
        status, sent = send_big(platform.url, path, token=None if path == "/api/session" else session,
                                declare=declare)
        assert status in (400, 413), (path, status)
        assert sent < HUNDRED_MB // 4, (path, sent)  # (it stopped reading: the rest was never sent)
    assert rss_kib(platform.proc.pid) - before < 20 * 1024
    assert platform.session(_rig.token("kim"))["player"] == "kim"  # and it goes on serving


def test_a_body_just_over_the_limit_gets_one_readable_refusal(_rig, platform):
    import webclient

    r = webclient.post(f"{platform.url}/api/session", content=b"{" + b" " * MAX_BODY + b"}", timeout=20,
                       headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and r.json()["status"] == "too_large", r.text
    assert f"over {MAX_BODY} bytes" in r.json()["message"] and "\n" not in r.json()["message"]


def test_deeply_nested_json_is_bad_input_on_each_route_and_on_the_socket(_rig, platform):
    import webclient
    from wsclient import Player

    session = platform.session(_rig.token("kim"))["session"]
    for body in (b"[" * 1500 + b"]" * 1500, b"[" * 5000 + b"]" * 5000, b'{"a":' * 1500 + b"1" + b"}" * 1500):
        for path in ROUTES:
            r = webclient.post(f"{platform.url}{path}", content=body, timeout=20, headers={
                "Content-Type": "application/json", "Authorization": f"Bearer {session}"})
            assert r.status_code == 400 and r.json()["status"] == "bad_input", (path, r.status_code, r.text[:200])
            assert "nests deeper than 32 levels" in r.json()["message"], r.text
    kim = Player(platform.url, session)
    try:
        kim.wait(lambda m: m["type"] == "welcome")
        kim.send("[" * 1500 + "]" * 1500)
        refusal = kim.wait(lambda m: m["type"] == "answer" and m["id"] is None)
        assert refusal["status"] == "bad_input" and "nests deeper than 32 levels" in refusal["message"], refusal
        kim.send({"type": "ping", "t": 7})
        assert kim.wait(lambda m: m["type"] == "pong")["t"] == 7  # the socket lives on
    finally:
        kim.close()
