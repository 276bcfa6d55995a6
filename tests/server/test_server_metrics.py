"""``GET /metrics`` of a served table: Prometheus text whose counters move as rounds play."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

from server_helpers import ok, play_round


def samples(s) -> dict[tuple, float]:
    """Every sample of the table's metrics: (name, sorted labels) -> value."""
    res = s.get("/metrics")
    assert res.status_code == 200 and res.headers["content-type"].startswith("text/plain")
    return {(x.name, tuple(sorted(x.labels.items()))): x.value
            for family in text_string_to_metric_families(res.text) for x in family.samples}


def value(found: dict, name: str, **labels) -> float:
    """The sum of ``name``'s samples whose labels include ``labels``."""
    return sum(v for (n, ls), v in found.items() if n == name and labels.items() <= dict(ls).items())


def test_the_tables_counters_move_as_rounds_play(serve):
    s = serve("fortune3")
    ids = {"table": s.table.table_id, "game": "fortune3"}
    before = samples(s)
    assert value(before, "tablesim_rounds_total", **ids) == 0
    play_round(s)
    ok(s.post("/api/actions/open_round"))
    s.wait_state("betting_open")
    assert s.post("/api/bets", {"position": "3", "bet": "ante", "amount": "10001"}).status_code == 409
    after = samples(s)
    assert value(after, "tablesim_rounds_total", outcome="settled", **ids) == 1
    accepted = value(after, "tablesim_bets_total", result="accepted", **ids)
    assert accepted >= 1
    assert value(after, "tablesim_bets_total", result="refused", reason="over_maximum", **ids) == 1
    assert value(after, "tablesim_bet_intake_seconds_count", **ids) == accepted + 1
    assert value(after, "tablesim_journal_commit_seconds_count", **ids) > 0
    assert value(after, "tablesim_card_to_console_seconds_count", **ids) >= 6  # (three cards to a box, three to the dealer)
    # every series names its table and game; none names a player or a round
    for (name, labels) in after:
        keys = dict(labels)
        if name.startswith("tablesim_"):
            assert keys.get("table") == s.table.table_id and keys.get("game") == "fortune3", name
            assert not {"player", "round", "round_id"} & set(keys), name


def test_a_void_round_and_a_device_fault_are_counted(serve):
    s = serve("fortune3")
    ok(s.post("/api/actions/open_round"))
    s.wait_state("betting_open")
    ok(s.post("/api/bets", {"position": "3", "bet": "ante", "amount": "10"}))
    ok(s.post("/api/void", {"why": "test", "reason": "misdeal"}, role="supervisor"))
    s.wait_state("void")
    found = samples(s)
    assert value(found, "tablesim_rounds_total", outcome="void_misdeal") == 1
    assert value(found, "tablesim_rounds_total", outcome="settled") == 0
