"""``POST /api/decisions`` ``{"table", "round", "decision": "play" | "fold"}``:
a remote player's decision on a table's shared remote hand
(``tablesim.platform.decisions``); the answer says exactly what happened."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from tablesim.platform.betdesk import Answer, refused
from tablesim.platform.sessions import BadSession


def decision_routes(app: FastAPI, platform) -> None:
    from tablesim.platform.app import _json, _reply, _session_of

    @app.post("/api/decisions")
    async def decide(request: Request) -> JSONResponse:
        try:
            me = _session_of(platform, request)
        except BadSession as exc:
            return _reply(refused(401, "no_session", str(exc)))
        doc = await _json(request)
        if isinstance(doc, Answer):
            return _reply(doc)
        return _reply(await platform.decide(me, doc))
