"""A listening TCP socket for a served process (the table, the studio, the
reference wallet): bound before anything else starts, so a busy port is one
line and nothing else happened."""

from __future__ import annotations

import socket

from tablecore.errors import InputError


def listening_socket(host: str, port: int, *, backlog: int) -> socket.socket:
    """Listening on ``host``:``port`` (port 0: a free one), non-blocking;
    ``backlog``: connections the kernel holds before they are accepted."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise InputError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    sock.listen(backlog)
    sock.setblocking(False)
    return sock
