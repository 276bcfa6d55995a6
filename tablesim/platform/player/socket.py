"""The player's WebSocket (``/ws``): see docs/player.md for the protocol.

The session goes in the first message (``{"type": "hello", "session":
TOKEN}``), never in the URL (URLs end up in logs). Then the player watches a
table, bets, decides, pings, asks their recall and balance; the hub pushes
the table's events. Every request is the session's player's own; a message
too large, not JSON, of an unknown type or over the socket's rate is
refused in one line and nothing is placed.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid

from fastapi import WebSocket, WebSocketDisconnect

from tablesim.web import requestlimits
from tablesim.platform.betdesk import Answer, refused
from tablesim.platform.player.hub import Client, Hub, dumps
from tablesim.platform.sessions import BadSession, Session
from tablesim.web.wsframes import SCOPE_KEY, Wire
from tablesim.wallet.client import WalletError

#: the largest message a player may send (bytes)
MAX_MESSAGE = 4096
#: the largest frame the platform reads at all (its server's ``ws_max_size``): a message up to
#: this is read and answered "too_large"; a bigger one closes the socket (1009) at its header,
#: before it is held (anyone may open the socket: the session is its first message)
MAX_FRAME = 16 * MAX_MESSAGE
#: messages a socket may send: a burst of BURST, then RATE a second
RATE, BURST = 10.0, 30
#: requests of one socket waiting for an answer at once (bets, decisions)
IN_FLIGHT = 8
#: seconds to say hello before the socket is closed
HELLO_WAIT = 10.0


class Bucket:
    """A token bucket: a burst, then a steady rate."""

    def __init__(self, rate: float = RATE, burst: int = BURST) -> None:
        self.rate, self.burst = rate, burst
        self.tokens, self.at = float(burst), time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


def answer(request_id, body: dict) -> dict:
    return {"type": "answer", "id": request_id, **body}


#: how the page's latency ping begins (its ``t`` and the closing brace follow)
_PING = '{"type":"ping","t":'
#: the JSON parser's own scanner (``json.loads`` without its wrapping: a message is one object)
_scan = json.decoder.JSONDecoder().scan_once


def parsed(text: str):
    """``json.loads(text)``: a text that is an object from its first character
    to its last (every player's message) read by the scanner at once, anything
    else (whitespace about it, more after it, no object) by ``json.loads``."""
    if text[:1] == "{" and text[-1:] == "}":
        try:
            doc, end = _scan(text, 0)
        except StopIteration:
            doc, end = None, -1
        if end == len(text):
            return doc
    return json.loads(text)


def read(text: str) -> dict | Answer:
    """A player's message, or why it is refused."""
    raw = text.encode()  # (once: its size, then its depth)
    if len(raw) > MAX_MESSAGE:
        return refused(400, "too_large", f"a message is at most {MAX_MESSAGE} bytes")
    try:
        requestlimits.check_depth(raw)
        doc = parsed(text)
    except requestlimits.TooDeep as exc:
        return refused(400, "bad_input", f"the message is refused: {exc}")
    except ValueError:
        return refused(400, "bad_input", "a message is a JSON object")
    if not isinstance(doc, dict) or not isinstance(doc.get("type"), str):
        return refused(400, "bad_input", "a message is a JSON object with a \"type\"")
    rid = doc.get("id")
    if rid is not None and (isinstance(rid, bool) or not isinstance(rid, (int, str)) or len(str(rid)) > 40):
        return refused(400, "bad_input", "id: a number or a text of up to 40 characters")
    return doc


class PlayerSocket:
    def __init__(self, ws: WebSocket, platform, hub: Hub) -> None:
        self.ws, self.platform, self.hub = ws, platform, hub
        self.bucket = Bucket()
        self.pending: set[asyncio.Task] = set()
        self.betting = 0  # bets of this socket waiting for their answers (each a callback, no task)
        self.client: Client | None = None
        self.session: Session | None = None

    async def run(self) -> None:
        await self.ws.accept()
        try:
            hello = await self._hello()
            if hello is None:
                return
            raw = self.ws.scope.get("extensions", {}).get(SCOPE_KEY)  # (the platform's own server: frames written at once)
            self.client = self.hub.join(self.session.player, Wire(raw) if raw is not None else None)
            writer = asyncio.ensure_future(self._write()) if self.client.queue is not None else None
            try:
                self.hub._send(self.client, dumps(await self._welcome(hello)))
                await self._read()
            finally:
                self.hub.leave(self.client)
                if writer is not None:
                    writer.cancel()
                for task in self.pending:
                    task.cancel()
        except WebSocketDisconnect:
            pass

    async def _hello(self) -> dict | None:
        try:
            text = await asyncio.wait_for(self.ws.receive_text(), HELLO_WAIT)
        except (asyncio.TimeoutError, KeyError):
            await self.ws.close(4401)
            return None
        doc = read(text)
        why = None
        if isinstance(doc, Answer) or doc.get("type") != "hello":
            why = refused(401, "no_session", "the first message is {\"type\": \"hello\", \"session\": SESSION}")
        else:
            try:
                self.session = self.platform.sessions.read(doc.get("session") if isinstance(doc.get("session"), str)
                                                           else None)
            except BadSession as exc:
                why = refused(401, "no_session", str(exc))
        if why is not None:
            await self.ws.send_text(dumps(answer(None, why.body)))
            await self.ws.close(4401)
            return None
        return doc

    async def _welcome(self, hello: dict) -> dict:
        player = self.session.player
        seen = hello.get("seen") if isinstance(hello.get("seen"), int) else None
        recall = self.hub.recall.closed(player)
        missed = [r["round_id"] for r in recall if seen is not None and r["seq"] > seen]
        return {"type": "welcome", "player": player, "currency": self.session.currency,
                "unit": format(self.session.unit, "f"), "balance": await self._balance(), "now": int(time.time() * 1000),
                "recall": recall, "missed": missed, "max_message": MAX_MESSAGE, "rate": RATE,
                **{"tables": self.hub.lobby()["tables"]}}

    async def _balance(self) -> str | None:
        me = self.session
        try:
            account = await self.platform.wallet.balance(me.player, me.currency, request_id="b-" + uuid.uuid4().hex)
        except WalletError:
            return None
        return format(account.balance, "f") if account.ok else None

    async def _write(self) -> None:
        """The queue's texts through the ASGI server (when it gives no raw frames)."""
        try:
            while (text := await self.client.queue.get()) is not None:
                await self.ws.send_text(text)
            await self.ws.close(4008 if self.client.gone == "too_slow" else 1000)
        except Exception:  # (the socket went away: the reader sees it too)
            pass

    async def _read(self) -> None:
        # (on the platform's own server, the plain text messages are read as they come off the
        # connection, each taken at once; the rest, and a disconnect, still come here)
        raw = self.client.wire.protocol if self.client.wire is not None else None
        if raw is not None:
            raw.on_text = self._take_plain
        try:
            while not self.client.gone:
                message = await self.ws.receive()
                if message["type"] == "websocket.disconnect":
                    return
                self._take(message.get("text"))
        finally:
            if raw is not None:
                raw.on_text = None

    def _take_plain(self, text: str) -> None:
        if not self.client.gone:  # (as the reader's loop: nothing more is taken once the hub let it go)
            self._take(text)

    def _take(self, text: str | None) -> None:
        """A message of the player's (None: not a text), taken in the turn it came."""
        if not self.bucket.take():
            self._say(None, refused(429, "rate_limited", f"more than {RATE:g} messages a second: "
                                    "this one was not taken").body)
            return
        if text is not None and text.startswith(_PING):
            digits = text[len(_PING):-1]
            # (the page's latency ping, every few seconds from each page: a thousand a second at
            # 5,000 players, answered without the parser and the encoder, the same bytes as ``_handle``'s)
            if text[-1:] == "}" and 0 < len(digits) <= 20 and digits.isascii() and digits.isdigit() \
                    and (digits[0] != "0" or digits == "0"):
                self.hub._send(self.client, '{"type":"pong","t":%s,"now":%d}' % (digits, int(time.time() * 1000)))
                return
        doc = read(text) if text is not None else refused(400, "bad_input", "messages are text (JSON)")
        if isinstance(doc, Answer):
            self._say(None, doc.body)
            return
        self._handle(doc)

    def _say(self, request_id, body: dict) -> None:
        self.hub._send(self.client, dumps(answer(request_id, body)))

    def _handle(self, doc: dict) -> None:
        kind, rid = doc["type"], doc.get("id")
        rest = {k: v for k, v in doc.items() if k not in ("type", "id")}
        if kind == "ping":
            self.hub._send(self.client, dumps({"type": "pong", "t": rest.get("t") if isinstance(rest.get("t"), (int, float))
                                   else None, "now": int(time.time() * 1000)}))
        elif kind == "watch":
            table = rest.get("table")
            snap = self.hub.watch(self.client, table if isinstance(table, str) else None)
            self.hub._send(self.client, dumps(snap if snap is not None else self.hub.lobby()))
        elif kind == "recall":
            self.hub._send(self.client, dumps({"type": "recall", "rounds": self.hub.recall.closed(self.session.player)}))
        elif kind in ("bet", "decide", "balance"):
            self._request(kind, rid, rest)
        else:
            self._say(rid, refused(400, "bad_input", f"type: {kind[:40]!r} is not a message of this socket "
                                   "(ping, watch, bet, decide, recall, balance)").body)

    def _request(self, kind: str, rid, rest: dict) -> None:
        if len(self.pending) + self.betting >= IN_FLIGHT:
            self._say(rid, refused(429, "busy", f"{IN_FLIGHT} requests of this socket are waiting for their "
                                   "answers: this one was not taken").body)
            return
        if kind == "bet":  # (thousands a second: answered by the desk's batch, in its turn, without a task)
            self.betting += 1
            taken: list[str] = []  # (the bet's id, once the desk took it: its answer ends its wait)
            bet_id = self.platform.desk.submit(self.session, rest, lambda got: self._bet_answer(rid, got, taken))
            if bet_id is not None and self.client is not None:
                taken.append(bet_id)
                self.client.expects(bet_id)
            return
        task = asyncio.ensure_future(self._answer(kind, rid, rest))
        self.pending.add(task)
        task.add_done_callback(self.pending.discard)

    def _bet_answer(self, rid, got: Answer, taken: list[str] | tuple = ()) -> None:
        self.betting -= 1
        owed = None
        if taken and self.client is not None:
            owed = self.client.answered(taken[0], got.body.get("status") == "placed")
        if got.text is not None and len(got.text) > 2:  # (its JSON made already: the answer's own head put before it)
            shown = str(rid) if type(rid) is int else dumps(rid)  # (a number's JSON is its digits: no encoder)
            self.hub._send(self.client, f'{{"type":"answer","id":{shown},"kind":"bet",{got.text[1:]}')
        else:
            self._say(rid, {"kind": "bet", **got.body})
        if owed is not None:  # (its record came first and held it; the answer did not say so)
            self.hub.send_mine(self.client, *owed)

    async def _answer(self, kind: str, rid, rest: dict) -> None:
        if kind == "decide":
            got = await self.platform.decide(self.session, rest)
            if got.body.get("ok") and self.client is not None:
                # the player's other pages (a second tab) are told the decision taken: else they
                # would still offer it, and take the round's close for a fold on time-out
                told = dumps(answer(None, {"kind": kind, **got.body}))
                for other in list(self.hub.by_player.get(self.client.player, ())):
                    if other is not self.client:
                        self.hub._send(other, told)
        else:
            balance = await self._balance()
            got = Answer(200, {"ok": True, "balance": balance, "currency": self.session.currency}) \
                if balance is not None else refused(503, "wallet_unavailable", "the wallet did not answer")
        self._say(rid, {"kind": kind, **got.body})
