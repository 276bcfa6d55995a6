"""The reference wallet's Prometheus metrics (``GET /metrics``).

Every request by call and answered status, with its time (signature check,
ledger and commit); every write (debit, credit, cancel) by status, whether it
came alone or inside a batch. No player or transaction id is a label.
"""

from __future__ import annotations

from prometheus_client import Counter, Histogram

from tablecore.metrics import LATENCY_BUCKETS, CollectorRegistry
from tablesim.wallet import protocol as p


class WalletMetrics:
    def __init__(self) -> None:
        self.registry = r = CollectorRegistry()
        self.requests = Counter("tablesim_wallet_requests", "Requests by call and the status answered.",
                                ["call", "status"], registry=r)
        self.seconds = Histogram("tablesim_wallet_request_seconds", "A request's time in the wallet, its body "
                                 "read to its answer ready.", ["call"], buckets=LATENCY_BUCKETS, registry=r)
        self.writes = Counter("tablesim_wallet_writes", "Debits, credits and cancels by status, alone or in a "
                              "batch.", ["kind", "status"], registry=r)

    def request(self, call: str, status: p.Status, seconds: float) -> None:
        self.requests.labels(call, status.value).inc()
        self.seconds.labels(call).observe(seconds)

    def batch_writes(self, items: list, results: list) -> None:
        """A batch's writes: each parsed record (or its refusal) and the ledger's (status, answer)."""
        done = iter(results)
        for item in items:
            got = item if isinstance(item, p.Refused) else next(done, None)
            if isinstance(got, p.Refused):
                kind, status = "refused_write", got.status.value
            elif isinstance(got, tuple):
                kind, status = type(item).__name__.lower(), got[0].value
            else:
                continue
            self.writes.labels(kind, status).inc()
