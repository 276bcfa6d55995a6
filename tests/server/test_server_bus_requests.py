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
