"""Operator actions: pause and resume (dealer), void and incident resolution (supervisor)."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Depends
from pydantic import Field, StrictStr

from tablesim.games.console import Body
from tablesim.server.auth import Operator
from tablesim.server.routes.deps import dealer, runner, supervisor
from tablesim.server.runner import TableRunner

router = APIRouter()


class WhyBody(Body):
    why: StrictStr = Field(min_length=1, max_length=500)


class VoidBody(WhyBody):
    reason: StrictStr = Field("supervisor", pattern=r"^[a-z][a-z0-9_]{0,39}$")


class ResolveBody(WhyBody):
    decision: Literal["confirm", "reject"]
    card: StrictStr | None = Field(None, max_length=4)


@router.post("/api/pause")
async def pause(body: WhyBody, op: Operator = Depends(dealer), run: TableRunner = Depends(runner)) -> dict:
    await run.pause(op.actor, body.why)
    return {"ok": True, "paused": True}


@router.post("/api/resume")
async def resume(body: WhyBody, op: Operator = Depends(dealer), run: TableRunner = Depends(runner)) -> dict:
    await run.resume(op.actor, body.why)
    return {"ok": True, "paused": False}


@router.post("/api/void")
async def void(body: VoidBody, op: Operator = Depends(supervisor), run: TableRunner = Depends(runner)) -> dict:
    result = await run.void(op.actor, body.why, body.reason)
    return {"ok": True, "result": result}


@router.post("/api/incident/resolve")
async def resolve(body: ResolveBody, op: Operator = Depends(supervisor), run: TableRunner = Depends(runner)) -> dict:
    await run.resolve_incident(op.actor, body.decision, body.why, body.card)
    return {"ok": True}
