"""The reference wallet's HTTP side: ``POST /wallet/v1/<call>``.

``GET /metrics`` answers the wallet's Prometheus metrics (``metrics``: counts
and times, unsigned, naming no player). Each request passes, in this order: a bounded body, its signature (before
anything else is believed), its timestamp within the replay window, its
nonce not seen within the window, its JSON fields; only then does the
ledger see it. Every answer, a refusal too, is signed over the nonce of the
request it answers.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import gc
import socket
import time

import structlog

from tablecore.listen import listening_socket
from tablecore.metrics import asgi_answer
from tablecore.threadnames import name_this_thread
from tablesim.wallet import batch
from tablesim.wallet import protocol as p
from tablesim.wallet import signing
from tablesim.wallet.ledger import Ledger, LedgerUnavailable
from tablesim.wallet.metrics import WalletMetrics

log = structlog.get_logger("tablesim.wallet")

CALLS = ("authenticate", "balance", "debit", "credit", "cancel", "transactions", "batch")
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
    """The writes of every request in flight, committed together: one fsync
    for a group instead of one per write (the commit's fsync, not the work,
    sets a ledger's pace).

    Each write runs in a savepoint after the ones before it, so a group is
    the same as its writes one by one in their order, and no answer leaves
    before the group's commit returned. The statements run on the event
    loop's thread, one group after the other; only what waits on the disk
    or on another process (the ``COMMIT`` with its fsync, and ``BEGIN
    IMMEDIATE`` when another process holds the write lock) runs on a
    thread of its own. Running the
    statements on another thread would hand the GIL back and forth at each
    of a write's dozen statements, each handover waiting for the loop's
    thread to let go: measured, that made the wallet four times slower.
    While a group commits, the next one gathers."""

    MAX_GROUP = 128

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self.pending: list[tuple[list, asyncio.Future]] = []  # (a request's writes: one, or a batch's)
        self.disk = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="wallet-disk",
                                                          initializer=name_this_thread)
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task | None = None

    async def write(self, record) -> tuple[p.Status, bytes]:
        (result,) = await self.write_all([record])
        if isinstance(result, BaseException):
            raise result
        return result

    async def write_all(self, records: list) -> list:
        """The writes of one request (a batch's), all in the same group:
        each one's (status, answer) or ``Refused``; on a failed commit each
        is the exception (none was kept)."""
        future = asyncio.get_running_loop().create_future()
        self.pending.append((records, future))
        if self._task is None or self._task.done():
            self._wake = asyncio.Event()
            self._task = asyncio.create_task(self._run(), name="wallet-writer")
        self._wake.set()
        return await future

    def close(self) -> None:
        """After the loop stopped: a group left open (the loop stopped
        between its statements and its commit) is rolled back, unanswered."""
        self.disk.shutdown(wait=True)
        self.ledger.rollback()

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self.pending:
                group, size = [], 0  # (a request's writes are never split: a batch commits whole)
                while self.pending and (not group or size + len(self.pending[0][0]) <= self.MAX_GROUP):
                    group.append(self.pending.pop(0))
                    size += len(group[-1][0])
                results = await self._commit(loop, [record for records, _ in group for record in records])
                at = 0
                for records, future in group:
                    if not future.done():  # (the request's connection went away: its writes stand, kept)
                        future.set_result(results[at:at + len(records)])
                    at += len(records)

    async def _commit(self, loop, records: list) -> list:
        try:
            if not self.ledger.begin_at_once():  # (the lock is nearly always free: no thread hop then)
                await loop.run_in_executor(self.disk, self.ledger.begin)
            try:
                results = self.ledger.write_group(records)
                await loop.run_in_executor(self.disk, self.ledger.commit)
            except BaseException:
                await loop.run_in_executor(self.disk, self.ledger.rollback)
                raise
        except LedgerUnavailable as exc:  # rolled back: nothing kept, the same ids may come again
            return [exc] * len(records)
        except Exception as exc:  # a bug: rolled back too; the writer lives on for the next group
            log.error("wallet_write_failed", error=f"{type(exc).__name__}: {exc}")
            return [exc] * len(records)
        return results


class Wallet:
    """The checks before the ledger, and the ledger's calls (writes through
    ``writer`` when there is one, else one by one)."""

    def __init__(self, ledger: Ledger, secret: bytes, window: float = 30.0, writer: GroupWriter | None = None) -> None:
        self.ledger = ledger
        self.writer = writer
        self._secret = secret
        self.window = window
        self.nonces = Nonces(window)
        self.metrics = WalletMetrics(CALLS)  # ``GET /metrics`` (tablesim.wallet.metrics)

    def check(self, path: str, headers, body: bytes) -> str:
        """The request's nonce, once its signature, time and nonce hold
        (``headers``: names in lower case)."""
        ts, nonce, sig = (headers.get(h.lower(), "") for h in (signing.TIMESTAMP, signing.NONCE, signing.SIGNATURE))
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
        if name == "batch":
            request_id, items = batch.parse(p.decode(body))
            results = self.ledger.write_many([i for i in items if not isinstance(i, p.Refused)])
            answer = batch.encode(request_id, batch.answers_of(items, results))
            self.metrics.batch_writes(items, results)
            return p.Status.OK, answer
        record = p.parse(name, p.decode(body))
        if name in WRITES:
            return self._counted(name, self.ledger.write(record))
        return getattr(self.ledger, name)(record)

    async def call_async(self, name: str, body: bytes) -> tuple[p.Status, bytes]:
        if self.writer is None or name not in WRITES + ("batch",):
            return self.call(name, body)
        if name == "batch":
            request_id, items = batch.parse(p.decode(body))
            records = [i for i in items if not isinstance(i, p.Refused)]
            results = await self.writer.write_all(records) if records else []
            answer = batch.encode(request_id, batch.answers_of(items, results))
            self.metrics.batch_writes(items, results)
            return p.Status.OK, answer
        return self._counted(name, await self.writer.write(p.parse(name, p.decode(body))))

    def _counted(self, kind: str, answered: tuple[p.Status, bytes]) -> tuple[p.Status, bytes]:
        """A write alone, counted by its status."""
        self.metrics.writes.labels(kind, answered[0].value).inc()
        return answered

    def sign(self, nonce: str, body: bytes) -> tuple[str, str]:
        """An answer's timestamp and signature headers."""
        ts = str(int(time.time()))
        return ts, signing.sign(self._secret, signing.answer_message(ts, nonce, body))


async def _body(receive, limit: int = p.MAX_BODY) -> bytes:
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ConnectionError("the client went away")
        size += len(message.get("body", b""))
        if size > limit:
            raise p.Refused(p.Status.INVALID_REQUEST, f"the body is over {limit} bytes")
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks)


def create_app(wallet: Wallet):
    """The wallet as a bare ASGI application: one route, no framework in
    between (a framework's routing and dependency machinery cost more CPU
    per request than the signature, the JSON and the ledger together)."""

    async def app(scope, receive, send) -> None:
        if scope["type"] != "http":
            return
        if scope["path"] == "/metrics" and scope["method"] == "GET":  # (unsigned: counts and times only)
            await asgi_answer(wallet.metrics.registry, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        started = time.perf_counter()
        try:
            status, answer, nonce = await _answer(wallet, scope, receive, headers)
        except ConnectionError:  # gone before its body came: nothing was done
            return
        name = scope["path"].removeprefix(p.PREFIX + "/")
        wallet.metrics.request(name if name in CALLS else "unknown", status, time.perf_counter() - started)
        ts, sig = wallet.sign(nonce, answer)
        await send({"type": "http.response.start", "status": status.http, "headers": [
            (b"content-type", b"application/json"), (b"content-length", str(len(answer)).encode()),
            (signing.TIMESTAMP.lower().encode(), ts.encode()), (signing.SIGNATURE.lower().encode(), sig.encode())]})
        await send({"type": "http.response.body", "body": answer})

    return app


async def _answer(wallet: Wallet, scope, receive, headers: dict) -> tuple[p.Status, bytes, str]:
    """(status, answer, the nonce it is signed over) of one request."""
    nonce = headers.get(signing.NONCE.lower(), "")
    nonce = nonce if signing.NONCE_FORMAT.fullmatch(nonce) else ""
    path, name = scope["path"], scope["path"].removeprefix(p.PREFIX + "/")
    try:
        if scope["method"] != "POST" or not path.startswith(p.PREFIX + "/") or name not in CALLS:
            raise p.Refused(p.Status.INVALID_REQUEST, f"no call {name!r} (calls: POST {p.PREFIX}/"
                            f"{{{', '.join(CALLS)}}})")
        body = await _body(receive, batch.MAX_BODY if name == "batch" else p.MAX_BODY)
        nonce = wallet.check(path, headers, body)
        status, answer = await wallet.call_async(name, body)
    except p.Refused as refusal:
        status, answer = refusal.status, p.error_answer(refusal.status, refusal.message)
    except LedgerUnavailable as exc:  # busy, disk: rolled back, nothing kept; the same id may come again
        log.warning("wallet_storage_error", call=name, error=str(exc))
        status, answer = p.Status.TEMPORARY_ERROR, p.error_answer(p.Status.TEMPORARY_ERROR,
                                                                    "the ledger is unavailable: retry")
    if status is not p.Status.OK:
        log.info("wallet_refused", call=name, status=status.value)
    return status, answer, nonce


def bind(host: str, port: int) -> socket.socket:
    """A listening socket (port 0: a free one); a busy port is one line."""
    return listening_socket(host, port, backlog=512)  # (many platform connections at once)


def serve(wallet: Wallet, sock: socket.socket, log_level: str = "warning", faults=None) -> None:
    """``faults``: the fault modes of a fault run (tablesim/wallet/faults.py), else none."""
    import uvicorn

    app = create_app(wallet)
    if faults is not None and faults.any:
        from tablesim.wallet.faults import wrap

        app = wrap(app, wallet, faults)
    config = uvicorn.Config(app, log_level=log_level, access_log=False, log_config=None,
                            timeout_graceful_shutdown=2, lifespan="off", interface="asgi3",
                            proxy_headers=False, server_header=False, date_header=False)
    # (what start-up built out of the collector's sight: its full collections would walk it again and again)
    gc.collect()
    gc.freeze()
    uvicorn.Server(config).run(sockets=[sock])
