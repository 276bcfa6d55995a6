"""A player's WebSocket in the tests: a real socket to a real platform
process (websockets' sync client), read until the wanted message."""

from __future__ import annotations

import json
import time

from websockets.sync.client import connect


class Player:
    def __init__(self, url: str, session: str | None, seen: int | None = None, hello: bool = True) -> None:
        self.ws = connect(url.replace("http://", "ws://") + "/ws", open_timeout=20, max_size=None)
        self.seen: list[dict] = []
        self.n = 0
        if hello:
            self.send({"type": "hello", "session": session, **({"seen": seen} if seen is not None else {})})

    def send(self, doc: dict | str) -> None:
        self.ws.send(doc if isinstance(doc, str) else json.dumps(doc))

    def wait(self, want, timeout: float = 60) -> dict:
        """The first message (since the last wait) for which ``want`` holds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            msg = json.loads(self.ws.recv(timeout=max(0.1, deadline - time.monotonic())))
            self.seen.append(msg)
            if want(msg):
                return msg
        raise AssertionError(f"never came; the last messages: {self.seen[-5:]}")

    def ask(self, kind: str, timeout: float = 60, **body) -> dict:
        """A request and its answer."""
        self.n += 1
        rid = self.n
        self.send({"type": kind, "id": rid, **body})
        return self.wait(lambda m: m["type"] == "answer" and m.get("id") == rid, timeout)

    def close(self) -> None:
        self.ws.close()
