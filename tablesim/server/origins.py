"""Who may reach the table's app: the Host names of a server bound to the
loopback (no DNS rebinding) and the pages whose scripts may follow the stream."""

from __future__ import annotations

import ipaddress

#: the Host names a server bound to the loopback answers to (no DNS rebinding)
LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "::1", "[::1]"]


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def origin_allowed(origin: str | None, host: str | None, allowed: frozenset[str] = frozenset()) -> bool:
    """Whether a WebSocket client may connect: no Origin (not a browser), the
    table's own (the Host it asked for), or one configured (``scheme://host:port``)."""
    if origin is None:
        return True
    origin = origin.strip().lower().rstrip("/")
    if origin in allowed:
        return True
    scheme, sep, netloc = origin.partition("://")
    return bool(sep) and scheme in ("http", "https") and host is not None and netloc == host.strip().lower()
