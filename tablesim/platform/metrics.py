"""The platform's Prometheus metrics (``GET /metrics``).

Counted where it happens: every wallet call of the platform's three clients
(the player's, the patient one for cancels, settlement's), by call and
result, with its time (a batch's writes counted each, timed as the batch).
Read when scraped, from what the platform already counts for its health:
players and connections, remote bets and decisions by status, settlement's
counts and backlog, the backstop's passes, orphans cancelled, the wallet's
attempts (retries are attempts beyond calls). No player, round or
transaction id is ever a label.
"""

from __future__ import annotations

from prometheus_client import Counter, Histogram

from tablecore.metrics import LATENCY_BUCKETS, CollectorRegistry, Scraped, counter, gauge, total

#: the platform's wallet clients, by what they are for (a label)
CLIENTS = {"wallet": "player", "patient": "cancel", "settling": "settle"}


class PlatformMetrics:
    def __init__(self, platform) -> None:
        self.platform = platform
        self.registry = r = CollectorRegistry()
        self.calls = Counter("tablesim_platform_wallet_calls", "Wallet calls by client, call and result (the "
                             "wallet's status, unavailable or protocol_error).", ["client", "call", "result"],
                             registry=r)
        self.seconds = Histogram("tablesim_platform_wallet_call_seconds", "A wallet call's time, retries "
                                 "included.", ["client", "call"], buckets=LATENCY_BUCKETS, registry=r)
        for attr, client in CLIENTS.items():
            getattr(platform, attr).observer = self._observer(client)
        r.register(Scraped(self._scraped))

    def _observer(self, client: str):
        calls, seconds = self.calls, self.seconds

        def observe(call: str, result: str, took: float | None, count: int = 1) -> None:
            calls.labels(client, call, result).inc(count)
            if took is not None:
                seconds.labels(client, call).observe(took)

        return observe

    def _scraped(self):
        p, none = self.platform, {}
        hub = getattr(p, "hub", None)
        yield gauge("tablesim_platform_players_connected", "Players with at least one connection.", none,
                    len(hub.by_player) if hub is not None else 0)
        yield gauge("tablesim_platform_connections", "Players' open connections (a player may have several).", none,
                    len(hub.clients) if hub is not None else 0)
        yield gauge("tablesim_platform_bus_connected", "Whether the platform's bus connection is up (1).", none,
                    1.0 if p.nc is not None and p.nc.is_connected else 0.0)
        yield counter("tablesim_platform_remote_bets", "Remote bets by what became of them.", none,
                      dict(p.desk.counts), "status")
        yield counter("tablesim_platform_remote_decisions",
                      "Remote decisions on a shared remote hand, by what became of them.",
                      none, dict(p.decisions.counts), "status")
        yield counter("tablesim_platform_settlement", "Settlement's counts: rounds settled and void, credits, "
                      "cancels, alerts, refusals.", none, dict(p.settler.stats), "event")
        yield gauge("tablesim_platform_settlement_backlog_rounds", "Results being settled now.", none,
                    len(p.settler.working))
        yield counter("tablesim_platform_backstop", "The settlement backstop: passes, rounds checked in the wallet, "
                      "rounds it settled.", none, {"passes": p.backstop.passes,
                                                   "checked": p.backstop.checked, "settled": p.backstop.settled},
                      "what")
        yield total("tablesim_platform_orphans_cancelled", "Debits without a bet at a table, cancelled.",
                    p.sweep.orphans_cancelled)
        yield counter("tablesim_platform_wallet_attempts", "HTTP attempts at the wallet by client (beyond the calls: "
                      "retries).", none, {client: getattr(p, attr).attempts_made for attr, client in CLIENTS.items()},
                      "client")

