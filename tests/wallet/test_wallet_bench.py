"""``tablesim bench --only wallet``: debits through the reference wallet as
its own process, every answer signed and ok (what is measured, not how fast)."""

from __future__ import annotations

import json

import walletproc


def test_bench_only_wallet_measures_debits(monkeypatch):
    import tablesim.harness.bench.wallet_bench as wallet_bench

    monkeypatch.setattr(wallet_bench, "SIZES", {"players": 20, "connections": 4, "debits": 60, "rate": 200.0,
                                                "offered_debits": 40})
    rc, out, err = walletproc.cli("bench", "--only", "wallet", "--json")
    assert rc == 0, err
    data = json.loads(out)
    assert set(data) >= {"machine", "wallet"} and "bet_intake" not in data
    closed, offered = data["wallet"]["closed"], data["wallet"]["offered"]
    assert closed["debits"] == 60 and offered["debits"] == 40 and offered["offered_per_second"] == 200.0
    for figures in (closed, offered):
        assert figures["debits_per_second"] > 0 and figures["p99_ms"] >= figures["p50_ms"] > 0
        assert figures["wallet_cpu_ms_per_debit"] > 0
