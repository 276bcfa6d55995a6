"""What a round's end costs the platform's sockets: every watcher of the
table gets the outcome and the table's new line of the lobby in one write
(a player who bet, their own result in a second), not the lobby's line in a
pass of its own over every socket after the players' results."""

from __future__ import annotations

import asyncio
import json
from decimal import Decimal

from tablesim.platform.player.hub import Hub, tap
from tablesim.platform.rounds import Rounds
from tablesim.platform.tables import Offer
from tablesim.studio import wire
from stubwire import StubWire, texts

TABLE = "WHEEL-MOCK"


def _rec(seq: int, name: str, data: dict) -> wire.WireRecord:
    return wire.WireRecord(seq, TABLE, "R1", "event", name, data, "", "", b"")


def test_a_rounds_end_reaches_each_watcher_in_one_write_the_lobby_line_with_it():
    async def play() -> dict[str, StubWire]:
        rounds = Rounds()
        hub = Hub({TABLE: Offer(TABLE, "MOP", Decimal(1), "player", Decimal(10000), bet_seconds=15)}, rounds)
        tap(rounds, hub)
        wires = {p: StubWire() for p in ("ann", "amy", "abe")}
        for player, w in wires.items():
            hub.watch(hub.join(player, wire=w), TABLE)
        rounds.apply(_rec(1, "state", {"state": "betting_open"}), 1)
        rounds.apply(_rec(2, "bet_refs", {"refs": [["d1", "ann", "3", "25", "ann"]]}), 2)
        rounds.apply(_rec(3, "state", {"previous": "betting_open", "state": "bets_closed"}), 3)
        await asyncio.sleep(0.1)
        for w in wires.values():
            w.writes.clear()
        rounds.apply(_rec(4, "result", {"status": "settled", "outcome": {"segment": 3, "symbol": "5", "no_spins": 0},
                                        "results": {"ann": {"3": "-25"}}}), 4)
        await asyncio.sleep(0.1)
        return wires

    wires = asyncio.run(play())
    for player, w in wires.items():
        written = [texts(frames) for frames in w.writes]
        kinds = [[json.loads(t)["type"] for t in write] for write in written]
        assert kinds == ([["outcome", "lobby"], ["result"]] if player == "ann" else [["outcome", "lobby"]]), player
        line = json.loads(written[0][1])["tables"][0]
        assert line["last"][0]["round_id"] == "R1"  # (the line as this round left it)
