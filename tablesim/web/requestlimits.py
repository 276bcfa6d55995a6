"""How deep a player's JSON may nest, checked before it is parsed.

Python's JSON parser recurses once per level: a body of a few kilobytes of
``[[[[...`` raises ``RecursionError`` inside it (a 500 on a route, a socket
whose reader dies), and a document a little less deep would do the same to
whatever walks it next. No call of the platform nests more than a few
levels, so anything deeper than ``MAX_DEPTH`` is refused as bad input."""

from __future__ import annotations

#: the deepest nesting of objects and arrays a player's JSON may have
MAX_DEPTH = 32

_OPEN, _CLOSE, _QUOTE, _BACKSLASH = b"[{", b"]}", 34, 92


class TooDeep(ValueError):
    def __init__(self) -> None:
        super().__init__(f"the JSON nests deeper than {MAX_DEPTH} levels")


def check(data: bytes | str) -> None:
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
