"""The limits a request meets before its body is read or parsed: who may
reach a server bound to the loopback (its Host names: no DNS rebinding) and
whose pages' scripts may follow its stream (their Origin); a body held up
to a bound and no further (the table's API and the platform's alike); and
a player's JSON refused when it nests deeper than any call takes (the
platform's; the table's API refuses what its parser cannot read,
``tablesim.server.bodyerrors``).

Python's JSON parser recurses once per level: a body of a few kilobytes of
``[[[[...`` raises ``RecursionError`` inside it (a 500 on a route, a socket
whose reader dies), and a document a little less deep would do the same to
whatever walks it next. No call nests more than a few levels, so anything
deeper than ``MAX_DEPTH`` is refused as bad input."""

from __future__ import annotations

import ipaddress

#: the Host names a server bound to the loopback answers to (no DNS rebinding)
LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "::1", "[::1]"]
#: the largest request body a call may have (bodies are small JSON objects)
MAX_BODY = 16 * 1024
#: the deepest nesting of objects and arrays a caller's JSON may have
MAX_DEPTH = 32

_OPEN, _CLOSE, _QUOTE, _BACKSLASH = b"[{", b"]}", 34, 92


class TooDeep(ValueError):
    def __init__(self) -> None:
        super().__init__(f"the JSON nests deeper than {MAX_DEPTH} levels")


def check_depth(data: bytes | str) -> None:
    """Raise ``TooDeep`` when ``data`` opens more than ``MAX_DEPTH`` objects
    or arrays inside one another (brackets in strings do not count)."""
    raw = data.encode() if isinstance(data, str) else data
    if raw.count(b"[") + raw.count(b"{") <= MAX_DEPTH:  # (every call's own body: one C pass, no loop)
        return
    depth, in_string, escaped = 0, False, False
    for c in raw:  # (one pass whatever the text: a regular expression over strings can go quadratic)
        if in_string:
            if escaped:
                escaped = False
            elif c == _BACKSLASH:
                escaped = True
            elif c == _QUOTE:
                in_string = False
        elif c == _QUOTE:
            in_string = True
        elif c in _OPEN:
            depth += 1
            if depth > MAX_DEPTH:
                raise TooDeep()
        elif c in _CLOSE:
            depth -= 1


class TooLarge(Exception):
    """A body over its limit: refused (413), and the rest of it never read."""


async def read_bounded(receive, limit: int) -> bytes | None:
    """An ASGI request's body, never more than ``limit`` bytes of it held:
    ``TooLarge`` as soon as the bytes received pass it (no Content-Length, or
    a false one); None when the client left first."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise TooLarge(limit)
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


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
