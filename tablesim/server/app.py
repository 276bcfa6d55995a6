"""The HTTP and WebSocket API of one table, and the pages that use it.

    GET  /                         dealer console (static page)
    GET  /board                    results board (static page)
    GET  /api/table                the table: game, state, round, bets, devices, limits, incident, actions
    GET  /api/history?last=N|round=ID   past rounds, as ``tablesim history --json``
    GET  /api/results?last=N       the last rounds' results (the board)
    GET  /api/events?since=SEQ     missed events (what a reconnecting WebSocket gets)
    GET  /metrics                  the table's Prometheus metrics (no token: counts and times only)
    GET  /api/book                 each player's bets and the round's result whole (operator token; the open views show totals)
    GET  /api/whoami               the operator a token belongs to
    GET  /api/incident             the open incident whole, its card too (operator token)
    POST /api/bets                 {position, bet, amount, ref?, player?} dealer
    POST /api/bets/batch           {bets: [{position, bet, amount, ref?, player?}, ...]}  dealer: a result per bet
    DELETE /api/bets/{position}/{bet}?player=ID                          dealer
    POST /api/actions/{name}       the game's actions (open_round, close_betting, deal, decide {box, decision, player?},
                                   misdeal, stray, reveal, set_dealing {mode, why}, spin, no_spin)
    POST /api/pause, /api/resume   {why}                                 dealer
    POST /api/void                 {why, reason?}                        supervisor
    POST /api/incident/resolve     {decision, why, card?}                supervisor
    WS   /ws?since=SEQ&stream=ID[&batch=1][&bets=each]   every table event, snapshots, the bet timer
                                   (the bets come as one ``bets`` message at most every 0.1 s: how
                                   many, the totals of the spots they changed; bets=each: every bet
                                   event instead; batch=1: what is due at once in one frame, a JSON array)

Refusals: 401 no or unknown token (checked before any body is read), 403 a
role that is not enough, 409 an action the table refuses (with its reason),
413 a body over the route's limit, 422 a bad body (``detail``: one readable
reason). Nothing changes on any of them. A batch of bets is answered 200 with
one result per bet (accepted, or refused with the reason a single bet would
get); bets that arrive together, single or batched, are committed in one
journal transaction and answered once it is on disk
(``tablesim.server.intake``). A bet's ``ref`` (the client's id for it) makes
a retry safe: a bet the same player already placed under that ref is
answered ``duplicate`` and not placed again.
"""

from __future__ import annotations

from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from tablecore.errors import IllegalAction, InputError
from tablecore.wording import message_of
from tablesim.games import registry
from tablesim.i18n.web import router as words_router
from tablesim.server.auth import TokenStore
from tablesim.server.betrequests import QuickBets, refusal
from tablesim.server.bodyguard import BodyGuard
from tablesim.server.bodyerrors import NOT_JSON, NOT_JSON_SAID, readable, said
from tablesim.server.routes import actions, bets, health, operator, pages, read, shift, stream
from tablesim.server.routes.pages import STATIC
from tablesim.server.runner import TableRunner

#: headers every answer carries (unless it sets its own)
HEADERS = [
    (b"cache-control", b"no-store"),
    (b"x-content-type-options", b"nosniff"),
    (b"content-security-policy",
     b"default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; frame-ancestors 'none'"),
]

#: the routers, one per concern
ROUTERS = (pages.router, health.router, read.router, bets.router, actions.router, operator.router, shift.router,
           stream.router)


class _Headers:
    """Adds ``HEADERS`` to every HTTP answer (plain ASGI: no task per request)."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                headers += [(name, value) for name, value in HEADERS if name not in present]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def create_app(runner: TableRunner, tokens: TokenStore, *, allowed_hosts: list[str] | None = None,
               allowed_origins: list[str] | None = None) -> FastAPI:
    """The table's app. ``allowed_hosts``: the Host headers accepted (None: any);
    ``allowed_origins``: pages of other origins whose scripts may follow the
    stream (e.g. ``https://floor.example:8443``), besides the table's own."""

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        await runner.start()
        try:
            yield
        finally:
            await runner.stop()

    app = FastAPI(title=f"tablesim {runner.table.table_id}", lifespan=lifespan, docs_url=None,
                  redoc_url=None, openapi_url="/api/openapi.json")
    app.state.runner = runner
    app.state.tokens = tokens
    app.state.origins = frozenset(o.strip().lower().rstrip("/") for o in allowed_origins or ())
    app.add_middleware(QuickBets, runner=runner, tokens=tokens)  # after the guard: its checks stand
    app.add_middleware(BodyGuard, tokens=tokens)  # before FastAPI reads any body
    if allowed_hosts:
        from starlette.middleware.trustedhost import TrustedHostMiddleware

        app.add_middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts)
    _answer_errors(app, runner)
    app.add_middleware(_Headers)
    for router in ROUTERS:
        app.include_router(router)
    # the pages' words (/i18n/{lang}.json): the core's catalogs and the game's own
    folder = registry.spec(runner.table.game).catalog_dir()
    app.include_router(words_router([folder] if folder is not None else []))
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app


def _answer_errors(app: FastAPI, runner: TableRunner) -> None:
    """Refusals as the API promises them: 409 with the reason, 422 with one readable detail."""

    @app.exception_handler(IllegalAction)
    async def _refused(request: Request, exc: IllegalAction):
        return JSONResponse(refusal(exc, runner.journal), 409)

    @app.exception_handler(InputError)
    async def _bad_input(request: Request, exc: InputError):
        words = message_of(exc.message)  # (a text of the catalogs: a page words it in its language)
        say = [{"where": exc.where or "", **words}] if words else []
        return JSONResponse({"error": "bad_input", "detail": str(exc), **({"say": say} if say else {})}, 422)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError):
        errors = exc.errors()
        return JSONResponse({"error": "bad_input", "detail": readable(errors), "say": said(errors)}, 422)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException):
        if exc.status_code == 400:  # FastAPI could not decode the body (not UTF-8): bad input as any other
            return JSONResponse({"error": "bad_input", "detail": NOT_JSON, "say": NOT_JSON_SAID}, 422)
        return await http_exception_handler(request, exc)
