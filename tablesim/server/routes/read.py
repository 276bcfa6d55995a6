"""Reading the table: its view, history, results, missed events; who a token is; each player's bets (a token's)."""

from __future__ import annotations

from fastapi import APIRouter, Depends, HTTPException, Query

from tablesim.server.auth import Operator
from tablesim.server.routes.deps import dealer, runner
from tablesim.server.runner import TableRunner

router = APIRouter()


@router.get("/api/table")
async def get_table(run: TableRunner = Depends(runner)) -> dict:
    return await run.snapshot()


@router.get("/api/book")
async def book(op: Operator = Depends(dealer), run: TableRunner = Depends(runner)) -> dict:
    # the open view shows the players' totals only: each player's bets and
    # results are the dealer's console's, with an operator's token
    return await run.book()


@router.get("/api/whoami")
async def whoami(op: Operator = Depends(dealer)) -> dict:
    return {"name": op.name, "role": op.role, "actor": op.actor}


@router.get("/api/incident")
async def open_incident(op: Operator = Depends(dealer), run: TableRunner = Depends(runner)) -> dict:
    # the open view hides an incident's card (it may be face down): the console
    # that resolves it reads it here, with an operator's token
    return {"incident": await run.incident_detail()}


@router.get("/api/history")
async def history(last: int | None = Query(None, ge=1, le=1000), round: str | None = Query(None, max_length=80),
                  run: TableRunner = Depends(runner)):
    if last is not None and round is not None:
        raise HTTPException(422, "use last or round, not both")
    rounds = await run.history(last, round)
    if rounds is None:
        raise HTTPException(404, "this table runs without a journal: there is no history")
    if round is not None and not rounds:
        raise HTTPException(404, f"no round {round!r} in the journal")
    return rounds


@router.get("/api/results")
async def results(last: int = Query(20, ge=1, le=50), run: TableRunner = Depends(runner)) -> list:
    return await run.call(run.board, last, publish=False)


@router.get("/api/events")
async def events(since: int = Query(..., ge=0), run: TableRunner = Depends(runner)) -> dict:
    upto = run.stream.last_seq
    evs, complete = await run.backlog(since, upto)
    return {"stream_id": run.stream.stream_id, "seq": upto, "complete": complete, "events": evs}
