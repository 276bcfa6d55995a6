"""``POST /api/bets`` answered before the web framework's routing.

A bet is the one request a platform gets thousands of a second. Through
FastAPI's middleware, routing and endpoint layers it cost the platform more
CPU than the bet's own work (measured: about a quarter of the process's
time under load), so this plain ASGI layer, added in front of the
application's routes, answers it itself: the session from the bearer
token, the body (at most ``MAX_BODY`` bytes, JSON, amounts never read as
floats), then ``Desk.place`` and its answer, byte for byte what the route
answered. The players' socket (``/ws``) is handed to its handler here too:
through the framework's layers each open socket was a chain of about twenty
awaiting calls, kept for the socket's life, that the garbage collector
walked at every full collection (with 5,000 players, those pauses held the
platform 0.5 s and more). Every other request goes on to the application.
"""

from __future__ import annotations

import json

from tablesim.web import requestlimits
from tablesim.platform.betdesk import Answer, refused
from tablesim.platform.sessions import BadSession

PATH = "/api/bets"
#: the players' socket
SOCKET_PATH = "/ws"
#: the largest request body a player's call may have
MAX_BODY = requestlimits.MAX_BODY


def too_large() -> Answer:
    return refused(413, "too_large", f"the body is over {MAX_BODY} bytes")


def closing(answer: Answer) -> list[tuple[bytes, bytes]]:
    """The headers that end the connection after ``answer`` when its body
    was left unread (413): the server stops reading it, instead of taking
    the rest to keep the connection for another request."""
    return [(b"connection", b"close")] if answer.http == 413 else []


async def read_body(scope, receive) -> bytes | Answer | None:
    """A request's body, never more than ``MAX_BODY`` bytes of it held: over
    that it is refused (413) from its ``Content-Length``, before a byte is
    read, or as soon as the bytes received pass it (no length, or a false
    one), and the rest is never read. None: the client left first."""
    for name, value in scope["headers"]:
        if name == b"content-length" and value.isdigit() and int(value) > MAX_BODY:
            return too_large()
    try:
        return await requestlimits.read_bounded(receive, MAX_BODY)
    except requestlimits.TooLarge:
        return too_large()


def read_json(body: bytes) -> dict | Answer:
    """A player's JSON object (``body`` as ``read_body`` kept it), or the refusal."""
    try:
        requestlimits.check_depth(body)
        doc = json.loads(body, parse_float=_Float)
    except requestlimits.TooDeep as exc:
        return refused(400, "bad_input", f"the body is refused: {exc}")
    except ValueError:
        return refused(400, "bad_input", "the body is not JSON")
    if not isinstance(doc, dict):
        return refused(400, "bad_input", "the body is a JSON object")
    return doc


#: an answer's JSON, the encoder made once (``json.dumps`` with arguments makes one a bet)
_encode = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode


class _Float:
    """A JSON number with a point: kept apart, so an amount given as one is refused, never read as a float."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


class FastBets:
    def __init__(self, app, platform) -> None:
        self.app = app
        self.platform = platform

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "websocket" and scope["path"] == SOCKET_PATH and self.platform.player_socket is not None:
            await self.platform.player_socket(scope, receive, send)
            return
        if scope["type"] != "http" or scope["path"] != PATH or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        answer = await self._answer(scope, receive)
        if answer is None:  # (the client went away before its body came: nothing was done)
            return
        body = (answer.text if answer.text is not None else _encode(answer.body)).encode()
        await send({"type": "http.response.start", "status": answer.http, "headers": [
            (b"content-length", str(len(body)).encode()), (b"content-type", b"application/json"), *closing(answer)]})
        await send({"type": "http.response.body", "body": body})

    async def _answer(self, scope, receive) -> Answer | None:
        auth = ""
        for name, value in scope["headers"]:
            if name == b"authorization":
                auth = value.decode("latin-1")
        try:
            me = self.platform.sessions.read(auth[7:] if auth.lower().startswith("bearer ") else None)
        except BadSession as exc:
            return refused(401, "no_session", str(exc))
        body = await read_body(scope, receive)
        if body is None or isinstance(body, Answer):
            return body
        doc = read_json(body)
        if isinstance(doc, Answer):
            return doc
        return await self.platform.place(me, doc)
