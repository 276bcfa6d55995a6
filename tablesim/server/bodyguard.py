"""What the API checks before it reads a request body.

A request that can change the table (POST, PUT, PATCH, DELETE under
``/api/``) must carry a known operator token: without one it is refused 401
before a single byte of its body is read. Bodies are small JSON objects, so
any body over ``MAX_BODY`` bytes is refused 413, from its ``Content-Length``
when it declares one, else as soon as the bytes received pass the limit.
The body is read here (at most ``MAX_BODY`` bytes) and handed on to the
routes, which then never see more.

This is a plain ASGI middleware, so it sits before FastAPI's own parsing.
"""

from __future__ import annotations

import json
from typing import Any, Awaitable, Callable

from tablesim.server.auth import TokenStore, bearer
from tablesim.web import requestlimits

#: the largest request body the API takes (its bodies are a few hundred bytes)
MAX_BODY = requestlimits.MAX_BODY

#: routes whose bodies are legitimately larger: a batch of bets carries up to
#: ``MAX_BATCH`` bets of a few dozen bytes each
ROUTE_LIMITS = {"/api/bets/batch": 512 * 1024}

CHANGING = {"POST", "PUT", "PATCH", "DELETE"}

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict]]
Send = Callable[[dict], Awaitable[None]]


async def _answer(send: Send, status: int, body: dict, headers: list[tuple[bytes, bytes]] = ()) -> None:
    data = json.dumps(body).encode()
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(data)).encode()),
        (b"cache-control", b"no-store"), (b"connection", b"close"), *headers]})
    await send({"type": "http.response.body", "body": data})


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return value.decode("latin-1")
    return None


class BodyGuard:
    def __init__(self, app, tokens: TokenStore, max_body: int = MAX_BODY,
                 route_limits: dict[str, int] | None = None) -> None:
        self.app = app
        self.tokens = tokens
        self.max_body = max_body
        self.route_limits = ROUTE_LIMITS if route_limits is None else route_limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in CHANGING or not scope["path"].startswith("/api/"):
            await self.app(scope, receive, send)
            return
        token = bearer(_header(scope, b"authorization"))
        if token is None or self.tokens.check(token) is None:
            detail = ("an operator token is needed (Authorization: Bearer <token>)" if token is None
                      else "unknown operator token")
            await _answer(send, 401, {"error": "unauthorized", "detail": detail},
                          [(b"www-authenticate", b"Bearer")])
            return
        limit = self.route_limits.get(scope["path"], self.max_body)
        too_big = {"error": "too_large", "detail": f"the request body is over {limit} bytes"}
        declared = _header(scope, b"content-length")
        if declared is not None:
            try:
                length = int(declared)
            except ValueError:
                await _answer(send, 400, {"error": "bad_request", "detail": "Content-Length is not a number"})
                return
            if length > limit:
                await _answer(send, 413, too_big)
                return
        try:
            body = await requestlimits.read_bounded(receive, limit)
        except requestlimits.TooLarge:  # no Content-Length, or it lied: stopped reading there
            await _answer(send, 413, too_big)
            return
        if body is None:
            return
        delivered = False

        async def replay() -> dict:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()  # after the body: only a disconnect can come

        await self.app(scope, replay, send)
