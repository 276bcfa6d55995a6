"""``tablesim studio serve``: the floor page, its JSON API and a WebSocket
that pushes the floor's picture as it changes.

    GET /              the floor page
    GET /api/floor     every table, per-game / per-bet / floor figures, alerts, the consumer's state
    GET /api/tables/ID one table
    GET /api/report?by=shift|day|dealer  the figures per table for each shift, gaming day or dealer
    GET /metrics       the floor's Prometheus metrics (``tablesim.studio.metrics``)

Only what the tables signed is shown (``tablesim.studio.signaturecheck``).
    WS  /ws            {"type": "floor", ...} whenever the picture changed (at most 4 a second)

Read-only: the studio changes nothing at any table.
"""

from __future__ import annotations

import asyncio
import contextlib
from importlib import resources
from pathlib import Path

from fastapi import FastAPI, HTTPException, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse, Response
from fastapi.staticfiles import StaticFiles

from tablecore.metrics import CONTENT_TYPE, exposition
from tablesim.games import registry
from tablesim.i18n.web import router as words_router
from tablesim.studio.consumer import StudioConsumer
from tablesim.studio.floor import GROUPINGS
from tablesim.studio.metrics import FloorMetrics

STATIC = Path(str(resources.files("tablesim.studio") / "static"))
#: seconds between two pushes of the picture to a WebSocket client
PUSH_EVERY = 0.25


def floor_json(consumer: StudioConsumer) -> dict:
    return {**consumer.floor.summary(), "consumer": consumer.status()}


def create_app(url: str, keys: str | Path | None = None, silent_after: float | None = None,
               shifts=None) -> FastAPI:
    version = {"n": 0}

    def changed() -> None:
        version["n"] += 1

    consumer = StudioConsumer(url, on_change=changed, keys=keys, shifts=shifts,
                              **({"silent_after": silent_after} if silent_after is not None else {}))

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):
        task = asyncio.create_task(consumer.run(), name="studio-consumer")
        try:
            yield
        finally:
            consumer.stop()
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    app = FastAPI(title="tablesim studio", lifespan=lifespan, docs_url=None, redoc_url=None,
                  openapi_url="/api/openapi.json")
    app.state.consumer = consumer
    consumer.metrics = metrics = FloorMetrics(consumer)
    app.middleware("http")(_headers)
    _add_pages(app)
    _add_api(app, consumer)
    _add_socket(app, consumer, version)

    @app.get("/metrics", include_in_schema=False)
    async def metrics_text() -> Response:  # (open like the floor's API: figures, no player named)
        return Response(exposition(metrics.registry), media_type=CONTENT_TYPE)

    return app


async def _headers(request, call_next):
    response = await call_next(request)
    response.headers.setdefault("Cache-Control", "no-store")
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Content-Security-Policy",
                                "default-src 'self'; connect-src 'self' ws: wss:; frame-ancestors 'none'")
    return response


def _add_pages(app: FastAPI) -> None:
    @app.get("/", include_in_schema=False)
    async def page():
        return FileResponse(STATIC / "floor.html")

    # the floor's words: the core's and every game's (a game's ids are its own: they never clash)
    app.include_router(words_router([d for d in map(_catalog_dir, registry.names()) if d is not None]))
    app.mount("/static", StaticFiles(directory=STATIC), name="static")


def _add_api(app: FastAPI, consumer: StudioConsumer) -> None:
    @app.get("/api/floor")
    async def floor() -> dict:
        return floor_json(consumer)

    @app.get("/api/report")
    async def report(by: str = "shift") -> dict:
        # the figures per table for each shift, gaming day or dealer (as `studio report --by`)
        if by not in GROUPINGS:
            raise HTTPException(422, f"by must be one of {', '.join(GROUPINGS)}")
        return {"by": by, "rows": consumer.floor.grouped(by)}

    @app.get("/api/tables/{table_id}")
    async def table(table_id: str) -> dict:
        view = consumer.floor.tables.get(table_id)
        if view is None:
            raise HTTPException(404, f"no records of table {table_id!r} in the stream")
        return view.as_json()


def _add_socket(app: FastAPI, consumer: StudioConsumer, version: dict) -> None:
    @app.websocket("/ws")
    async def ws(socket: WebSocket) -> None:
        await socket.accept()
        seen = -1
        try:
            while True:
                if version["n"] != seen:
                    seen = version["n"]
                    await socket.send_json({"type": "floor", **floor_json(consumer)})
                await asyncio.sleep(PUSH_EVERY)
        except (WebSocketDisconnect, RuntimeError):
            return


def serve(url: str, sock, keys: str | Path | None = None, silent_after: float | None = None, shifts=None) -> None:
    """Serve on an already bound socket (the CLI binds it: a busy port is one line) until interrupted."""
    import uvicorn

    # ws_max_size: a floor client sends nothing; a big message closes its connection instead of being held
    config = uvicorn.Config(create_app(url, keys, silent_after, shifts), log_level="warning", access_log=False, lifespan="on",
                            log_config=None, timeout_graceful_shutdown=2, ws_max_size=4096)
    uvicorn.Server(config).run(sockets=[sock])


def _catalog_dir(game: str):
    return registry.spec(game).catalog_dir()
