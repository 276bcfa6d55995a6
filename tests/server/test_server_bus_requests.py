"""The table's bus bets become the intake's requests: the same requests as
``BetRequest`` builds (built at once, without the frozen dataclass's set-up
a field), the bets of another round answered apart and in their place."""

from __future__ import annotations

import asyncio
from dataclasses import fields
from decimal import Decimal
from types import SimpleNamespace

from tablesim.server.intake import BetOutcome, BetRequest
from tablesim.server.runner import TableRunner


class _Runner:
    table = SimpleNamespace(round_id="R-2")

    def __init__(self) -> None:
        self.got: list = []

    async def place_bets(self, requests):
        self.got = requests
        return [BetOutcome(True, "R-2", ref=r.ref) for r in requests]

    def _bus_result(self, outcome):
        return outcome.as_json()


def test_bus_bets_are_the_requests_betrequest_builds_and_another_rounds_are_answered_in_place():
    runner = _Runner()
    bets = [{"position": "ann", "bet": "red", "amount": Decimal("1.50"), "actor": "platform:p1", "ref": "d-1",
             "round": "R-2"},
            {"position": "box-1", "bet": "pair", "amount": Decimal("2"), "actor": "platform:p1", "ref": "d-2",
             "round": "R-1", "player": "abe"},
            {"position": "box-2", "bet": "pair", "amount": Decimal("3"), "actor": "platform:p1", "ref": "d-3",
             "player": "kim"}]
    out = asyncio.run(TableRunner._bus_bets(runner, bets))
    assert runner.got == [BetRequest("ann", "red", Decimal("1.50"), "platform:p1", "d-1", None),
                          BetRequest("box-2", "pair", Decimal("3"), "platform:p1", "d-3", "kim")]
    assert all(type(r) is BetRequest and list(vars(r)) == [f.name for f in fields(BetRequest)] for r in runner.got)
    assert [o.get("ok") for o in out] == [True, False, True] and out[2]["ref"] == "d-3"
    assert out[1]["ref"] == "d-2" and out[1]["error"] == "refused" and out[1]["round_id"] == "R-2"


class _Adapter:
    def on_event(self, kind, data) -> None:
        pass


def test_a_groups_bet_events_share_their_records_seq_and_one_time_and_a_lone_bet_has_its_own():
    import time

    from tablesim.engine.events import TableEvent

    journal = SimpleNamespace(seq=10)
    table = SimpleNamespace(replaying=False, batching=False)
    runner = SimpleNamespace(table=table, journal=journal, _pending=[], _bet_ts=(None, ""), adapter=_Adapter())

    def bet(n: int) -> None:
        TableRunner._on_event(runner, TableEvent(n, "bet", "R-1", {"position": "ann", "bet": "red", "amount": "1"}))

    table.batching = True  # a group: its record will be seq 11
    for n in range(3):
        bet(n)
        time.sleep(0.002)
    table.batching, journal.seq = False, 11
    table.batching = True  # the next group: seq 12
    bet(3)
    bet(4)
    table.batching = False
    time.sleep(0.002)
    bet(5)  # a lone bet (no group): its own time
    time.sleep(0.002)
    bet(6)
    seqs = [m["seq"] for m in runner._pending]
    stamps = [m["ts"] for m in runner._pending]
    assert seqs == [11, 11, 11, 12, 12, 11, 11]
    assert len(set(stamps[:3])) == 1 and len(set(stamps[3:5])) == 1 and stamps[0] < stamps[3] < stamps[5] < stamps[6]
    assert all(m["kind"] == "bet" and m["data"]["bet"] == "red" for m in runner._pending)
