"""What ``tablesim run`` adds around its rounds: ``--json`` (the session's
rounds and results as one object, once the run ends, interrupted or not)
and ``--metrics-port`` (the table's Prometheus metrics while it runs)."""

from __future__ import annotations

import json
from typing import Any

import click

from tablecore.errors import InputError
from tablecore.metrics import CollectorRegistry, Scraped
from tablecore.money import fmt
from tablesim.engine.stats import SessionStats
from tablesim.harness.metrics import TableMetrics


def round_json(table) -> dict[str, Any]:
    """The round just played: its id and its result in the public result format."""
    return {"round_id": table.result.round_id, **table.result.as_json()}


def print_json(table, requested: int, played: list[dict], stats: SessionStats, interrupted: bool) -> None:
    by_bet = {bet: {"count": t.count, "wagered": fmt(t.wagered), "player_net": fmt(t.player_net),
                    "hold": None if t.hold is None else f"{t.hold:.6f}"} for bet, t in stats.rows()}
    click.echo(json.dumps({
        "table_id": table.table_id, "game": table.game, "rounds_requested": requested, "rounds_played": len(played),
        "interrupted": interrupted, "rounds": played,
        "summary": {"rounds": stats.rounds, "void": stats.void, "wagered": fmt(stats.wagered),
                    "house_result": fmt(stats.house_result), "by_bet": by_bet},
    }, indent=1))


class MetricsServer:
    """``GET http://127.0.0.1:PORT/metrics`` of the table while it runs (prometheus_client's own
    small HTTP server, on a thread). Bound at once, so a busy port is one line before any round."""

    def __init__(self, port: int) -> None:
        from prometheus_client import start_http_server

        self.metrics: TableMetrics | None = None
        self._registry = CollectorRegistry()  # (the table's, once it is known: ``follow``)
        try:
            self.server, self.thread = start_http_server(port, addr="127.0.0.1", registry=self._registry)
        except OSError as exc:
            raise InputError(f"--metrics-port {port}: cannot listen on 127.0.0.1:{port}: "
                             f"{exc.strerror or exc}") from None
        self.port = self.server.server_address[1]

    def follow(self, table) -> None:
        """Count the table's events from now on (its journal attached)."""
        self.metrics = metrics = TableMetrics(table, count_bet_events=True).attach()
        self._registry.register(Scraped(lambda: metrics.registry.collect()))

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        if self.metrics is not None:
            self.metrics.detach()

