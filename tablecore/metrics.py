"""What every service's ``GET /metrics`` shares (the table, the platform, the
floor, the reference wallet): the Prometheus text of one registry, and
families read only when scraped.

Each service instance has its own ``CollectorRegistry`` (tests run several
in one process, and a global registry would mix their counts). Figures a
service already keeps (its health's counts, a backlog's length, a link's
state) are read at scrape time through :class:`Scraped`, so they add nothing
to the paths that move them; only what no one counted yet is counted where
it happens. Labels are bounded (table, game, device, outcome, reason ids),
never a player, round or transaction id.
"""

from __future__ import annotations

from typing import Callable, Iterable

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, disable_created_metrics, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

__all__ = ["CONTENT_TYPE", "CollectorRegistry", "Scraped", "counter", "gauge", "total", "exposition", "asgi_answer"]

# No ``*_created`` series: they double the text and no dashboard or alert here reads them.
disable_created_metrics()

#: the text format's content type (``text/plain; version=0.0.4``)
CONTENT_TYPE = CONTENT_TYPE_LATEST

#: latency buckets in seconds: a bet's answer is a few milliseconds (one fsync), a wallet call tens
LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class Scraped(Collector):
    """A collector whose families are made by ``make()`` at each scrape."""

    def __init__(self, make: Callable[[], Iterable[Metric]]) -> None:
        self.make = make

    def collect(self) -> Iterable[Metric]:
        yield from self.make()

    def describe(self) -> Iterable[Metric]:
        # (nothing to describe ahead: registering must not run ``make`` before the service is up)
        return []


def counter(name: str, doc: str, labels: dict[str, str], values: dict[str, float], key: str) -> CounterMetricFamily:
    """A counter family of ``values`` (each under ``key``=its name) with the common ``labels``."""
    family = CounterMetricFamily(name, doc, labels=[*labels, key])
    for which, value in values.items():
        family.add_metric([*labels.values(), which], value)
    return family


def total(name: str, doc: str, value: float) -> CounterMetricFamily:
    """A counter family of one value, without labels."""
    return CounterMetricFamily(name, doc, value=value)


def gauge(name: str, doc: str, labels: dict[str, str], value: float) -> GaugeMetricFamily:
    family = GaugeMetricFamily(name, doc, labels=list(labels))
    family.add_metric(list(labels.values()), value)
    return family


def exposition(registry: CollectorRegistry) -> bytes:
    """The registry in the Prometheus text format."""
    return generate_latest(registry)


async def asgi_answer(registry: CollectorRegistry, send) -> None:
    """Answer an ASGI request with the registry's text (for services without a framework)."""
    body = exposition(registry)
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", CONTENT_TYPE.encode()), (b"content-length", str(len(body)).encode()),
                            (b"cache-control", b"no-store")]})
    await send({"type": "http.response.body", "body": body})
