"""``get`` and ``post`` of one shared HTTP client, for the tests' plain
calls (``httpx.get``/``httpx.post`` build a client each: its TLS context
costs about 50 ms of CPU, every time, even for ``http://``; a polling loop
at 10 a second spent half a core on it). No connection is kept between
calls, so a server restarted between two calls is met afresh, as before."""

from __future__ import annotations

import httpx

_CLIENT = httpx.Client(limits=httpx.Limits(max_keepalive_connections=0))


def get(url: str, **kw) -> httpx.Response:
    return _CLIENT.get(url, **kw)


def post(url: str, **kw) -> httpx.Response:
    return _CLIENT.post(url, **kw)
