"""The wallet's series exist from its start: Prometheus' ``rate()`` and an
alert on a series that appears only once something happened see nothing
until then (a wallet no one has called yet scraped empty)."""

from __future__ import annotations

from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families

from tablesim.wallet import protocol as p
from tablesim.wallet.app import CALLS
from tablesim.wallet.metrics import WalletMetrics


def samples(metrics: WalletMetrics) -> dict[tuple[str, tuple], float]:
    text = generate_latest(metrics.registry).decode()
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def test_every_call_and_write_is_a_series_at_zero_before_the_first_request():
    found = samples(WalletMetrics(CALLS))
    for call in CALLS:
        assert found[("tablesim_wallet_requests_total", (("call", call), ("status", "ok")))] == 0
        assert found[("tablesim_wallet_request_seconds_count", (("call", call),))] == 0
    for kind in ("debit", "credit", "cancel"):
        assert found[("tablesim_wallet_writes_total", (("kind", kind), ("status", "ok")))] == 0


def test_a_request_counts_on_its_series_and_a_refusal_on_one_of_its_own():
    metrics = WalletMetrics(CALLS)
    metrics.request("debit", p.Status.OK, 0.002)
    metrics.request("debit", p.Status.INSUFFICIENT_FUNDS, 0.001)
    found = samples(metrics)
    assert found[("tablesim_wallet_requests_total", (("call", "debit"), ("status", "ok")))] == 1
    assert found[("tablesim_wallet_requests_total", (("call", "debit"), ("status", "insufficient_funds")))] == 1
    assert found[("tablesim_wallet_request_seconds_count", (("call", "debit"),))] == 2
    assert found[("tablesim_wallet_requests_total", (("call", "credit"), ("status", "ok")))] == 0
