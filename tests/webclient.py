"""The tests' HTTP clients, all on one TLS context.

``httpx.get``/``httpx.post`` and every ``httpx.Client()`` build a TLS
context of their own, loading the whole certificate bundle: about 22 ms of
CPU each time on this machine, even for ``http://``. The suite made about
a thousand of them (polling loops, a client per served table), some 25
CPU-seconds of a run. Here the context is made once per process.

``get`` and ``post`` go through one shared client that keeps no connection
between calls, so a server restarted between two calls is met afresh.
"""

from __future__ import annotations

import ssl

import httpx

TLS = ssl.create_default_context()  # (what httpx would make, once)


def client(**kw) -> httpx.Client:
    """An ``httpx.Client(**kw)`` on the shared TLS context."""
    return httpx.Client(verify=TLS, **kw)


_CLIENT = client(limits=httpx.Limits(max_keepalive_connections=0))


def get(url: str, **kw) -> httpx.Response:
    return _CLIENT.get(url, **kw)


def post(url: str, **kw) -> httpx.Response:
    return _CLIENT.post(url, **kw)
