"""The HTTP and WebSocket API of one table, and the pages that use it.

    GET  /                         dealer console (static page)
    GET  /board                    results board (static page)
    GET  /api/table                the table: game, state, round, bets, devices, limits, incident, actions
    GET  /api/history?last=N|round=ID   past rounds, as ``tablesim history --json``
    GET  /api/results?last=N       the last rounds' results (the board)
    GET  /api/events?since=SEQ     missed events (what a reconnecting WebSocket gets)
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
    WS   /ws?since=SEQ&stream=ID[&batch=1]   every table event, snapshots, the bet timer
                                   (batch=1: what is due at once in one frame, a JSON array)

Refusals: 401 no or unknown token (checked before any body is read), 403 a
role that is not enough, 409 an action the table refuses (with its reason),
413 a body over the route's limit, 422 a bad body (``detail``: one readable
reason). Nothing changes on any of them. A batch of bets is answered 200 with
one result per bet (accepted, or refused with the reason a single bet would
get); bets that arrive together, single or batched, are committed in one
journal transaction and answered once it is on disk
(``tablesim.harness.intake``). A bet's ``ref`` (the client's id for it) makes
a retry safe: a bet the same player already placed under that ref is
answered ``duplicate`` and not placed again.
"""

from __future__ import annotations

import asyncio
import gc
import json
import signal
import socket
import threading
import time
from contextlib import asynccontextmanager, contextmanager
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from fastapi import Depends, FastAPI, Header, HTTPException, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import Field, StrictStr, ValidationError

from tablecore.errors import IllegalAction, InputError
from tablecore.money import parse_amount
from tablesim.games import registry
from tablesim.server import public
from tablesim.server.bets import BatchBody, BetBody, QuickBets, Strict, _position, place_batch, place_one, refusal
from tablesim.server.auth import Operator, TokenStore, bearer
from tablesim.server.guard import BodyGuard
from tablesim.server.reasons import NOT_JSON, TOO_DEEP, TooDeep, loads, readable
from tablesim.server.runner import TableRunner
from tablesim.server.stream import wire_text
from tablesim.server.words import words_router

STATIC = Path(str(resources.files("tablesim.server") / "static"))
#: how long a new WebSocket client may take to send ``{"since": N}`` first
FIRST_MESSAGE_WAIT = 0.3
#: the largest message a stream client may send (it sends ``{"since": N}`` and pings):
#: anything bigger closes its connection (1009) before the server holds it
WS_MAX_MESSAGE = 4096


class WhyBody(Strict):
    why: StrictStr = Field(min_length=1, max_length=500)


class VoidBody(WhyBody):
    reason: StrictStr = Field("supervisor", pattern=r"^[a-z][a-z0-9_]{0,39}$")


class ResolveBody(WhyBody):
    decision: Literal["confirm", "reject"]
    card: StrictStr | None = Field(None, max_length=4)


#: headers every answer carries (unless it sets its own)
HEADERS = [
    (b"cache-control", b"no-store"),
    (b"x-content-type-options", b"nosniff"),
    (b"content-security-policy",
     b"default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; frame-ancestors 'none'"),
]


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


#: the Host names a server bound to the loopback answers to (no DNS rebinding)
LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "::1", "[::1]"]


def is_loopback(host: str) -> bool:
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def origin_allowed(origin: str | None, host: str | None, allowed: frozenset[str] = frozenset()) -> bool:
    """Whether a WebSocket client may connect: no Origin (not a browser), the
    table's own (the Host it asked for), or one configured (``scheme://host:port``)."""
    if origin is None:
        return True
    origin = origin.strip().lower().rstrip("/")
    if origin in allowed:
        return True
    scheme, sep, netloc = origin.partition("://")
    return bool(sep) and scheme in ("http", "https") and host is not None and netloc == host.strip().lower()


def create_app(runner: TableRunner, tokens: TokenStore, *, allowed_hosts: list[str] | None = None,
               allowed_origins: list[str] | None = None) -> FastAPI:
    """The table's app. ``allowed_hosts``: the Host headers accepted (None: any);
    ``allowed_origins``: pages of other origins whose scripts may follow the
    stream (e.g. ``https://floor.example:8443``), besides the table's own."""
    origins = frozenset(o.strip().lower().rstrip("/") for o in allowed_origins or ())
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
    app.add_middleware(QuickBets, runner=runner, tokens=tokens)  # after the guard: its checks stand
    app.add_middleware(BodyGuard, tokens=tokens)  # before FastAPI reads any body
    if allowed_hosts:
        from starlette.middleware.trustedhost import TrustedHostMiddleware

        app.add_middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts)

    # --- errors -------------------------------------------------------------------

    @app.exception_handler(IllegalAction)
    async def _refused(request: Request, exc: IllegalAction):
        return JSONResponse(refusal(exc, runner.journal), 409)

    @app.exception_handler(InputError)
    async def _bad_input(request: Request, exc: InputError):
        return JSONResponse({"error": "bad_input", "detail": str(exc)}, 422)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError):
        return JSONResponse({"error": "bad_input", "detail": readable(exc.errors())}, 422)

    from fastapi.exception_handlers import http_exception_handler
    from starlette.exceptions import HTTPException as StarletteHTTPException

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException):
        if exc.status_code == 400:  # FastAPI could not decode the body (not UTF-8): bad input as any other
            return JSONResponse({"error": "bad_input", "detail": NOT_JSON}, 422)
        return await http_exception_handler(request, exc)

    app.add_middleware(_Headers)

    # --- access -----------------------------------------------------------------

    def operator(authorization: str | None) -> Operator:
        token = bearer(authorization)
        if token is None:
            raise HTTPException(401, "an operator token is needed (Authorization: Bearer <token>)",
                                headers={"WWW-Authenticate": "Bearer"})
        op = tokens.check(token)
        if op is None:
            raise HTTPException(401, "unknown operator token", headers={"WWW-Authenticate": "Bearer"})
        return op

    def need(op: Operator, role: str, what: str) -> None:
        if not op.may(role):
            raise HTTPException(403, f"{what} needs a {role}: {op.name} is a {op.role}")

    # async: a plain function would be run on a worker thread for every request
    async def dealer(authorization: str | None = Header(None)) -> Operator:
        return operator(authorization)

    async def supervisor(authorization: str | None = Header(None)) -> Operator:
        op = operator(authorization)
        need(op, "supervisor", "this")
        return op

    # --- pages ------------------------------------------------------------------

    @app.get("/", include_in_schema=False)
    async def console_page():
        return FileResponse(STATIC / "console.html")

    @app.get("/board", include_in_schema=False)
    async def board_page():
        return FileResponse(STATIC / "board.html")

    piece = registry.spec(runner.table.game).console_piece_file()

    @app.get("/static/game.js", include_in_schema=False)
    async def game_piece():
        # the table's game draws its own part of the console and the board (a module in its folder)
        if piece is None:
            return Response("// this game draws only the generic parts\n", media_type="text/javascript")
        return FileResponse(Path(str(piece)), media_type="text/javascript")

    app.include_router(words_router(runner.table.game))  # the pages' words: /i18n/{lang}.json
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    # --- reading ----------------------------------------------------------------

    @app.get("/api/health")
    async def health() -> JSONResponse:
        # not ok (503) while the journal cannot commit: the table cannot take a bet or an action
        problem = runner.journal_problem()
        ok = runner.started and problem is None
        return JSONResponse({"ok": ok, "table_id": runner.table.table_id, "game": runner.table.game,
                             "journal": (public.hide_path(problem, runner.journal) if problem
                                         else "ok" if runner.journal is not None else None)},
                            200 if ok else 503)

    @app.get("/api/table")
    async def get_table() -> dict:
        return await runner.snapshot()

    @app.get("/api/whoami")
    async def whoami(op: Operator = Depends(dealer)) -> dict:
        return {"name": op.name, "role": op.role, "actor": op.actor}

    @app.get("/api/incident")
    async def open_incident(op: Operator = Depends(dealer)) -> dict:
        # the open view hides an incident's card (it may be face down): the console
        # that resolves it reads it here, with an operator's token
        return {"incident": await runner.incident_detail()}

    @app.get("/api/history")
    async def history(last: int | None = Query(None, ge=1, le=1000), round: str | None = Query(None, max_length=80)):
        if last is not None and round is not None:
            raise HTTPException(422, "use last or round, not both")
        rounds = await runner.history(last, round)
        if rounds is None:
            raise HTTPException(404, "this table runs without a journal: there is no history")
        if round is not None and not rounds:
            raise HTTPException(404, f"no round {round!r} in the journal")
        return rounds

    @app.get("/api/results")
    async def results(last: int = Query(20, ge=1, le=50)) -> list:
        return await runner.call(runner.board, last, publish=False)

    @app.get("/api/events")
    async def events(since: int = Query(..., ge=0)) -> dict:
        upto = runner.stream.last_seq
        evs, complete = await runner.backlog(since, upto)
        return {"stream_id": runner.stream.stream_id, "seq": upto, "complete": complete, "events": evs}

    # --- bets ----------------------------------------------------------------------

    # (a plainly well-formed bet or batch is answered by QuickBets, before
    # FastAPI's machinery, with the same answer these routes give)
    @app.post("/api/bets")
    async def place_bet(body: BetBody, op: Operator = Depends(dealer)) -> dict:
        amount = parse_amount(body.amount)  # plain digits only, bounded, before any arithmetic
        return await place_one(runner, op, _position(body.position), body.bet, amount, body.ref, body.player)

    @app.post("/api/bets/batch")
    async def place_bets(body: BatchBody, op: Operator = Depends(dealer)) -> dict:
        return JSONResponse(await place_batch(runner, op, body.bets))

    @app.delete("/api/bets/{position}/{bet}")
    async def withdraw_bet(position: str, bet: str, player: str | None = Query(None, min_length=1, max_length=40),
                           op: Operator = Depends(dealer)) -> dict:
        bets = await runner.withdraw_bet(op.actor, _position(position), bet, player)
        return {"ok": True, "bets": bets}

    # --- the game's actions ------------------------------------------------------------

    @app.post("/api/actions/{name}")
    async def game_action(name: str, request: Request, authorization: str | None = Header(None)) -> dict:
        op = operator(authorization)
        action = runner.adapter.actions().get(name)
        if action is None:
            known = ", ".join(runner.adapter.actions())
            raise HTTPException(404, f"{runner.table.game} has no action {name!r} (actions: {known})")
        need(op, action.role, name.replace("_", " "))
        raw = await request.body()
        try:
            data = loads(raw) if raw.strip() else {}
        except TooDeep:
            raise HTTPException(422, TOO_DEEP) from None
        except ValueError:
            raise HTTPException(422, "the body is not JSON") from None
        if data is None:
            data = {}
        try:
            body = action.body.model_validate(data)
        except ValidationError as exc:
            raise RequestValidationError(exc.errors(include_url=False)) from None
        out = await runner.action(op.actor, name, body)
        return {"ok": True, "result": out, "state": runner.snapshot_cache.get("state")}

    # --- operator actions --------------------------------------------------------------

    @app.post("/api/pause")
    async def pause(body: WhyBody, op: Operator = Depends(dealer)) -> dict:
        await runner.pause(op.actor, body.why)
        return {"ok": True, "paused": True}

    @app.post("/api/resume")
    async def resume(body: WhyBody, op: Operator = Depends(dealer)) -> dict:
        await runner.resume(op.actor, body.why)
        return {"ok": True, "paused": False}

    @app.post("/api/void")
    async def void(body: VoidBody, op: Operator = Depends(supervisor)) -> dict:
        result = await runner.void(op.actor, body.why, body.reason)
        return {"ok": True, "result": result}

    @app.post("/api/incident/resolve")
    async def resolve(body: ResolveBody, op: Operator = Depends(supervisor)) -> dict:
        await runner.resolve_incident(op.actor, body.decision, body.why, body.card)
        return {"ok": True}

    # --- the live stream ---------------------------------------------------------------

    @app.websocket("/ws")
    async def stream(ws: WebSocket) -> None:
        if not origin_allowed(ws.headers.get("origin"), ws.headers.get("host"), origins):
            # a page of another site (or a sandboxed one, "null") in a browser on the table PC:
            # refused before the handshake completes (HTTP 403)
            await ws.close(code=1008, reason="this origin may not read the table's stream")
            return
        await ws.accept()
        loop = asyncio.get_running_loop()
        sub, current = runner.stream.subscribe(loop)
        reader: asyncio.Task | None = None
        try:
            since, client_stream = _since(ws.query_params.get("since")), ws.query_params.get("stream")
            if since is None and "since" not in ws.query_params:
                try:
                    first = loads(await asyncio.wait_for(ws.receive_text(), FIRST_MESSAGE_WAIT))
                except (asyncio.TimeoutError, ValueError, KeyError):
                    first = None
                if isinstance(first, dict):
                    since = _since(first.get("since"))
                    client_stream = first.get("stream") or first.get("stream_id")
            reset = since is not None and (
                (client_stream is not None and client_stream != runner.stream.stream_id) or since > current
            )
            if reset:
                since = None
            snap_seq = runner.snapshot_cache.get("seq", current)
            if since is None and snap_seq < current:
                # The snapshot lags the stream (it is rebuilt at most every
                # SNAPSHOT_EVERY while bets stream in): the events since follow.
                since = snap_seq
            await ws.send({"type": "websocket.send", "text": hello_text(runner, current, reset)})
            last = current
            if since is not None:
                backlog, complete = await runner.backlog(since, current)
                if not complete:
                    await ws.send_json({"type": "gap", "since": since,
                                        "first": backlog[0]["seq"] if backlog else None})
                for msg in backlog:
                    await ws.send_json({**msg, "replay": True})
            reader = asyncio.create_task(_read(ws, sub))
            await _follow(ws, sub, reader, last, current, ws.query_params.get("batch") == "1")
        except (WebSocketDisconnect, RuntimeError, OSError):
            pass  # the client went away
        finally:
            runner.stream.unsubscribe(sub)
            if reader is not None:
                reader.cancel()

    return app


_table_text: tuple[Any, str] = (None, "null")  # (the snapshot, its text): kept, so never mistaken for another


def hello_text(runner: TableRunner, current: int, reset: bool) -> str:
    """The ``hello`` message; the table in it serialised once per snapshot,
    not once per client (hundreds connect at once after a restart)."""
    global _table_text
    snap = runner.snapshot_cache
    if _table_text[0] is not snap:
        _table_text = (snap, wire_text(snap))
    head = wire_text({"type": "hello", "stream_id": runner.stream.stream_id, "seq": current, "reset": reset})
    return head[:-1] + ',"table":' + _table_text[1] + "}"


def _since(value: Any) -> int | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        n = int(value)
    except (TypeError, ValueError):
        return None
    return n if n >= 0 else None


#: how long a dropped client's close may take before it is left to the server
CLOSE_WAIT = 1.0


async def _follow(ws: WebSocket, sub, reader: asyncio.Task, last: int, current: int, batch: bool) -> None:
    """Send the client what the stream queues for it until it goes away or
    falls too far behind (its queue filled): then it is closed (1013), never
    waited for; a send stuck on a client that does not read is cancelled."""
    writer = asyncio.create_task(_write(ws, sub, last, current, batch))
    dropped = asyncio.create_task(sub.dropped.wait())
    try:
        await asyncio.wait({writer, reader, dropped}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        writer.cancel()
        dropped.cancel()
    if writer.done() and not writer.cancelled():
        writer.exception()  # (the client went away mid-send: nothing more to say)
    if sub.dropped.is_set():
        try:
            await asyncio.wait_for(ws.close(code=1013, reason="too far behind: reconnect with since"), CLOSE_WAIT)
        except (asyncio.TimeoutError, RuntimeError, OSError, WebSocketDisconnect):
            pass  # it does not read: the server closes its connection as the handler returns


async def _write(ws: WebSocket, sub, last: int, current: int, batch: bool = False) -> None:
    """The client's writer: the stream's log from where the client is, each
    message serialised once for every client. ``batch``: what is due goes in
    one frame, a JSON array of the messages (a client that asked for it with
    ``batch=1``: thousands of events a second cost it a few frames)."""
    send = ws.send  # (a plain ASGI message: the text is already JSON)
    stream = sub.stream
    while True:
        changed = stream.changed
        items = sub.take()
        if items is None:
            if sub.dropped.is_set():
                return
            await changed.wait()
            continue
        texts = []
        for kind, seq, text in items:
            if kind == "event":
                if seq <= last:
                    continue  # (already sent from the backlog)
                last = seq
            elif kind == "snapshot" and seq < current:
                continue
            if not batch:
                await send({"type": "websocket.send", "text": text})
            else:
                texts.append(text)
        if texts:
            await send({"type": "websocket.send", "text": "[" + ",".join(texts) + "]"})


async def _read(ws: WebSocket, sub) -> None:
    """Take what the client sends: pings are answered, the rest ignored; returns on disconnect."""
    while True:
        msg = await ws.receive()
        if msg["type"] == "websocket.disconnect":
            return
        text = msg.get("text")
        if text and '"ping"' in text:
            sub.push({"type": "pong"})


# --- running the server -------------------------------------------------------------


def bind(host: str, port: int) -> socket.socket:
    """A listening socket (port 0: a free one)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise InputError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    sock.listen(128)
    sock.setblocking(False)
    return sock


#: the signals that stop a served table (see _unblocking_stop_signals)
STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}


def settle_heap() -> None:
    """Move everything built at start-up (the web stack, the libraries, the
    recovered table) out of the garbage collector's sight. Python's full
    collections otherwise walk those few hundred thousand long-lived objects
    again and again while bets stream in, and each walk holds every answer
    back: at 5,000 bets/s the acknowledgements' p99 was 53-60 ms with them
    and 10 ms without (``tablesim bench --only bet_intake``). Nothing is
    leaked: frozen objects are still freed by reference counting."""
    gc.collect()
    gc.freeze()


def _server(app: FastAPI, log_level: str = "warning"):
    import uvicorn

    class Server(uvicorn.Server):
        def capture_signals(self):
            return _unblocking_stop_signals(super().capture_signals())

    # log_config=None: uvicorn's records go to the root logger, rendered as ours (tablesim.log)
    config = uvicorn.Config(app, log_level=log_level, access_log=False, lifespan="on", log_config=None,
                            timeout_graceful_shutdown=2, ws_ping_interval=20.0, ws_max_size=WS_MAX_MESSAGE)
    return Server(config)


@contextmanager
def _unblocking_stop_signals(captured):
    """uvicorn's signal handlers are in place: a SIGTERM or SIGINT that
    ``tablesim serve`` held back until now (it blocks them before it says
    the table can be stopped) is delivered here, to uvicorn, which shuts
    down gracefully. (A handler that raised at whatever line the signal
    came, an import or an event loop callback, could fail or be lost.)"""
    with captured:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
        yield


def serve_table(
    table,
    *,
    tokens: TokenStore,
    rig=None,
    host: str = "127.0.0.1",
    port: int = 8080,
    bet_seconds: float | None = None,
    pace: float = 0.5,
    recovery=None,
    sock: socket.socket | None = None,
    log_level: str = "warning",
    studio: str | None = None,
) -> None:
    """Serve an already built (and recovered) table until interrupted.

    The table's devices are in ``table.devices``; ``rig`` is the mock dealer
    of a mock table (None for real or emulated devices: they are polled as
    fast as they report).
    """
    runner = TableRunner(table, rig=rig, pace=pace, bet_seconds=bet_seconds, recovery=recovery, studio=studio)
    app = create_app(runner, tokens, allowed_hosts=LOOPBACK_HOSTS if is_loopback(host) else None)
    sock = sock or bind(host, port)
    server = _server(app, log_level)
    settle_heap()
    server.run(sockets=[sock])


class ServerThread:
    """A table's server on a background thread (tests, embedding): ``start()``,
    ``url``, ``stop()``."""

    def __init__(self, runner: TableRunner, tokens: TokenStore, host: str = "127.0.0.1", port: int = 0,
                 allowed_origins: list[str] | None = None) -> None:
        self.runner = runner
        self.app = create_app(runner, tokens, allowed_hosts=LOOPBACK_HOSTS if is_loopback(host) else None,
                              allowed_origins=allowed_origins)
        self.sock = bind(host, port)
        self.host, self.port = self.sock.getsockname()[:2]
        self.server = _server(self.app)
        self.thread = threading.Thread(target=self._run, name="tablesim-server", daemon=True)
        self.error: BaseException | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def _run(self) -> None:
        try:
            self.server.run(sockets=[self.sock])
        except BaseException as exc:  # pragma: no cover - reported by start()
            self.error = exc

    def start(self, timeout: float = 10.0) -> "ServerThread":
        self.thread.start()
        end = time.monotonic() + timeout
        while not self.server.started:
            if self.error is not None or not self.thread.is_alive():
                raise RuntimeError(f"the server did not start: {self.error!r}")
            if time.monotonic() > end:
                raise RuntimeError("the server did not start in time")
            time.sleep(0.01)
        return self

    def stop(self, timeout: float = 10.0) -> None:
        self.server.should_exit = True
        self.thread.join(timeout)
        self.sock.close()

    def __enter__(self) -> "ServerThread":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
