"""The limits a request meets before its body is read or parsed, the same
for the table's API and the platform's: a body is held up to a bound and
no further (both), and a player's JSON is refused when it nests deeper
than any call takes (the platform's; the table's API refuses what its
parser cannot read, ``tablesim.server.bodyerrors``).

Python's JSON parser recurses once per level: a body of a few kilobytes of
``[[[[...`` raises ``RecursionError`` inside it (a 500 on a route, a socket
whose reader dies), and a document a little less deep would do the same to
whatever walks it next. No call nests more than a few levels, so anything
deeper than ``MAX_DEPTH`` is refused as bad input."""

from __future__ import annotations

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
