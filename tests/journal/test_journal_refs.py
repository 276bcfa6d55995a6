"""A bet's ref is never placed twice, through a served table (a real process):
the single-bet route answers ``duplicate`` as the batch does, after a kill
(SIGKILL) and a restart too."""

from __future__ import annotations

import signal

from processes import Served


def test_the_single_bet_route_answers_duplicate_also_after_a_kill(tmp_path, env):
    journal = tmp_path / "f3.journal.sqlite"
    table = Served(env, journal)
    assert table.post("/api/actions/open_round").status_code == 200
    bet = {"position": "2", "bet": "ante", "amount": "25", "ref": "ana-1"}
    first = table.post("/api/bets", bet).json()
    assert first["ok"] and "duplicate" not in first and first["bets"]["2"] == {"ante": "25"}
    again = table.post("/api/bets", bet).json()
    assert again["ok"] and again["duplicate"] and again["ref"] == "ana-1" and again["bets"]["2"] == {"ante": "25"}
    table.stop(signal.SIGKILL)
    table = Served(env, journal)
    try:
        res = table.post("/api/bets", bet)
        assert res.status_code == 200 and res.json()["duplicate"], res.text
        assert res.json()["round_id"] == "F3-MOCK-000001"
        batch = table.post("/api/bets/batch", {"bets": [bet]}).json()
        assert batch["results"][0]["duplicate"]
        other = table.post("/api/bets", {**bet, "amount": "50"})
        assert other.status_code == 409 and "already used" in other.json()["reason"]
        assert table.client.get("/api/table").json()["bets"]["2"] == {"ante": "25"}
    finally:
        assert table.stop() == 0
