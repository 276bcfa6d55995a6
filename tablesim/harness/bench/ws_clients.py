"""Many console/board WebSocket clients of a served table, in a process of
their own (``python -m tablesim.harness.bench.ws_clients HOST PORT N
READING [batch]``): ``READING`` of them read everything (``batch``: asking
for ``batch=1``), the rest complete the handshake and never read (a small
receive buffer). It prints ``ready`` once
all are connected, then, when its standard input closes, one JSON line:
how many clients the table closed and how many bytes the readers got.

Plain asyncio streams (the standard library): the clients must cost little
next to the table they load."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import socket
import sys


async def _connect(host: str, port: int, reading: bool, batch: bool) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    sock = socket.socket()
    if not reading:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, (host, port))
    reader, writer = await asyncio.open_connection(sock=sock, limit=1 << 24)
    key = base64.b64encode(os.urandom(16)).decode()
    query = "since=&batch=1" if batch else "since="
    writer.write((f"GET /ws?{query} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                  f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    head = await reader.readuntil(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 101"):
        raise RuntimeError(f"the table refused a WebSocket: {head[:80]!r}")
    return reader, writer


async def _read_all(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, counts: dict) -> None:
    """Read (and discard) until the table closes the connection, answering
    its pings as a browser does (the table closes a client that does not).
    (``writer`` is held here: a stream writer garbage-collected closes its
    connection.)"""
    while True:
        try:
            head = await reader.readexactly(2)
            size = head[1] & 0x7F
            if size >= 126:
                size = int.from_bytes(await reader.readexactly(2 if size == 126 else 8), "big")
            payload = await reader.readexactly(size)
        except (asyncio.IncompleteReadError, ConnectionError):
            counts["closed"] += 1
            return
        counts["bytes"] += 2 + size
        counts["frames"] += 1
        if head[0] & 0x0F == 0x9:  # a ping: the pong carries its payload, masked (a client's frame)
            mask = os.urandom(4)
            writer.write(bytes([0x8A, 0x80 | len(payload)]) + mask
                         + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))
        elif head[0] & 0x0F == 0x8:  # the table closed the connection
            counts["closed"] += 1
            return


async def _silent_until_closed(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, counts: dict,
                               stop: asyncio.Event) -> None:
    """Never read; at the end, find out whether the table closed the connection."""
    await stop.wait()
    try:
        while await asyncio.wait_for(reader.read(1 << 16), 0.5):
            pass
        counts["dropped"] += 1  # the table ended it
    except (asyncio.TimeoutError, ConnectionError):
        if isinstance(reader.exception(), ConnectionError):
            counts["dropped"] += 1
    writer.close()


async def main(host: str, port: int, n: int, reading: int, batch: bool = False) -> None:
    counts = {"bytes": 0, "frames": 0, "closed": 0, "dropped": 0}
    stop = asyncio.Event()
    tasks = []
    for i in range(n):
        r, w = await _connect(host, port, i < reading, batch)
        tasks.append(asyncio.create_task(_read_all(r, w, counts) if i < reading
                                         else _silent_until_closed(r, w, counts, stop)))
    print("ready", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    stop.set()
    await asyncio.wait(tasks[reading:], timeout=30)
    for t in tasks:
        t.cancel()
    print(json.dumps({"reading": reading, "silent": n - reading, "readers_closed": counts["closed"],
                      "silent_dropped": counts["dropped"], "bytes_read": counts["bytes"],
                      "frames_read": counts["frames"]}), flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5:] == ["batch"]))
