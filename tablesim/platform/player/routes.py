"""The player's side of ``tablesim platform serve``: the page (``/``), its
files (``/player/...``), its words (``/i18n/{lang}.json``, ``/i18n/words.js``),
the WebSocket (``/ws``) and the recall over HTTP (``GET /api/recall``)."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI, Request, WebSocket
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles

from tablesim.games import registry
from tablesim.i18n.web import router as words_router
from tablesim.platform.player.public import SHOWN
from tablesim.platform.player.hub import Hub, tap
from tablesim.platform.player.inforce import ROUND_RECORD
from tablesim.platform.player.socket import PlayerSocket
from tablesim.platform.sessions import BadSession

HERE = Path(__file__).parent
STATIC = HERE / "static"
#: the page's own words
CATALOG = HERE / "i18n"


def player_routes(app: FastAPI, platform) -> Hub:
    hub = Hub(platform.offers, platform.rounds)
    tap(platform.rounds, hub)
    platform.follower.read_also(SHOWN)  # (the money's picture reads only what it needs; the players see these too)
    platform.follower.read_also((ROUND_RECORD[1],))  # (a round's first record: the profile it is played under)
    platform.hub = hub
    platform.desk.answering = hub.held  # (a batch's answers to each socket in one write)
    folders = [CATALOG, *(registry.spec(g).catalog_dir() for g in registry.names())]
    app.include_router(words_router(folders))  # (the page writes each table's currency code itself)
    app.mount("/player", StaticFiles(directory=STATIC), name="player")

    @app.get("/", include_in_schema=False)
    async def page() -> FileResponse:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon() -> FileResponse:  # (browsers ask for it whatever the page names)
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    async def socket_app(scope, receive, send) -> None:  # (``/ws``, in front of the framework: fastbets.py)
        await PlayerSocket(WebSocket(scope, receive, send), platform, hub).run()

    platform.player_socket = socket_app

    @app.get("/api/recall")
    async def recall(request: Request) -> JSONResponse:
        auth = request.headers.get("authorization", "")
        try:
            me = platform.sessions.read(auth[7:] if auth.lower().startswith("bearer ") else None)
        except BadSession as exc:
            return JSONResponse({"ok": False, "status": "no_session", "message": str(exc)}, 401)
        return JSONResponse({"ok": True, "player": me.player, "rounds": hub.recall.closed(me.player)})

    return hub
