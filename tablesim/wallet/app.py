"""The reference wallet's HTTP side: ``POST /wallet/v1/<call>``.

Each request passes, in this order: a bounded body, its signature (before
anything else is believed), its timestamp within the replay window, its
nonce not seen within the window, its JSON fields; only then does the
ledger see it. Every answer, a refusal too, is signed over the nonce of the
request it answers.
"""

from __future__ import annotations

import asyncio
import collections
import queue
import socket
import sqlite3
import threading
import time

import structlog
from fastapi import FastAPI, Request
from fastapi.responses import Response

from tablecore.errors import InputError
from tablesim.wallet import protocol as p
from tablesim.wallet import signing
from tablesim.wallet.ledger import Ledger

log = structlog.get_logger("tablesim.wallet")

CALLS = ("authenticate", "balance", "debit", "credit", "cancel", "transactions")
WRITES = ("debit", "credit", "cancel")


class Nonces:
    """The nonces seen within the replay window (older ones are forgotten:
    their requests are stale anyway)."""

    def __init__(self, window: float) -> None:
        self.window = window
        self.seen: set[str] = set()
        self.order: collections.deque[tuple[float, str]] = collections.deque()

    def first(self, nonce: str, now: float) -> bool:
        while self.order and self.order[0][0] < now:
            self.seen.discard(self.order.popleft()[1])
        if nonce in self.seen:
            return False
        self.seen.add(nonce)
        self.order.append((now + 2 * self.window, nonce))
        return True


class GroupWriter:
    """The writes of every request in flight, committed together by one
    thread on its own connection: one fsync for a group instead of one per
    write (the commit's fsync, not the work, sets a ledger's pace). Each
    write runs in a savepoint after the ones before it, so the group is the
    same as the writes one by one in their order; no answer leaves before
    the group's commit."""

    MAX_GROUP = 256

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self.queue: queue.SimpleQueue = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._run, name="wallet-writer", daemon=True)
        self.thread.start()

    async def write(self, record) -> tuple[p.Status, bytes]:
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self.queue.put((record, loop, future))
        return await future

    def close(self) -> None:
        self.queue.put(None)
        self.thread.join(10)

    def _run(self) -> None:
        while (item := self.queue.get()) is not None:
            group = [item]
            while len(group) < self.MAX_GROUP:
                try:
                    nxt = self.queue.get_nowait()
                except queue.Empty:
                    break
                if nxt is None:
                    self.queue.put(None)  # stop after this group
                    break
                group.append(nxt)
            try:
                results = self.ledger.write_many([record for record, _, _ in group])
            except sqlite3.Error as exc:  # rolled back: nothing kept, the same ids may come again
                results = [exc] * len(group)
            except Exception as exc:  # a bug: rolled back too; the writer lives on for the next group
                log.error("wallet_write_failed", error=f"{type(exc).__name__}: {exc}")
                results = [exc] * len(group)
            for (_, loop, future), result in zip(group, results):
                loop.call_soon_threadsafe(_deliver, future, result)


def _deliver(future: asyncio.Future, result) -> None:
    if future.done():  # the request's connection went away; its write stands and is kept
        return
    if isinstance(result, BaseException):
        future.set_exception(result)
    else:
        future.set_result(result)


class Wallet:
    """The checks before the ledger, and the ledger's calls (writes through
    ``writer`` when there is one, else one by one)."""

    def __init__(self, ledger: Ledger, secret: bytes, window: float = 30.0, writer: GroupWriter | None = None) -> None:
        self.ledger = ledger
        self.writer = writer
        self._secret = secret
        self.window = window
        self.nonces = Nonces(window)

    def check(self, path: str, headers, body: bytes) -> str:
        """The request's nonce, once its signature, time and nonce hold."""
        ts, nonce, sig = (headers.get(h, "") for h in (signing.TIMESTAMP, signing.NONCE, signing.SIGNATURE))
        if not (signing.TIMESTAMP_FORMAT.fullmatch(ts) and signing.NONCE_FORMAT.fullmatch(nonce)
                and signing.SIGNATURE_FORMAT.fullmatch(sig)):
            raise p.Refused(p.Status.BAD_SIGNATURE, f"the {signing.TIMESTAMP}, {signing.NONCE} and "
                            f"{signing.SIGNATURE} headers are missing or malformed")
        if not signing.verify(self._secret, signing.request_message(ts, nonce, path, body), sig):
            raise p.Refused(p.Status.BAD_SIGNATURE, "the signature does not match the request")
        now = time.time()
        if abs(now - int(ts)) > self.window:
            raise p.Refused(p.Status.STALE_REQUEST, f"the timestamp is {int(now - int(ts))} s off "
                            f"(the window is {self.window:g} s)")
        if not self.nonces.first(nonce, now):
            raise p.Refused(p.Status.REPLAYED_REQUEST, "this request (its nonce) was seen already")
        return nonce

    def call(self, name: str, body: bytes) -> tuple[p.Status, bytes]:
        record = p.parse(name, p.decode(body))
        if name in WRITES:
            return self.ledger.write(record)
        return getattr(self.ledger, name)(record)

    async def call_async(self, name: str, body: bytes) -> tuple[p.Status, bytes]:
        if self.writer is None or name not in WRITES:
            return self.call(name, body)
        return await self.writer.write(p.parse(name, p.decode(body)))

    def sign(self, nonce: str, status: p.Status, body: bytes) -> Response:
        ts = str(int(time.time()))
        sig = signing.sign(self._secret, signing.answer_message(ts, nonce, body))
        return Response(body, status_code=status.http, media_type="application/json",
                        headers={signing.TIMESTAMP: ts, signing.SIGNATURE: sig})


async def _body(request: Request) -> bytes:
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > p.MAX_BODY:
            raise p.Refused(p.Status.INVALID_REQUEST, f"the body is over {p.MAX_BODY} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def create_app(wallet: Wallet) -> FastAPI:
    app = FastAPI(title="tablesim reference wallet", docs_url=None, redoc_url=None, openapi_url=None)

    @app.post(p.PREFIX + "/{name}")
    async def call(name: str, request: Request) -> Response:
        nonce = request.headers.get(signing.NONCE, "")
        nonce = nonce if signing.NONCE_FORMAT.fullmatch(nonce) else ""
        try:
            if name not in CALLS:
                raise p.Refused(p.Status.INVALID_REQUEST, f"no call {name!r} (calls: {', '.join(CALLS)})")
            body = await _body(request)
            nonce = wallet.check(request.url.path, request.headers, body)
            status, answer = await wallet.call_async(name, body)
        except p.Refused as refusal:
            status, answer = refusal.status, p.error_answer(refusal.status, refusal.message)
        except sqlite3.Error as exc:  # busy, disk: rolled back, nothing kept; the same id may come again
            log.warning("wallet_storage_error", call=name, error=str(exc))
            status, answer = p.Status.TEMPORARY_ERROR, p.error_answer(p.Status.TEMPORARY_ERROR,
                                                                        "the ledger is unavailable: retry")
        if status is not p.Status.OK:
            log.info("wallet_refused", call=name, status=status.value)
        return wallet.sign(nonce, status, answer)

    return app


def bind(host: str, port: int) -> socket.socket:
    """A listening socket (port 0: a free one); a busy port is one line."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise InputError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    sock.listen(512)
    sock.setblocking(False)
    return sock


def serve(wallet: Wallet, sock: socket.socket, log_level: str = "warning") -> None:
    import uvicorn

    config = uvicorn.Config(create_app(wallet), log_level=log_level, access_log=False, log_config=None,
                            timeout_graceful_shutdown=2, lifespan="off")
    uvicorn.Server(config).run(sockets=[sock])
