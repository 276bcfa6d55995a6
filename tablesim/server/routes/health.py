"""How the table is, open to whoever asks (a monitor, a scraper: no
operator token): ``GET /api/health``, whether the table can do its work,
and ``GET /metrics``, its Prometheus metrics (``tablesim.harness.metrics``).
Neither names a player, a bet or a token: only counts, times and states."""

from __future__ import annotations

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse, Response

from tablecore.metrics import CONTENT_TYPE, exposition
from tablesim.web import redaction
from tablesim.server.routes.deps import runner
from tablesim.server.runner import TableRunner

router = APIRouter()


@router.get("/api/health")
async def health(run: TableRunner = Depends(runner)) -> JSONResponse:
    # not ok (503) while the journal cannot commit: the table cannot take a bet or an action
    problem = run.notices.journal_problem()
    ok = run.started and problem is None
    return JSONResponse({"ok": ok, "table_id": run.table.table_id, "game": run.table.game,
                         "journal": (redaction.hide_path(problem, run.journal) if problem
                                     else "ok" if run.journal is not None else None)},
                        200 if ok else 503)


@router.get("/metrics", include_in_schema=False)
async def metrics(run: TableRunner = Depends(runner)) -> Response:
    return Response(exposition(run.metrics.registry), media_type=CONTENT_TYPE)
