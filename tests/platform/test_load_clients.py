"""The load processes' players (tablesim/harness/bench/player_clients.py):
what they read off a placed bet's answer without parsing it, and the bet
messages they write from a template, the same bytes as encoded whole."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hypothesis import given, strategies as st

from tablesim.harness.bench.player_clients import Player, Shared, placed_id
from tablesim.platform.player.hub import dumps


def answer(rid, status: str = "placed", **more) -> str:
    """A bet's answer as the platform's socket writes it (its head, then the desk's body)."""
    body = {"ok": status == "placed", "status": status, "bet_id": "b-1", "table": "WHEEL-LOAD", **more}
    return '{"type":"answer","id":%s,"kind":"bet",%s' % (json.dumps(rid), dumps(body)[1:])


@given(st.integers(min_value=0, max_value=10**12))
def test_a_placed_answers_id_is_read_off_its_head(rid):
    text = answer(rid, receipt={"v": 2, "path": ["ab" * 32] * 8})
    assert placed_id(text) == rid == json.loads(text)["id"]


def test_anything_but_a_placed_answer_with_a_numeric_id_is_left_to_the_parser():
    assert placed_id(answer(7, "refused", message="over the maximum")) is None
    assert placed_id(answer("7")) is None  # (an id the page sent as a text: not one of the load's)
    assert placed_id(answer(-7)) is None
    assert placed_id('{"type":"answer","id":7,"kind":"balance","ok":true,"status":"placed",}') is None
    assert placed_id('{"type":"event","kind":"state"}') is None
    assert placed_id('{"type":"answer","id":7') is None  # (cut short: no field after the id)


class Transport:
    def __init__(self) -> None:
        self.written = b""

    def write(self, data: bytes) -> None:
        self.written += data

    def is_closing(self) -> bool:
        return False


def test_a_bets_message_is_the_same_bytes_as_encoded_whole():
    import asyncio

    player = Player(Shared("WHEEL-LOAD"), "http://x", "t", True, 8.0, group=3)
    player.spot, player.transport = {"bet": "joker", "position": "box-1"}, Transport()
    player.shared.bet, player.shared.betting = True, "r-1"

    async def one_group() -> None:
        task = asyncio.create_task(player.bet())
        while not player.transport.written:
            await asyncio.sleep(0.01)
        task.cancel()

    asyncio.run(one_group())
    frames, at, buf = [], 0, player.transport.written
    while at < len(buf):  # (a client's frames: masked, here with a mask of zeros)
        assert buf[at] == 0x81 and buf[at + 1] & 0x80
        size, head = buf[at + 1] & 0x7F, at + 2
        if size == 126:
            size, head = int.from_bytes(buf[head:head + 2], "big"), head + 2
        assert buf[head:head + 4] == b"\0\0\0\0"
        frames.append(buf[head + 4:head + 4 + size])
        at = head + 4 + size
    assert frames == [json.dumps({"type": "bet", "id": n, "table": "WHEEL-LOAD", "amount": "1", "bet": "joker",
                                  "position": "box-1"}, separators=(",", ":")).encode() for n in (1, 2, 3)]


def _frames(buf: bytes) -> list[dict]:
    """The JSON of a client's text frames (masked with zeros, as these clients write them)."""
    out, at = [], 0
    while at < len(buf):
        size, head = buf[at + 1] & 0x7F, at + 2
        if size == 126:
            size, head = int.from_bytes(buf[head:head + 2], "big"), head + 2
        out.append(json.loads(buf[head + 4:head + 4 + size]))
        at = head + 4 + size
    return out


def test_the_simulated_players_keep_the_pages_own_timers():
    """A page pings for its latency meter (often while its player plays, seldom
    while it is only watched), and asks its balance after its result unless the
    platform told it meanwhile; the load's players do the same, at the
    intervals read off the page's own script (a page that pinged every 2 s was
    2,500 messages a second for 5,000 players, which the load did not send)."""
    import asyncio

    from tablesim.harness.bench.player_clients import _ping_slice, page_timers

    timers = page_timers()
    page = (Path(__file__).resolve().parents[2] / "tablesim/platform/player/static/player.js").read_text()
    assert "setInterval(pingWhenDue, 1000)" in page and "}, BALANCE_AFTER);" in page
    assert "(now - S.actedAt < ACTIVE_FOR ? PING_EVERY : PING_IDLE)" in page
    assert timers == (5.0, 30.0, 60.0, 6.0)
    with pytest.raises(ValueError, match="PING_IDLE"):
        page_timers("const PING_EVERY = 2000;\nconst ACTIVE_FOR = 1;\nconst BALANCE_AFTER = 1;")
    players = [Player(Shared("WHEEL-LOAD"), "http://x", "t", False, 8.0) for _ in range(20)]
    for p in players:
        p.transport = Transport()
    playing = players[:10]
    for p in playing:
        p.acted = 0.0  # (its player bet at 0 s)

    # Seven slices, each visited once every 5 s: a page pings at its first visit, then every visit while
    # its player plays (ten 5 s intervals), every sixth while it is only watched (30 s)
    at, now = 0, 0.0
    for _ in range(10 * 7):
        at = _ping_slice(players, 7, at, slack=2.5, now=now)
        now += 5.0 / 7
    pings = [len([m for m in _frames(p.transport.written) if m["type"] == "ping"]) for p in players]
    assert pings[:10] == [10] * 10  # (played on: 0-45 s, its act at 0 s counting for 60 s)
    assert pings[10:] == [2] * 10  # (only watched: at its first visit and 30 s later)
    told, untold = players[0], players[1]
    for p in (told, untold):
        p.shared.timers = p.shared.timers._replace(balance_after=0.02)
        p.transport.written = b""

    async def results() -> None:
        for p in (told, untold):
            p._took(json.dumps({"type": "result", "table": "WHEEL-LOAD", "round_id": "r-1"}), 0.0)
        told._took(json.dumps({"type": "balance", "balance": "1045", "currency": "MOP"}), 0.0)
        await asyncio.sleep(0.1)

    asyncio.run(results())
    assert [m["type"] for m in _frames(untold.transport.written)] == ["balance"]
    assert _frames(told.transport.written) == []
