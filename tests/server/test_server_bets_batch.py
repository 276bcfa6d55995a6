"""``POST /api/bets/batch`` and the group commit behind every bet."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from server_helpers import ok
from test_server_api import open_betting


def test_a_batch_answers_each_bet_with_the_reason_a_single_bet_gets(serve):
    s = serve("fortune3")
    open_betting(s)
    single = s.post("/api/bets", {"position": "6", "bet": "ante", "amount": "10001"}).json()
    records = len(s.records())
    res = ok(s.post("/api/bets/batch", {"bets": [
        {"position": 3, "bet": "ante", "amount": "10", "ref": "t-1"},
        {"position": "6", "bet": "ante", "amount": "10001"},
        {"position": "3", "bet": "ante", "amount": 10.5},
        {"position": "8", "bet": "ante", "amount": "5"},
        {"position": "5", "bet": "pair_plus", "amount": "ten"},
        {"position": "5", "bet": "pair_plus", "amount": "5"},
    ]}))
    results = res["results"]
    assert (res["ok"], res["accepted"], res["refused"]) == (False, 2, 4)
    assert [r["ok"] for r in results] == [True, False, False, False, False, True]
    assert results[0] == {"ok": True, "round_id": "F3-MOCK-000001", "ref": "t-1"}
    over = results[1]
    assert {k: over[k] for k in ("error", "action", "reason", "detail")} == {
        k: single[k] for k in ("error", "action", "reason", "detail")}
    assert results[2]["error"] == "bad_input" and results[2]["detail"].startswith("bets.2.amount")
    assert "box '8' does not exist" in results[3]["reason"]
    assert results[4]["ok"] is False and results[4]["error"] == "bad_input"
    assert results[4]["detail"].startswith("bets.4.amount: 'ten' is not a number")
    assert s.state()["bets"] == {"3": {"ante": "10"}, "5": {"pair_plus": "5"}}
    new = [r[1:] for r in s.records()[records:]]
    assert new == [("input", "place_bet", "dealer:mock-dealer"), ("event", "bet", "table"),
                   ("input", "place_bet", "dealer:mock-dealer"), ("event", "bet", "table"),
                   ("meta", "bet_refs", "intake")]
    # a retry of the batch's first bet is told it stands, and is not placed again
    again = ok(s.post("/api/bets", {"position": 3, "bet": "ante", "amount": "10", "ref": "t-1"}))
    assert again["bets"]["3"] == {"ante": "10"}


@pytest.mark.parametrize("body, status", [
    ({"bets": []}, 422),
    ({"bets": [{"position": "1", "bet": "ante", "amount": "1"}] * 1001}, 422),
    ({"bets": "x"}, 422),
    ({"bet": []}, 422),
])
def test_a_bad_batch_is_422_and_changes_nothing(serve, body, status):
    s = serve("fortune3")
    open_betting(s)
    records = s.records()
    assert s.post("/api/bets/batch", body).status_code == status
    assert s.post("/api/bets/batch", {"bets": [{"position": "1", "bet": "ante", "amount": "1"}]},
                  role=None).status_code == 401
    assert s.records() == records and s.state()["bets"] == {}


def test_concurrent_single_bets_are_committed_together_each_exactly_once(serve):
    s = serve("wheel")
    open_betting(s)
    before = len(s.records())

    async def bet_all() -> list[httpx.Response]:
        async with httpx.AsyncClient(base_url=s.url, timeout=10, headers=s.auth()) as client:
            return await asyncio.gather(*(
                client.post("/api/bets", json={"position": f"p{i}", "bet": "1", "amount": "1", "ref": f"b{i}"})
                for i in range(60)))

    answers = asyncio.run(bet_all())
    assert all(r.status_code == 200 for r in answers)
    groups = s.runner.intake.groups
    assert s.runner.intake.bets == 60 and groups < 60  # some arrived together
    records = s.records()[before:]
    assert sum(1 for r in records if r[2] == "bet") == 60
    assert sum(1 for r in records if r[2] == "bet_refs") == groups
    assert len(s.state()["bets"]) == 60
