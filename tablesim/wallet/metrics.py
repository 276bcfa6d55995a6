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
    def __init__(self, calls: tuple[str, ...] = ()) -> None:
        """``calls``: the wallet's calls, each counted from 0."""
        self.registry = r = CollectorRegistry()
        self.requests = Counter("tablesim_wallet_requests", "Requests by call and the status answered.",
                                ["call", "status"], registry=r)
        self.seconds = Histogram("tablesim_wallet_request_seconds", "A request's time in the wallet, its body "
                                 "read to its answer ready.", ["call"], buckets=LATENCY_BUCKETS, registry=r)
        self.writes = Counter("tablesim_wallet_writes", "Debits, credits and cancels by status, alone or in a "
                              "batch.", ["kind", "status"], registry=r)

        # (a child by its labels, looked up once: ``labels()`` costs more than the count itself)
        self._requests: dict[tuple[str, str], object] = {}
        self._seconds: dict[str, object] = {}
        self._writes: dict[tuple[str, str], object] = {}
        # Each call's and each write's "ok" series exist from the start, at 0: a series that appears
        # only once something happened leaves rate() and an alert on it blind until then.
        for call in calls:
            self._requests[(call, p.Status.OK.value)] = self.requests.labels(call, p.Status.OK.value)
            self._seconds[call] = self.seconds.labels(call)
        for kind in _KINDS.values():
            self._writes[(kind, p.Status.OK.value)] = self.writes.labels(kind, p.Status.OK.value)

    def request(self, call: str, status: p.Status, seconds: float) -> None:
        key = (call, status.value)
        child = self._requests.get(key)
        if child is None:
            child = self._requests[key] = self.requests.labels(*key)
        child.inc()
        timer = self._seconds.get(call)
        if timer is None:
            timer = self._seconds[call] = self.seconds.labels(call)
        timer.observe(seconds)

    def batch_writes(self, items: list, results: list) -> None:
        """A batch's writes: each parsed record (or its refusal) and the ledger's (status, answer),
        told to the counters once per kind and status, with their number."""
        done = iter(results)
        counts: dict[tuple[type, p.Status], int] = {}  # (named once a key: an Enum's .value is slow a write)
        for item in items:
            got = item if isinstance(item, p.Refused) else next(done, None)
            if isinstance(got, p.Refused):
                key = (p.Refused, got.status)
            elif isinstance(got, tuple):
                key = (type(item), got[0])
            else:
                continue
            counts[key] = counts.get(key, 0) + 1
        for (kind, status), n in counts.items():
            key = ("refused_write" if kind is p.Refused else _KINDS.get(kind) or kind.__name__.lower(), status.value)
            child = self._writes.get(key)
            if child is None:
                child = self._writes[key] = self.writes.labels(*key)
            child.inc(n)


_KINDS = {p.Debit: "debit", p.Credit: "credit", p.Cancel: "cancel"}
