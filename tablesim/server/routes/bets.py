"""Bets: one, a batch (a result per bet), a withdrawal. (A plainly
well-formed bet or batch is answered by ``QuickBets``, before FastAPI's
machinery, with the same answer these routes give.)"""

from __future__ import annotations

from fastapi import APIRouter, Depends, Query
from fastapi.responses import JSONResponse

from tablecore.money import parse_amount
from tablesim.server.auth import Operator
from tablesim.server.betrequests import BatchBody, BetBody, _position, place_batch, place_one
from tablesim.server.routes.deps import dealer, runner
from tablesim.server.runner import TableRunner

router = APIRouter()


@router.post("/api/bets")
async def place_bet(body: BetBody, op: Operator = Depends(dealer), run: TableRunner = Depends(runner)) -> dict:
    amount = parse_amount(body.amount)  # plain digits only, bounded, before any arithmetic
    return await place_one(run, op, _position(body.position), body.bet, amount, body.ref, body.player)


@router.post("/api/bets/batch")
async def place_bets(body: BatchBody, op: Operator = Depends(dealer), run: TableRunner = Depends(runner)) -> dict:
    return JSONResponse(await place_batch(run, op, body.bets))


@router.delete("/api/bets/{position}/{bet}")
async def withdraw_bet(position: str, bet: str, player: str | None = Query(None, min_length=1, max_length=40),
                       op: Operator = Depends(dealer), run: TableRunner = Depends(runner)) -> dict:
    bets = await run.withdraw_bet(op.actor, _position(position), bet, player)
    return {"ok": True, "bets": bets}
