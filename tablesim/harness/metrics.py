"""A table's Prometheus metrics (``GET /metrics`` of ``tablesim serve``,
``tablesim run --metrics-port``).

Counted where it happens, cheaply: rounds, device faults and link changes
from the table's own event bus (one more subscriber beside the console's);
bets and their answer time once per group the intake commits (never per
record inside the journal's transaction); the journal's commit time once
per transaction. Read when scraped: each device's link, the studio link's
backlog and state. Every series carries ``table`` and ``game``; the other
labels are bounded: outcome, refusal reason id, device name, fault code.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Iterable

from prometheus_client import Counter, Histogram
from prometheus_client.core import GaugeMetricFamily as GaugeFamily

from tablecore.metrics import LATENCY_BUCKETS, CollectorRegistry, Scraped, gauge
from tablesim.engine.events import TableEvent

#: card-to-console buckets: a card is on the console within milliseconds of the report
CARD_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)


class TableMetrics:
    """One table's metrics in a registry of its own. ``count_bet_events``: count
    accepted bets from the bus (a table whose bets do not come through the intake,
    ``tablesim run``); ``studio``: the studio link now, or None."""

    def __init__(self, table, *, count_bet_events: bool = False,
                 studio: Callable[[], Any] | None = None) -> None:
        self.table = table
        self.registry = CollectorRegistry()
        self.studio = studio
        self.labels = {"table": table.table_id, "game": table.game}
        ids = (table.table_id, table.game)
        r = self.registry
        self.rounds = Counter("tablesim_rounds", "Rounds closed, by outcome (settled, or void_<reason>).",
                              ["table", "game", "outcome"], registry=r)
        self.bets = Counter("tablesim_bets", "Bets answered, by result (accepted, duplicate, refused, bad_input) "
                            "and refusal reason id.", ["table", "game", "result", "reason"], registry=r)
        self.intake = Histogram("tablesim_bet_intake_seconds", "From a bet request's arrival at the intake to "
                                "its answer (its group committed to disk).", ["table", "game"],
                                buckets=LATENCY_BUCKETS, registry=r).labels(*ids)
        self.card = Histogram("tablesim_card_to_console_seconds", "From a device's card report taken by the "
                              "table to its event on the console's stream.", ["table", "game"],
                              buckets=CARD_BUCKETS, registry=r).labels(*ids)
        self.faults = Counter("tablesim_device_faults", "Device faults raised, by device and fault code.",
                              ["table", "game", "device", "code"], registry=r)
        self.link_changes = Counter("tablesim_device_link_changes", "Device links going down or up.",
                                    ["table", "game", "device", "state"], registry=r)
        self.commit = Histogram("tablesim_journal_commit_seconds", "One journal transaction, begin to durable "
                                "commit (fsync).", ["table", "game"], buckets=LATENCY_BUCKETS,
                                registry=r).labels(*ids)
        self._accepted = self.bets.labels(*ids, "accepted", "")
        self._duplicate = self.bets.labels(*ids, "duplicate", "")
        self.card_at: float | None = None  # when the card being handled was reported (the pump sets it)
        self._card_seen = False
        self._count_bets = count_bet_events
        r.register(Scraped(self._scraped))

    # --- where it happens ----------------------------------------------------------

    def attach(self) -> "TableMetrics":
        """Subscribe to the table's events and time its journal's commits."""
        self.table.bus.subscribe(self.on_event)
        if self.table.journal is not None:
            self.table.journal.commit_timer = self.commit.observe
        return self

    def detach(self) -> None:
        bus = self.table.bus
        if self.on_event in bus.subscribers:
            bus.subscribers.remove(self.on_event)
        journal = self.table.journal
        if journal is not None and getattr(journal, "commit_timer", None) == self.commit.observe:
            journal.commit_timer = None

    def on_event(self, event: TableEvent) -> None:
        kind = event.kind
        if kind == "bet":
            if self._count_bets:
                self._accepted.inc()
            return
        if kind == "bets_placed":  # (a group of bets: the intake counts its outcomes, see ``counted``)
            if self._count_bets:
                self._accepted.inc(len(event.data["bets"]))
            return
        if kind == "card":
            self._card_seen = True
        elif kind == "result":
            if self.table.replaying:
                return
            data = event.data
            outcome = "settled" if data.get("status") == "settled" else f"void_{data.get('void_reason') or 'other'}"
            self.rounds.labels(*self.labels.values(), outcome).inc()
        elif kind == "fault":
            if not self.table.replaying:
                data = event.data
                self.faults.labels(*self.labels.values(), str(data.get("device")), str(data.get("code"))).inc()
        elif kind == "link":
            if not self.table.replaying:
                data = event.data
                self.link_changes.labels(*self.labels.values(), str(data.get("device")),
                                         "up" if data.get("up") else "down").inc()

    def card_shown(self) -> None:
        """After a pump command's events went to the stream: the card's time, if it showed one."""
        if self._card_seen and self.card_at is not None:
            self.card.observe(time.monotonic() - self.card_at)
        self._card_seen = False
        self.card_at = None

    def answered(self, outcomes: Iterable, started: float) -> None:
        """A caller's bets answered (the intake), ``started`` its ``perf_counter()`` at arrival."""
        self.intake.observe(time.perf_counter() - started)
        self.counted(outcomes)

    def counted(self, outcomes: Iterable) -> None:
        """Bets placed past the intake's queue (the autoplay's simulated players), or through it."""
        accepted = 0
        for outcome in outcomes:
            if outcome.ok:
                if outcome.duplicate:
                    self._duplicate.inc()
                else:
                    accepted += 1
            else:
                self.bets.labels(*self.labels.values(), outcome.error or "refused", _reason_id(outcome)).inc()
        if accepted:
            self._accepted.inc(accepted)

    # --- read when scraped ------------------------------------------------------

    def _scraped(self):
        labels = self.labels
        up = GaugeFamily("tablesim_device_link_up", "Whether each device's link is up (1) or down (0).",
                         labels=[*labels, "device"])
        for device in list(self.table.devices or ()):
            up.add_metric([*labels.values(), device.name], 1.0 if device.health.link_up else 0.0)
        yield up
        link = self.studio() if self.studio is not None else None
        if link is not None:
            yield gauge("tablesim_studio_link_up", "Whether the studio link is publishing (1) or not (0).", labels,
                        1.0 if link.state == "up" else 0.0)
            yield gauge("tablesim_studio_outbox_backlog_records", "Journal records not yet published to the studio.",
                        labels, float(link.pending()))
            yield gauge("tablesim_studio_outbox_stalled", "Records to publish and none published for a while (1).",
                        labels, 1.0 if link.stalled else 0.0)


def _reason_id(outcome) -> str:
    """A refusal's reason as its catalog id (bounded), never its text (it names boxes and amounts)."""
    if outcome.error != "refused":
        return ""
    msg_id = getattr(outcome.reason, "msg_id", "")
    return msg_id.removeprefix("refusal.") if msg_id else "other"

