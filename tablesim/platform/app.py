"""The platform's HTTP API for players (JSON):

- ``POST /api/session`` ``{"token": LAUNCH_TOKEN}``: the wallet authenticates
  the operator's launch token; the answer holds the player's session token
  (``Authorization: Bearer <session>`` on every other call), their id,
  currency, unit and balance;
- ``GET /api/balance``; ``GET /api/tables`` (what is offered, and whether
  each table takes bets now);
- ``POST /api/bets`` ``{"table", "bet", "amount": "10", "position"}``:
  debited, sent to the table; the answer says exactly what happened
  (answered by ``tablesim.platform.fastbets``, in front of the routes);
- ``POST /api/decisions`` ``{"table", "round", "decision"}``: a remote
  player's decision on a table's shared remote hand: a play (a second debit)
  or a fold (``decisions``);
- ``POST /api/bets/withdraw``: refused (the tables' bus takes no withdrawals);
- ``GET /api/health``: the process's state and settlement counters;
- ``GET /metrics``: the same and the wallet calls' times, for Prometheus (``metrics``).
"""

from __future__ import annotations

import uuid

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

from tablecore.metrics import CONTENT_TYPE, exposition
from tablesim.platform.betdesk import Answer, refused
from tablesim.platform.player.routes import player_routes
from tablesim.platform.decision_routes import decision_routes
from tablesim.platform.metrics import PlatformMetrics
from tablesim.platform.fastbets import FastBets, closing, read_body, read_json
from tablesim.platform.service import Platform
from tablesim.platform.sessions import BadSession
from tablesim.wallet.client import WalletError



def _reply(answer: Answer) -> JSONResponse:
    return JSONResponse(answer.body, status_code=answer.http,
                        headers={k.decode(): v.decode() for k, v in closing(answer)})


async def _json(request: Request) -> dict | Answer:
    """The request's JSON object, its body read no further than the limit (``read_body``)."""
    body = await read_body(request.scope, request.receive)
    if body is None:
        return refused(400, "bad_input", "the request ended before its body")
    return body if isinstance(body, Answer) else read_json(body)


def create_app(platform: Platform) -> FastBets:
    """The platform's ASGI application: ``POST /api/bets`` answered in front
    of everything (``tablesim.platform.fastbets``), the rest by FastAPI."""
    app = FastAPI(title="tablesim platform", docs_url=None, redoc_url=None, openapi_url=None)

    @app.on_event("startup")
    async def _start() -> None:
        await platform.start()

    @app.on_event("shutdown")
    async def _stop() -> None:
        await platform.stop()

    _account_routes(app, platform)
    _bet_routes(app, platform)
    player_routes(app, platform)
    decision_routes(app, platform)  # decisions on a shared remote hand (decision_routes.py)

    @app.get("/api/health")
    async def health() -> JSONResponse:
        return JSONResponse(platform.health())

    metrics = PlatformMetrics(platform)

    @app.get("/metrics", include_in_schema=False)
    async def metrics_text() -> Response:  # (open like the health: counts and times, no player named)
        return Response(exposition(metrics.registry), media_type=CONTENT_TYPE)

    # (outside FastAPI's own middleware too: a bet passes through none of it)
    return FastBets(app, platform)


def _session_of(platform: Platform, request: Request):
    auth = request.headers.get("authorization", "")
    return platform.sessions.read(auth[7:] if auth.lower().startswith("bearer ") else None)


def _account_routes(app: FastAPI, platform: Platform) -> None:
    session_of = lambda request: _session_of(platform, request)  # noqa: E731

    @app.post("/api/session")
    async def open_session(request: Request) -> JSONResponse:
        doc = await _json(request)
        if isinstance(doc, Answer):
            return _reply(doc)
        token = doc.get("token")
        if not isinstance(token, str) or not 16 <= len(token) <= 128 or set(doc) != {"token"}:
            return _reply(refused(400, "bad_input", "a session is opened with {\"token\": LAUNCH_TOKEN}"))
        try:
            me = await platform.wallet.authenticate(token, request_id="s-" + uuid.uuid4().hex)
        except WalletError as exc:
            return _reply(refused(503, "wallet_unavailable", str(exc)))
        if not me.ok:
            return _reply(refused(401, me.status.value, me.message or "the launch token is not valid"))
        return JSONResponse({"ok": True, "session": platform.sessions.issue(me.player, me.currency, me.unit),
                             "player": me.player, "currency": me.currency, "unit": format(me.unit, "f"),
                             "balance": format(me.balance, "f")})

    @app.get("/api/balance")
    async def balance(request: Request) -> JSONResponse:
        try:
            me = session_of(request)
            account = await platform.wallet.balance(me.player, me.currency, request_id="b-" + uuid.uuid4().hex)
        except BadSession as exc:
            return _reply(refused(401, "no_session", str(exc)))
        except WalletError as exc:
            return _reply(refused(503, "wallet_unavailable", str(exc)))
        if not account.ok:
            return _reply(refused(409, account.status.value, account.message or ""))
        return JSONResponse({"ok": True, "player": me.player, "currency": account.currency,
                             "balance": format(account.balance, "f")})



def _bet_routes(app: FastAPI, platform: Platform) -> None:
    session_of = lambda request: _session_of(platform, request)  # noqa: E731

    @app.get("/api/tables")
    async def tables() -> JSONResponse:
        out = []
        for offer in platform.offers.values():
            t = platform.rounds.tables.get(offer.table)
            out.append({"table": offer.table, "currency": offer.currency, "unit": format(offer.unit, "f"),
                        "position": offer.position, "round": t.round_id if t else None,
                        "state": t.state if t else None, "betting": bool(t and t.betting)})
        return JSONResponse({"tables": out})

    @app.post("/api/bets/withdraw")
    async def withdraw(request: Request) -> JSONResponse:
        try:
            session_of(request)
        except BadSession as exc:
            return _reply(refused(401, "no_session", str(exc)))
        return _reply(refused(409, "not_offered", "withdrawing a bet is not offered: the tables take bets over "
                              "the bus, not withdrawals; a bet stands once placed"))
