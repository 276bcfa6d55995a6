"""``WS /ws``: the live stream. A client says where it is (``since``, in the
query or as its first message), gets the hello (the table), what it missed,
then what the stream's fan-out queues for it (``tablesim.server.fanout``)."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from tablesim.web.requestlimits import origin_allowed
from tablesim.server.bodyerrors import loads
from tablesim.server.runner import TableRunner
from tablesim.server.fanout import select
from tablesim.server.stream import wire_text
from tablesim.web.wsframes import SCOPE_KEY, Wire

#: how long a new WebSocket client may take to send ``{"since": N}`` first
FIRST_MESSAGE_WAIT = 0.3
#: how long a dropped client's close may take before it is left to the server
CLOSE_WAIT = 1.0
PONG = wire_text({"type": "pong"})

router = APIRouter()


@router.websocket("/ws")
async def stream(ws: WebSocket) -> None:
    run: TableRunner = ws.app.state.runner
    if not origin_allowed(ws.headers.get("origin"), ws.headers.get("host"), ws.app.state.origins):
        # a page of another site (or a sandboxed one, "null") in a browser on the table PC:
        # refused before the handshake completes (HTTP 403)
        await ws.close(code=1008, reason="this origin may not read the table's stream")
        return
    await ws.accept()
    # consoles and boards get the bets coalesced; a client that needs every bet asks (bets=each)
    sub, current = run.stream.subscribe(asyncio.get_running_loop(), each=ws.query_params.get("bets") == "each")
    reader: asyncio.Task | None = None
    try:
        since, reset = await _where(ws, run, current)
        await ws.send({"type": "websocket.send", "text": hello_text(run, current, reset)})
        if since is not None:
            await _replay(ws, run, sub, since, current)
        reader = asyncio.create_task(_read(ws, sub))
        await _follow(ws, sub, reader, current, current, ws.query_params.get("batch") == "1")
    except (WebSocketDisconnect, RuntimeError, OSError):
        pass  # the client went away
    finally:
        run.stream.unsubscribe(sub)
        if reader is not None:
            reader.cancel()


async def _where(ws: WebSocket, run: TableRunner, current: int) -> tuple[int | None, bool]:
    """Where the client is: (the seq to replay from or None, whether it must reset)."""
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
        (client_stream is not None and client_stream != run.stream.stream_id) or since > current
    )
    if reset:
        since = None
    snap_seq = run.view.cache.get("seq", current)
    if since is None and snap_seq < current:
        # The snapshot lags the stream (it is rebuilt at most every
        # SNAPSHOT_EVERY while bets stream in): the events since follow.
        since = snap_seq
    return since, reset


async def _replay(ws: WebSocket, run: TableRunner, sub, since: int, current: int) -> None:
    backlog, complete = await run.backlog(since, current)
    if not complete:
        await ws.send_json({"type": "gap", "since": since, "first": backlog[0]["seq"] if backlog else None})
    for msg in backlog:
        if sub.wants(msg):
            await ws.send_json({**msg, "replay": True})


_table_text: tuple[Any, str] = (None, "null")  # (the snapshot, its text): kept, so never mistaken for another


def hello_text(run: TableRunner, current: int, reset: bool) -> str:
    """The ``hello`` message; the table in it serialised once per snapshot,
    not once per client (hundreds connect at once after a restart)."""
    global _table_text
    snap = run.view.cache
    if _table_text[0] is not snap:
        _table_text = (snap, wire_text(snap))
    head = wire_text({"type": "hello", "stream_id": run.stream.stream_id, "seq": current, "reset": reset})
    return head[:-1] + ',"table":' + _table_text[1] + "}"


def _since(value: Any) -> int | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        n = int(value)
    except (TypeError, ValueError):
        return None
    return n if n >= 0 else None


async def _follow(ws: WebSocket, sub, reader: asyncio.Task, last: int, current: int, batch: bool) -> None:
    """Send the client what the stream queues for it until it goes away or
    falls too far behind (its queue filled): then it is closed (1013), never
    waited for; a send stuck on a client that does not read is cancelled.
    On the table's own server the log's wake-ups write the client's frames
    (``Subscription.attach``); elsewhere a writer task of its own does."""
    raw = ws.scope.get("extensions", {}).get(SCOPE_KEY)
    if raw is not None:
        sub.attach(Wire(raw), batch, last, current)
        writer = None
    else:
        writer = asyncio.create_task(_write(ws, sub, last, current, batch))
    dropped = asyncio.create_task(sub.dropped.wait())
    try:
        await asyncio.wait({t for t in (writer, reader, dropped) if t is not None},
                           return_when=asyncio.FIRST_COMPLETED)
    finally:
        if writer is not None:
            writer.cancel()
        dropped.cancel()
    if writer is not None and writer.done() and not writer.cancelled():
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
    log = sub.log
    while True:
        changed = log.changed
        items = sub.take()
        if items is None:
            if sub.dropped.is_set():
                return
            await changed.wait()
            continue
        texts, last = select(items, last, current)
        if not batch:
            for text in texts:
                await send({"type": "websocket.send", "text": text})
        elif texts:
            await send({"type": "websocket.send", "text": "[" + ",".join(texts) + "]"})


async def _read(ws: WebSocket, sub) -> None:
    """Take what the client sends: pings are answered, the rest ignored; returns on disconnect."""
    while True:
        msg = await ws.receive()
        if msg["type"] == "websocket.disconnect":
            return
        text = msg.get("text")
        if text and '"ping"' in text:
            sub.push(PONG)
