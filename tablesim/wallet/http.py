"""The wallet client's HTTP/1.1: POSTs over kept-alive connections.

The platform sends the wallet hundreds of requests a second (batches of
debits, credits, cancels). A general HTTP client (httpx over httpcore and
anyio) cost the platform more CPU per exchange than everything else it did
for the batch, so the client's one kind of exchange is done here: a POST
with a body and its length, the answer parsed by ``httptools`` (the C parser
uvicorn uses; lengths and chunked bodies alike), the connection kept for
the next request unless either side says ``close``. HTTPS goes through the
standard library's TLS with the system's certificates.

Every failure to get a whole answer (no connection, a reset, a timeout, a
malformed answer) is ``TransportError``: the caller does not know whether
the wallet acted, and sends the same transaction again (re-signed). A kept
connection the server had already closed before our request reached it is
``StaleConnection``: nothing was read, so the caller may send again at once.
"""

from __future__ import annotations

import asyncio
import ssl
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

import httptools

#: idle connections kept (more are closed once answered)
KEEP = 64
#: a kept connection idle this long is closed rather than used (servers close theirs after about 5 s)
IDLE = 4.0
#: the largest answer read (bytes)
MAX_ANSWER = 64 * 1024 * 1024


#: the headers this client writes itself (a caller's are left out)
_OWN = ("host", "content-type", "content-length", "transfer-encoding", "connection")


class TransportError(Exception):
    """No whole answer: the request may or may not have been acted on."""


class StaleConnection(TransportError):
    """A kept connection was found closed before any of its answer came."""


@dataclass(frozen=True, slots=True)
class Answer:
    status: int
    headers: dict[str, str]  # names in lower case (the last of a repeated name)
    content: bytes


class _Conn:
    __slots__ = ("reader", "writer", "used_at")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.used_at = time.monotonic()

    def close(self) -> None:
        try:
            self.writer.close()
        except Exception:  # (already gone)
            pass


class _Parse:
    """httptools' callbacks for one answer."""

    def __init__(self) -> None:
        self.headers: dict[str, str] = {}
        self.body: list[bytes] = []
        self.size = 0
        self.done = False
        self.keep = False
        self.parser: httptools.HttpResponseParser | None = None

    def on_header(self, name: bytes, value: bytes) -> None:
        self.headers[name.decode("latin-1").lower()] = value.decode("latin-1")

    def on_body(self, body: bytes) -> None:
        self.size += len(body)
        if self.size > MAX_ANSWER:
            raise TransportError(f"an answer over {MAX_ANSWER} bytes")
        self.body.append(body)

    def on_message_complete(self) -> None:
        self.done = True
        # (asked here: once the parser has moved past the answer it says no)
        self.keep = self.parser is not None and self.parser.should_keep_alive()


class Pool:
    """POSTs to one server (``base``: its URL, with the path the requests' paths are under)."""

    def __init__(self, base: str, *, timeout: float = 5.0) -> None:
        parts = urlsplit(base)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"{base!r} is not an http:// or https:// URL")
        self.host = parts.hostname
        self.port = parts.port or (443 if parts.scheme == "https" else 80)
        self.tls = ssl.create_default_context() if parts.scheme == "https" else None
        self.prefix = parts.path.rstrip("/")
        default = (parts.scheme == "https" and self.port == 443) or (parts.scheme == "http" and self.port == 80)
        self.host_header = (parts.netloc.rsplit("@", 1)[-1] if not default else self.host).encode("idna")
        self.timeout = timeout
        self._idle: list[_Conn] = []
        self._closed = False

    async def post(self, path: str, body: bytes, headers: dict[str, str]) -> Answer:
        """The answer to one POST (``path`` under the base URL's), within the timeout."""
        if self._closed:
            raise TransportError("the client is closed")
        conn, reused = self._take(), True
        try:
            async with asyncio.timeout(self.timeout):
                if conn is None:
                    conn, reused = await self._open(), False
                answer, keep = await self._exchange(conn, path, body, headers, reused)
        except TimeoutError:
            if conn is not None:
                conn.close()
            raise TransportError(f"no answer within {self.timeout:g} s") from None
        except BaseException:
            if conn is not None:
                conn.close()
            raise
        if keep and not self._closed and len(self._idle) < KEEP:
            conn.used_at = time.monotonic()
            self._idle.append(conn)
        else:
            conn.close()
        return answer

    def _take(self) -> _Conn | None:
        now = time.monotonic()
        while self._idle:
            conn = self._idle.pop()
            if now - conn.used_at < IDLE and not conn.writer.is_closing() and not conn.reader.at_eof():
                return conn
            conn.close()
        return None

    async def _open(self) -> _Conn:
        try:
            reader, writer = await asyncio.open_connection(self.host, self.port, ssl=self.tls, limit=1 << 20)
        except (OSError, ssl.SSLError) as exc:
            raise TransportError(f"cannot connect to {self.host}:{self.port}: {exc}") from None
        return _Conn(reader, writer)

    async def _exchange(self, conn: _Conn, path: str, body: bytes, headers: dict[str, str],
                        reused: bool) -> tuple[Answer, bool]:
        head = [b"POST ", (self.prefix + path).encode(), b" HTTP/1.1\r\nhost: ", self.host_header,
                b"\r\ncontent-type: application/json\r\ncontent-length: ", str(len(body)).encode(), b"\r\n"]
        for name, value in headers.items():
            if name.lower() in _OWN:
                continue
            head += [name.encode("latin-1"), b": ", value.encode("latin-1"), b"\r\n"]
        head += [b"\r\n", body]
        got = _Parse()
        parser = got.parser = httptools.HttpResponseParser(got)
        seen = 0
        try:
            conn.writer.write(b"".join(head))
            while not got.done:
                data = await conn.reader.read(1 << 16)
                if not data:
                    if reused and not seen:
                        raise StaleConnection("the kept connection was closed by the server")
                    raise TransportError("the connection closed before the whole answer")
                seen += len(data)
                parser.feed_data(data)
        except (ConnectionError, OSError, ssl.SSLError) as exc:
            if reused and not seen:
                raise StaleConnection(f"the kept connection failed: {exc}") from None
            raise TransportError(f"{type(exc).__name__}: {exc}") from None
        except httptools.HttpParserError as exc:
            raise TransportError(f"not an HTTP answer: {exc}") from None
        keep = got.keep and got.headers.get("connection", "").lower() != "close"
        return Answer(parser.get_status_code(), got.headers, b"".join(got.body)), keep

    async def aclose(self) -> None:
        self._closed = True
        idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()
