"""``GET /metrics``: the table's Prometheus metrics (``tablesim.harness.metrics``).

Open like ``/api/health``: it names no player, bet or token, only counts,
times and states (a scraper carries no operator token)."""

from __future__ import annotations

from fastapi import APIRouter, Depends
from fastapi.responses import Response

from tablecore.metrics import CONTENT_TYPE, exposition
from tablesim.server.routes.deps import runner
from tablesim.server.runner import TableRunner

router = APIRouter()


@router.get("/metrics", include_in_schema=False)
async def metrics(run: TableRunner = Depends(runner)) -> Response:
    return Response(exposition(run.metrics.registry), media_type=CONTENT_TYPE)
