"""``POST /api/bets/batch`` and the group commit behind every bet."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server_helpers import ok
from test_server_api import open_betting
from examples import examples


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
    assert new == [("input", "place_bets", "dealer:mock-dealer")]  # (the batch's accepted bets: one record)
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
    # (each group is one record holding its bets and their refs)
    assert sum(1 for r in records if r[2] == "place_bets") == groups
    assert len(s.book()["bets"]) == 60 and s.state()["players_count"] == 60


_VALUE = st.one_of(st.text(max_size=90), st.text(alphabet="0123456789.-+ e", max_size=12), st.integers(),
                   st.integers(min_value=-(1 << 60), max_value=1 << 60), st.booleans(), st.none(), st.floats(),
                   st.lists(st.integers(), max_size=2))
_ITEM = st.one_of(
    st.dictionaries(st.sampled_from(["position", "bet", "amount", "ref", "player", "extra"]), _VALUE, max_size=6),
    st.fixed_dictionaries({"position": st.one_of(st.text(max_size=45), st.integers()),
                           "bet": st.text(max_size=45), "amount": st.one_of(st.text(max_size=12), st.integers())},
                          optional={"ref": st.one_of(st.none(), st.text(max_size=85)),
                                    "player": st.one_of(st.none(), st.text(max_size=45))}),
)  # (each bet of a batch is a JSON object: BatchBody says so first)


@settings(max_examples=examples(400), deadline=None)
@given(item=_ITEM)
def test_a_batch_bet_read_at_a_glance_is_read_as_the_model_reads_it(item):
    """The batch route reads a plainly well-formed bet without building its
    pydantic model: whatever a bet is, the answer is the model's."""
    from tablesim.server.betrequests import _bet_request, _bet_request_model

    assert _bet_request(item, 3, "dealer:ana") == _bet_request_model(item, 3, "dealer:ana")


_CASES = [
    ("/api/bets/batch", {"bets": [{"position": "3", "bet": "ante", "amount": "10", "ref": "q-1"},
                                  {"position": 5, "bet": "pair_plus", "amount": 5},
                                  {"position": "6", "bet": "ante", "amount": "10001"},
                                  {"position": "8", "bet": "ante", "amount": "5"},
                                  {"position": "1", "bet": "ante", "amount": "1e3"},
                                  {"position": "1", "bet": "ante", "amount": "2.5", "extra": 1},
                                  {"position": " ", "bet": "ante", "amount": "2"}]}),
    ("/api/bets/batch", {"bets": [{"position": "3", "bet": "ante", "amount": "10", "ref": "q-1"}]}),
    ("/api/bets", {"position": "2", "bet": "ante", "amount": "10", "ref": "q-2"}),
    ("/api/bets", {"position": "2", "bet": "ante", "amount": "10", "ref": "q-2"}),
    ("/api/bets", {"position": "2", "bet": "ante", "amount": "20", "ref": "q-2"}),
    ("/api/bets", {"position": "9", "bet": "ante", "amount": "10"}),
    ("/api/bets", {"position": "4", "bet": "ante", "amount": "-3"}),
    ("/api/bets", {"position": "4", "bet": "ante", "amount": "0.001"}),
    ("/api/bets", {"position": "x" * 41, "bet": "ante", "amount": "3"}),
    ("/api/bets", {"position": "4", "bet": "play", "amount": "3", "player": "ana"}),
]


def test_plain_bets_are_answered_before_fastapi_exactly_as_the_routes_answer(serve, monkeypatch, tmp_path):
    """A plainly well-formed bet or batch is answered by the quick way in
    (``tablesim.server.betrequests.QuickBets``); the same requests sent so that the
    FastAPI routes read them (another spelling of the JSON content type) get
    the same status, the same answer and the same headers, and leave the same
    journal records."""
    from tablesim.server.betrequests import QuickBets

    quick_answers = []
    answer = QuickBets._answer

    async def counted(self, scope, body):
        out = await answer(self, scope, body)
        quick_answers.append(out is not None)
        return out

    monkeypatch.setattr(QuickBets, "_answer", counted)
    quick, routed = serve("fortune3"), serve("fortune3", journal=str(tmp_path / "routed.sqlite"))
    open_betting(quick)
    open_betting(routed)
    for path, body in _CASES:
        a = quick.client.post(path, json=body, headers=quick.auth())
        b = routed.client.post(path, content=json.dumps(body),
                               headers={**routed.auth(), "content-type": "application/json; charset=utf-8"})
        assert (a.status_code, a.json()) == (b.status_code, b.json()), (path, body)
        assert {k: v for k, v in a.headers.items() if k != "date"} == {
            k: v for k, v in b.headers.items() if k != "date"}
    assert quick_answers.count(True) == len(_CASES) and quick_answers.count(False) == len(_CASES)
    assert [r[1:] for r in quick.records()] == [r[1:] for r in routed.records()]
