"""One identity per table: who is live on the bus under a table id.

Every running studio link answers requests on ``tablesim.<table_id>.live``
(core NATS, not stored) with who it is: host, process id, journal file and
since when. A table about to start (``tablesim.studio.attach``) and every
link on connecting ask that subject first; an answer from anyone else means
another process runs under the same table id, and this one refuses (at
start) or publishes nothing (a link that raced another at start).

A link subscribes before it asks, so of two processes that start at the
same moment at least one hears the other (the later question finds the
earlier subscription). Its own question carries its nonce, and a link never
answers its own.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import socket
import time
from datetime import datetime, timezone
from typing import Any

import nats

from tablesim.studio import wire

#: how long a question waits for an answer (no responders come back at once)
ASK_TIMEOUT = 1.0


def live_subject(table_id: str) -> str:
    return f"tablesim.{table_id}.live"


def identity(table_id: str, journal_path: str) -> dict[str, Any]:
    """Who this process is, as it answers (no secret: names a process and a file)."""
    return {"table_id": table_id, "host": socket.gethostname(), "pid": os.getpid(),
            "journal": os.path.abspath(journal_path),
            "since": datetime.fromtimestamp(time.time(), timezone.utc).isoformat(timespec="seconds")}


def describe(other: dict[str, Any]) -> str:
    """``pid 123 on host h, journal /x/F3-01.journal.sqlite, since ...`` (what the refusal names)."""
    def text(key: str) -> str:
        return str(other.get(key, "?"))[:200]

    return f"pid {text('pid')} on host {text('host')}, journal {text('journal')}, since {text('since')}"


class Presence:
    """The answering side, on a link's connection."""

    def __init__(self, table_id: str, journal_path: str) -> None:
        self.table_id = table_id
        self.nonce = secrets.token_hex(8)
        self.me = identity(table_id, journal_path)

    async def answer(self, nc) -> None:
        async def on_ask(msg) -> None:
            try:
                asked = json.loads(msg.data or b"{}")
            except ValueError:
                asked = {}
            if not msg.reply or (isinstance(asked, dict) and asked.get("nonce") == self.nonce):
                return  # nobody to answer, or our own question
            await nc.publish(msg.reply, wire.canonical({**self.me, "nonce": self.nonce}))

        await nc.subscribe(live_subject(self.table_id), cb=on_ask)


async def ask(nc, table_id: str, nonce: str = "") -> dict[str, Any] | None:
    """Another process live under ``table_id`` (its identity), or None."""
    try:
        reply = await nc.request(live_subject(table_id), wire.canonical({"nonce": nonce}), timeout=ASK_TIMEOUT)
    except (nats.errors.NoRespondersError, nats.errors.TimeoutError, asyncio.TimeoutError):
        return None
    try:
        other = json.loads(reply.data)
    except ValueError:
        return {"pid": "?", "host": "?", "journal": "?", "since": "?"}
    return other if isinstance(other, dict) else {}
