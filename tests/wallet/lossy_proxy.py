"""A lossy network in front of a wallet, as its own process, for the client's
tests: ``python lossy_proxy.py TARGET_PORT [--drop N] [--fail N] [--hold S] [--only CALL]``.

``--drop N``: every Nth request (the 1st, the N+1th, ...) is forwarded and
its answer thrown away, the connection closed: the wallet committed, the
answer was lost. ``--fail N``: every Nth request is not forwarded; an
unsigned 503 comes back instead (a load balancer with no wallet behind
it). ``--hold S``: the first request is held S seconds before it is
forwarded (a request queued behind others on a loaded machine). ``--only CALL``: only requests to that call count. ``--match TEXT``: only
requests whose bytes hold TEXT count (a batch of debits, not of cancels). Prints ``proxy:
http://127.0.0.1:PORT`` when it listens.
"""

from __future__ import annotations

import argparse
import asyncio

FAIL = b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 11\r\nconnection: close\r\n\r\nunavailable"


async def read_message(reader: asyncio.StreamReader) -> bytes | None:
    """One HTTP/1.1 message framed by Content-Length (all this test needs)."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, ConnectionError):
        return None
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    try:
        return head + await reader.readexactly(length)
    except (asyncio.IncompleteReadError, ConnectionError):
        return None


class Proxy:
    def __init__(self, target: int, drop: int, fail: int, only: str | None, hold: float = 0.0,
                 match: str | None = None) -> None:
        self.target, self.drop, self.fail, self.only, self.hold = target, drop, fail, only, hold
        self.match = match.encode() if match else None
        self.count = 0

    def fault(self, request: bytes) -> str | None:
        path = request.split(b" ", 2)[1].decode()
        if self.only and not path.endswith("/" + self.only):
            return None
        if self.match is not None and self.match not in request:
            return None
        self.count += 1
        if self.fail and self.count % self.fail == 1 % self.fail:
            return "fail"
        if self.drop and self.count % self.drop == 1 % self.drop:
            return "drop"
        if self.hold and self.count == 1:
            return "hold"
        return None

    async def handle(self, reader, writer) -> None:
        upstream = None
        try:
            while (request := await read_message(reader)) is not None:
                fault = self.fault(request)
                if fault == "fail":
                    writer.write(FAIL)
                    await writer.drain()
                    return
                if fault == "hold":
                    await asyncio.sleep(self.hold)
                if upstream is None:
                    upstream = await asyncio.open_connection("127.0.0.1", self.target)
                upstream[1].write(request)
                await upstream[1].drain()
                answer = await read_message(upstream[0])
                if answer is None or fault == "drop":
                    return  # the answer is lost: the client sees the connection close
                writer.write(answer)
                await writer.drain()
        finally:
            writer.close()
            if upstream is not None:
                upstream[1].close()


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("target", type=int)
    parser.add_argument("--drop", type=int, default=0)
    parser.add_argument("--fail", type=int, default=0)
    parser.add_argument("--hold", type=float, default=0.0)
    parser.add_argument("--only")
    parser.add_argument("--match")
    args = parser.parse_args()
    proxy = Proxy(args.target, args.drop, args.fail, args.only, args.hold, args.match)
    server = await asyncio.start_server(proxy.handle, "127.0.0.1", 0)
    print(f"proxy: http://127.0.0.1:{server.sockets[0].getsockname()[1]}/wallet/v1", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
