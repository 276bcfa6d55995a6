"""The dealer on duty: ``POST /api/shift/sign-in`` and ``/api/shift/sign-out``
(``tablesim.server.shift`` keeps who is on duty and journals it)."""

from __future__ import annotations

from fastapi import APIRouter, Depends

from tablesim.server.auth import Operator
from tablesim.server.routes.deps import dealer, runner
from tablesim.server.runner import TableRunner

router = APIRouter()


@router.post("/api/shift/sign-in")
async def sign_in(op: Operator = Depends(dealer), run: TableRunner = Depends(runner)) -> dict:
    duty = await run.call(lambda: run.shift.sign_in(run.table, run.journal, op), actor=op.actor)
    return {"ok": True, "on_duty": duty}


@router.post("/api/shift/sign-out")
async def sign_out(op: Operator = Depends(dealer), run: TableRunner = Depends(runner)) -> dict:
    await run.call(lambda: run.shift.sign_out(run.table, run.journal, op), actor=op.actor)
    return {"ok": True, "on_duty": None}
