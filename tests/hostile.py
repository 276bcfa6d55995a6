"""Hostile requests in the tests: a process's memory, and a 100 MB body sent
to a route (declared, or chunked with no length)."""

from __future__ import annotations

import socket

HUNDRED_MB = 100 * 1024 * 1024


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith("VmRSS:"))


def send_big(url: str, path: str, *, token: str | None, declare: bool) -> tuple[int, int]:
    """POST a 100 MB body (declared with Content-Length, or chunked); returns
    (status, bytes the server let us send before it answered)."""
    host, port = url.removeprefix("http://").split(":")
    head = [f"POST {path} HTTP/1.1", f"Host: {host}", "Content-Type: application/json"]
    if token:
        head.append(f"Authorization: Bearer {token}")
    head.append(f"Content-Length: {HUNDRED_MB}" if declare else "Transfer-Encoding: chunked")
    chunk = b"[" + b"1," * (512 * 1024)
    sent = 0
    with socket.create_connection((host, int(port)), timeout=10) as conn:
        conn.sendall(("\r\n".join(head) + "\r\n\r\n").encode())
        try:
            while sent < HUNDRED_MB:
                conn.sendall(chunk if declare else b"%x\r\n%s\r\n" % (len(chunk), chunk))
                sent += len(chunk)
        except OSError:  # the server answered and closed: it stopped reading
            pass
        conn.settimeout(10)
        reply = b""
        try:
            while b"\r\n" not in reply:
                data = conn.recv(4096)
                if not data:
                    break
                reply += data
        except OSError:
            pass
    status = int(reply.split(b" ", 2)[1]) if reply.startswith(b"HTTP/1.1 ") else 0
    return status, sent
