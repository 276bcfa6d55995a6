"""The wallet client's HTTP/1.1 (``tablesim.wallet.http``) against small
real servers on a socket: answers by length or chunked, connections kept
and reused, a kept connection the server closed found stale (nothing read:
safe to send again at once), a server that says nothing within the timeout
or closes half-way is a ``TransportError`` (the outcome unknown)."""

from __future__ import annotations

import asyncio

import pytest

from tablesim.wallet.http import Pool, StaleConnection, TransportError


async def _server(answer, *, close_after: int | None = None):
    """A server answering each request with ``answer(n, body)`` bytes (None: say nothing; b"": close);
    closing each connection after ``close_after`` answers. Returns (server, base URL, log)."""
    log: list[tuple[int, bytes, bytes]] = []  # (connection, request head, body)
    conns = iter(range(1, 10**6))

    async def serve(reader, writer):
        conn, answered = next(conns), 0
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = int([h for h in head.split(b"\r\n") if h.lower().startswith(b"content-length:")][0]
                             .split(b":")[1])
                body = await reader.readexactly(length)
                log.append((conn, head, body))
                out = answer(len(log), body)
                if out is None:
                    await asyncio.sleep(30)
                if out == b"":  # read, and closed unanswered
                    break
                writer.write(out)
                await writer.drain()
                answered += 1
                if close_after is not None and answered >= close_after:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    return server, f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/wallet/v1", log


def _ok(body: bytes, *extra: bytes) -> bytes:
    return b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\nx-wallet-signature: s\r\n%s\r\n%s" % (
        len(body), b"".join(e + b"\r\n" for e in extra), body)


def test_answers_by_length_and_chunked_over_one_kept_connection():
    async def go():
        def answer(n, body):
            if n == 2:
                return b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"
            return _ok(b'{"echo":' + body + b"}")

        server, url, log = await _server(answer)
        pool = Pool(url)
        try:
            first = await pool.post("/debit", b'{"a":1}', {"X-Wallet-Nonce": "n1", "Content-Type": "x"})
            second = await pool.post("/credit", b"{}", {})
            third = await pool.post("/cancel", b"[]", {})
        finally:
            await pool.aclose()
            server.close()
        assert (first.status, first.content, first.headers["x-wallet-signature"]) == (200, b'{"echo":{"a":1}}', "s")
        assert second.content == b"abcde"
        assert third.content == b'{"echo":[]}'
        assert [c for c, _, _ in log] == [1, 1, 1]  # one connection for all three
        head = log[0][1].decode()
        assert head.startswith("POST /wallet/v1/debit HTTP/1.1\r\n")
        assert "x-wallet-nonce: n1" in head.lower() and head.lower().count("content-type") == 1

    asyncio.run(go())


def test_a_server_that_closes_its_connections_gets_new_ones():
    async def go():
        server, url, log = await _server(lambda n, body: _ok(b"%d" % n), close_after=1)
        pool = Pool(url)
        try:
            assert (await pool.post("/a", b"{}", {})).content == b"1"
            await asyncio.sleep(0.1)  # (the server has closed the kept connection: seen, not used)
            assert (await pool.post("/b", b"{}", {})).content == b"2"
        finally:
            await pool.aclose()
            server.close()
        assert [c for c, _, _ in log] == [1, 2]

    asyncio.run(go())


def test_a_kept_connection_closed_as_the_request_came_is_stale():
    async def go():
        # the second request on the connection is read, then the connection closed unanswered
        # (a server ending a kept connection just as the request arrives)
        server, url, log = await _server(lambda n, body: _ok(b"1") if n == 1 else b"")
        pool = Pool(url)
        try:
            await pool.post("/a", b"{}", {})
            with pytest.raises(StaleConnection):  # nothing of an answer read: the caller may send again at once
                await pool.post("/b", b"{}", {})
        finally:
            await pool.aclose()
            server.close()

    asyncio.run(go())


def test_connection_close_is_honoured():
    async def go():
        server, url, log = await _server(lambda n, body: _ok(b"x", b"connection: close"))
        pool = Pool(url)
        try:
            await pool.post("/a", b"{}", {})
            await pool.post("/a", b"{}", {})  # on a new connection, not a stale one
        finally:
            await pool.aclose()
            server.close()
        assert [c for c, _, _ in log] == [1, 2]

    asyncio.run(go())


def test_no_answer_in_time_or_half_an_answer_is_a_transport_error():
    async def go():
        server, url, _ = await _server(lambda n, body: None)
        pool = Pool(url, timeout=0.3)
        try:
            with pytest.raises(TransportError, match="no answer within 0.3 s"):
                await pool.post("/a", b"{}", {})
        finally:
            await pool.aclose()
            server.close()
        half, url, _ = await _server(lambda n, body: b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nabc",
                                     close_after=1)
        pool = Pool(url)
        try:
            with pytest.raises(TransportError, match="closed before the whole answer") as got:
                await pool.post("/a", b"{}", {})
            assert not isinstance(got.value, StaleConnection)  # (a fresh connection: the wallet may have acted)
        finally:
            await pool.aclose()
            half.close()
        with pytest.raises(TransportError, match="cannot connect"):
            await Pool("http://127.0.0.1:9/x").post("/a", b"{}", {})

    asyncio.run(go())


def test_a_url_that_is_no_http_url_is_refused():
    for bad in ("ftp://host/x", "http://", "wallet:8070"):
        with pytest.raises(ValueError, match="is not an http:// or https:// URL"):
            Pool(bad)
