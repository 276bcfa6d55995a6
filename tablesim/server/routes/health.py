"""``GET /api/health``: whether the table can do its work."""

from __future__ import annotations

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse

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
