"""``POST /api/actions/{name}``: the game's own actions, each with its role and body."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Header, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError

from tablesim.server.bodyerrors import TOO_DEEP, TooDeep, loads
from tablesim.server.routes.deps import need, operator_of, runner
from tablesim.server.runner import TableRunner

router = APIRouter()


@router.post("/api/actions/{name}")
async def game_action(name: str, request: Request, authorization: str | None = Header(None),
                      run: TableRunner = Depends(runner)) -> dict:
    op = operator_of(request.app.state.tokens, authorization)
    action = run.adapter.actions().get(name)
    if action is None:
        known = ", ".join(run.adapter.actions())
        raise HTTPException(404, f"{run.table.game} has no action {name!r} (actions: {known})")
    need(op, action.role, name.replace("_", " "))
    try:
        body = action.body.model_validate(_body(await request.body()))
    except ValidationError as exc:
        raise RequestValidationError(exc.errors(include_url=False)) from None
    out = await run.action(op.actor, name, body)
    return {"ok": True, "result": out, "state": run.view.cache.get("state")}


def _body(raw: bytes) -> object:
    """An action's body as JSON (none: no fields), bounded in depth."""
    try:
        data = loads(raw) if raw.strip() else {}
    except TooDeep:
        raise HTTPException(422, TOO_DEEP) from None
    except ValueError:
        raise HTTPException(422, "the body is not JSON") from None
    return {} if data is None else data
