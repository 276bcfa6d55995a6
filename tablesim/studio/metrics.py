"""The floor's Prometheus metrics (``GET /metrics`` of ``tablesim studio serve``).

Counted where it happens: each record's bus delay, from the stream's
storing it to the floor's taking it. Read when scraped, from the floor's
picture: how far the floor is behind the stream (its lag in records), its
connection, and per table (``table``, ``game``: the tables the stream holds)
rounds, void rounds, bets, the amounts wagered and the house result, alerts,
open incidents, whether its devices are all well, and its studio link's
backlog as the table last reported it.
"""

from __future__ import annotations

import time

from prometheus_client import Histogram
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

from tablecore.metrics import CollectorRegistry, Scraped, gauge, total

#: bus delay buckets, seconds: a record is on the floor well within a second when all is well
DELAY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


class FloorMetrics:
    def __init__(self, consumer) -> None:
        self.consumer = consumer
        self.registry = r = CollectorRegistry()
        self.delay = Histogram("tablesim_floor_bus_delay_seconds", "From a record's storing in the studio's "
                               "stream to the floor's taking it.", buckets=DELAY_BUCKETS, registry=r)
        r.register(Scraped(self._scraped))

    def taken(self, msgs: list) -> None:
        """Records the floor just took (the consumer's fetch)."""
        now = time.time()
        for msg in msgs:
            stored = getattr(msg.metadata, "timestamp", None)
            if stored is not None:
                self.delay.observe(max(now - stored.timestamp(), 0.0))

    def _scraped(self):
        c = self.consumer
        floor, none = c.floor, {}
        yield gauge("tablesim_floor_lag_records", "Records in the stream the floor has not taken yet.", none,
                    c.pending)
        yield gauge("tablesim_floor_connected", "Whether the floor's bus connection is up (1).", none,
                    1.0 if c.connected else 0.0)
        yield total("tablesim_floor_records", "Records the floor took.", floor.records)
        yield total("tablesim_floor_redelivered", "Records handed to the floor again (taken once).",
                    floor.redelivered)
        yield total("tablesim_floor_rejected", "Records refused (not signed by their table, broken chain).",
                    sum(floor.rejected.values()))
        families = {
            "rounds": CounterMetricFamily("tablesim_floor_rounds", "Rounds closed per table.",
                                          labels=["table", "game"]),
            "void": CounterMetricFamily("tablesim_floor_void_rounds", "Void rounds per table.",
                                        labels=["table", "game"]),
            "bets": CounterMetricFamily("tablesim_floor_bets", "Bets settled per table.", labels=["table", "game"]),
            "wagered": CounterMetricFamily("tablesim_floor_wagered", "Amounts wagered per table, in the table's "
                                           "currency units.", labels=["table", "game"]),
            "house": GaugeMetricFamily("tablesim_floor_house_result", "The house's result per table, in the table's "
                                       "currency units (negative: the players won).", labels=["table", "game"]),
            "alerts": CounterMetricFamily("tablesim_floor_table_alerts", "Alerts raised per table.",
                                          labels=["table", "game"]),
            "incidents": GaugeMetricFamily("tablesim_floor_table_open_incidents", "Open incidents per table.",
                                           labels=["table", "game"]),
            "devices": GaugeMetricFamily("tablesim_floor_table_devices_ok", "Whether every device of the table is "
                                         "well (1), as its records say.", labels=["table", "game"]),
            "backlog": GaugeMetricFamily("tablesim_floor_table_outbox_backlog_records", "Records the table had not "
                                         "published yet, as its last status said.", labels=["table", "game"]),
        }
        for table_id, t in sorted(floor.tables.items()):
            ids = [table_id, t.game or ""]
            f = t.figures
            families["rounds"].add_metric(ids, f.rounds)
            families["void"].add_metric(ids, f.void)
            families["bets"].add_metric(ids, f.bets)
            families["wagered"].add_metric(ids, float(f.wagered))
            families["house"].add_metric(ids, float(f.house))
            families["alerts"].add_metric(ids, t.alerts)
            families["incidents"].add_metric(ids, len(t.incidents))
            families["devices"].add_metric(ids, 1.0 if all(t.links.values()) and not t.faults else 0.0)
            if t.link is not None and isinstance(t.link.get("pending"), int):
                families["backlog"].add_metric(ids, t.link["pending"])
        yield from families.values()
