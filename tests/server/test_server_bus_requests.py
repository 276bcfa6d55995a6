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
    def __init__(self) -> None:
        self.told: list[str] = []

    def on_event(self, kind, data) -> None:
        self.told.append(kind)


def test_a_groups_bets_go_out_as_a_bet_event_each_under_its_records_seq_at_one_time_and_a_lone_bet_has_its_own():
    import time

    from tablesim.engine.events import TableEvent

    journal = SimpleNamespace(seq=11)  # the group's record, just written
    table = SimpleNamespace(replaying=False, batching=False)
    runner = SimpleNamespace(table=table, journal=journal, _pending=[], adapter=_Adapter())
    runner._tell_adapter = lambda kind, data: TableRunner._tell_adapter(runner, kind, data)

    def event(kind: str, data: dict) -> None:
        TableRunner._on_event(runner, TableEvent(1, kind, "R-1", data))

    group = [["r-1", "ann", "red", "1", None], ["r-2", "7", "red", "2", "bob"], ["r-3", "cy", "black", "5", None, "dealer"]]
    event("bets_placed", {"bets": group})
    time.sleep(0.002)
    journal.seq = 12
    event("bets_placed", {"bets": group[:1]})
    time.sleep(0.002)
    journal.seq = 13  # a lone bet (no group): its own record and time
    event("bet", {"position": "dee", "bet": "red", "amount": "1"})
    msgs = runner._pending
    assert [m["seq"] for m in msgs] == [11, 11, 11, 12, 13]
    assert [m["kind"] for m in msgs] == ["bet"] * 5 and {m["round_id"] for m in msgs} == {"R-1"}
    # each bet as a ``bet`` event of its own holds it: no ref, no actor, the player only when named
    assert [m["data"] for m in msgs[:3]] == [{"position": "ann", "bet": "red", "amount": "1"},
                                            {"position": "7", "bet": "red", "amount": "2", "player": "bob"},
                                            {"position": "cy", "bet": "black", "amount": "5"}]
    stamps = [m["ts"] for m in msgs]
    assert len(set(stamps[:3])) == 1 and stamps[0] < stamps[3] < stamps[4]
    assert runner.adapter.told == ["bets_placed", "bets_placed", "bet"]


def test_a_bus_bets_result_is_its_outcomes_answer_with_where_its_group_holds_it():
    """A bet placed now is answered with its fields made at once: the same result as the
    outcome's ``as_json`` with its group's record and place, whatever the outcome."""
    group = SimpleNamespace(seq=41)
    runner = SimpleNamespace(intake=SimpleNamespace(written={41: group}))
    outcomes = [BetOutcome(True, "R-2", ref="a", seq=41, at=3),                   # placed now
                BetOutcome(True, "R-2", seq=41, at=4),                            # placed now, no ref
                BetOutcome(True, "R-2", ref="b", duplicate=True),                 # placed before
                BetOutcome(True, "R-2", ref="c", seq=40, at=0),                   # its group's record gone
                BetOutcome(False, "R-2", "refused", "bet", "no box 9", "bet refused: no box 9", ref="d")]
    for outcome in outcomes:
        want = outcome.as_json()
        if outcome.seq == 41:
            want.update(group=group, at=outcome.at)
        got = TableRunner._bus_result(runner, outcome)
        assert got == want and list(got) == list(want)
