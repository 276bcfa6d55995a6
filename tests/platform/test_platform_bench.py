"""The platform bench (``tablesim bench --only platform``), small: every
part its own process, the bets answered, the round credited, and every
figure the one JSON object promises (the lead's re-measurement reads it)."""

from __future__ import annotations

import pytest

from natsserver import NATS_SERVER

pytestmark = pytest.mark.skipif(NATS_SERVER is None, reason="nats-server is not installed")


@pytest.mark.soak
def test_the_bench_reports_rate_latency_credits_and_cpu_per_process():
    from tablesim.harness.bench.platform_bench import platform_money

    got = platform_money(players=20, bets=200, clients=8, warmup=20)
    assert got["bets"] == 200 and got["credits"] == 20 and got["result_to_last_credit_s"] >= 0
    assert got["bets_per_second"] > 0 and 0 < got["p50_ms"] <= got["p99_ms"]
    cpu = got["cpu_ms_per_bet"]
    assert set(cpu) == {"platform", "table", "wallet", "broker", "bench_clients", "all"}
    assert all(v >= 0 for v in cpu.values()) and cpu["platform"] > 0 and cpu["table"] > 0
    assert got["cores_at_2000_per_s"] == pytest.approx(cpu["all"] * 2, abs=0.01)
    assert set(got["bets_per_request"]) == {"debits", "to_tables", "stream_reads"}
    assert all(v > 0 for v in got["bets_per_request"].values())
    # the players' sockets carried those bets (a group each), and the HTTP route is measured beside
    assert got["bets_per_group"] == 4 and "/ws" in got["via"]
    http = got["http"]
    assert http["bets"] == 200 and 0 < http["p50_ms"] <= http["p99_ms"] and http["cpu_ms_per_bet"]["platform"] > 0
    assert set(http["cpu_us_per_bet"]) == set(cpu)
