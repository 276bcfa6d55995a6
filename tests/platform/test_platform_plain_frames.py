"""The players' socket reads its plain text messages straight off the bytes
(``RawFrames.read_plain``): whatever a client sends, however the network
cuts it, the app is handed the same messages in the same order as through
the protocol library alone, and a frame the protocol refuses (too big, not
UTF-8, unmasked, a bad opcode) closes the connection with the same code."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import struct

import pytest
from hypothesis import given, settings, strategies as st
from uvicorn.config import Config
from uvicorn.server import ServerState

from examples import examples
from tablesim.web.wsframes import SCOPE_KEY, RawFrames

MAX = 1024


class _Transport(asyncio.Transport):
    def __init__(self) -> None:
        super().__init__()
        self.out, self.paused, self.closing = bytearray(), False, False

    def write(self, data) -> None:
        self.out += data

    def close(self) -> None:
        self.closing = True

    def abort(self) -> None:
        self.closing = True

    def is_closing(self) -> bool:
        return self.closing

    def can_write_eof(self) -> bool:
        return False

    def pause_reading(self) -> None:
        self.paused = True

    def resume_reading(self) -> None:
        self.paused = False

    def get_write_buffer_size(self) -> int:
        return 0

    def get_extra_info(self, name, default=None):
        return {"sockname": ("127.0.0.1", 80), "peername": ("127.0.0.1", 5000)}.get(name, default)


def _frame(opcode: int, payload: bytes, fin: bool = True, masked: bool = True, rsv: int = 0,
           mask: bytes | None = None) -> bytes:
    """A client's frame (masked with a mask of its own unless told not to)."""
    head = bytes([(0x80 if fin else 0) | rsv | opcode])
    n = len(payload)
    bit = 0x80 if masked else 0
    head += bytes([bit | n]) if n < 126 else bytes([bit | 126]) + struct.pack("!H", n) if n < 1 << 16 \
        else bytes([bit | 127]) + struct.pack("!Q", n)
    if not masked:
        return head + payload
    mask = os.urandom(4) if mask is None else mask
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


async def _opened(app, ping: float | None = None) -> tuple[RawFrames, "_Transport"]:
    """A connection of the platform's server (``RawFrames``) to ``app``, its
    handshake done: (the protocol, the transport it writes to); ``ping``: its
    keepalive ping interval (None: no keepalive)."""
    config = Config(app=app, ws=RawFrames, ws_per_message_deflate=False, ws_max_size=MAX, lifespan="off",
                    ws_ping_interval=ping, ws_ping_timeout=5.0)
    config.load()
    proto = RawFrames(config=config, server_state=ServerState(), app_state={})
    transport = _Transport()
    proto.connection_made(transport)
    key = base64.b64encode(os.urandom(16)).decode()
    proto.data_received((f"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                         f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    for _ in range(5):
        await asyncio.sleep(0)
    return proto, transport


def _run(chunks: list[bytes], fast: bool, heed_pause: bool = True) -> tuple[list, bytes, int]:
    """What the app was handed (texts and bytes, in order), what the server
    wrote after its handshake, and how many texts came off the bytes (with
    ``heed_pause`` False, all the bytes come in one turn of the loop, while
    the protocol paused reading: a transport's read already under way)."""
    async def go():
        got: list = []
        plain = [0]
        raised: list[str] = []  # (apart: the app's messages come later through the protocol's queue)

        def take(text: str) -> None:
            plain[0] += 1
            got.append(text)

        async def app(scope, receive, send):
            await receive()
            await send({"type": "websocket.accept"})
            if fast:
                scope["extensions"][SCOPE_KEY].on_text = take
            while True:
                message = await receive()
                if message["type"] == "websocket.disconnect":
                    got.append(("closed", message.get("code")))
                    return
                got.append(message.get("text", message.get("bytes")))

        proto, transport = await _opened(app)
        shaken = len(transport.out)
        for chunk in chunks:
            while transport.paused and heed_pause:  # (the protocol's flow control: read again once the app took its messages)
                await asyncio.sleep(0)
            if transport.closing:
                break
            try:
                proto.data_received(chunk)
            except Exception as exc:  # (the protocol's own failures: the same either way)
                raised.append(type(exc).__name__)
                break
            for _ in range(3 if heed_pause else 0):
                await asyncio.sleep(0)
        proto.connection_lost(None)
        for _ in range(5):
            await asyncio.sleep(0)
        if proto.close_timer is not None:
            proto.close_timer.cancel()
        return got + raised, bytes(transport.out[shaken:]), plain[0]

    return asyncio.run(go())


_TEXT = st.text(max_size=40).map(lambda t: ("text", t.encode()))
_ODD = st.one_of(
    st.binary(max_size=20).map(lambda b: ("binary", b)),
    st.binary(max_size=8).map(lambda b: ("ping", b)),
    st.binary(max_size=8).map(lambda b: ("pong", b)),
    st.tuples(st.text(max_size=10), st.text(max_size=10)).map(lambda p: ("fragments", p)),
    st.just(("text", b"\xff\xfe")),  # not UTF-8: 1007
    st.just(("text", b"x" * (MAX + 1))),  # too big: 1009
    st.just(("text", "é".encode() * 100)),  # a length in two bytes
    st.just(("unmasked", b"{}")),  # a protocol error: 1002
    st.just(("rsv", b"{}")),
    st.just(("opcode", b"")),
    st.just(("close", struct.pack("!H", 1000))),
)


def _bytes(message: tuple) -> bytes:
    kind, body = message
    if kind == "text":
        return _frame(0x1, body)
    if kind == "binary":
        return _frame(0x2, body)
    if kind == "ping":
        return _frame(0x9, body)
    if kind == "pong":
        return _frame(0xA, body)
    if kind == "fragments":
        return _frame(0x1, body[0].encode(), fin=False) + _frame(0x0, body[1].encode())
    if kind == "unmasked":
        return _frame(0x1, body, masked=False)
    if kind == "rsv":
        return _frame(0x1, body, rsv=0x40)
    if kind == "opcode":
        return _frame(0x3, body)
    return _frame(0x8, body)


def _cut(stream: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(stream) + 1) for c in cuts} | {0, len(stream)})
    return [stream[a:b] for a, b in zip(points, points[1:]) if b > a]


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(st.one_of(_TEXT, _TEXT, _TEXT, _ODD), max_size=12), st.lists(st.integers(0, 10_000), max_size=6),
       st.booleans(), st.booleans())
def test_the_app_gets_the_same_messages_in_the_same_order_however_the_bytes_come(messages, cuts, by_message,
                                                                                 heed_pause):
    frames = [_bytes(m) for m in messages]
    chunks = frames if by_message else _cut(b"".join(frames), cuts)
    assert _run(chunks, True, heed_pause)[:2] == _run(chunks, False, heed_pause)[:2]


def test_whole_text_frames_are_read_off_the_bytes_the_rest_by_the_protocol():
    texts = ['{"type":"bet","id":1}', "é" * 70, ""]  # (a length in one byte, in two, none)
    stream = b"".join(_frame(0x1, t.encode()) for t in texts)
    got, _, plain = _run([stream], fast=True)
    assert got == [*texts, ("closed", 1005)] and plain == 3
    # a ping between them goes to the protocol (a pong back), and the frames after it are read here again
    ping = _frame(0x9, b"hi")
    got, out, plain = _run([_frame(0x1, b"a") + ping, _frame(0x1, b"b")], fast=True)
    assert got == ["a", "b", ("closed", 1005)] and plain == 2 and out == b"\x8a\x02hi"
    # a frame cut by the network: the protocol reads it whole, then the next are read here again
    cut = _frame(0x1, b"cut in two")
    got, _, plain = _run([cut[:5], cut[5:], _frame(0x1, b"c")], fast=True)
    assert got == ["cut in two", "c", ("closed", 1005)] and plain == 1
    # the rest of a cut frame is never read as frames of its own, whatever its bytes look like
    inner = _frame(0x1, b"not a message")
    outer = _frame(0x2, inner, mask=bytes(4))
    got, _, plain = _run([outer[:6], outer[6:], _frame(0x1, b"d")], fast=True)
    assert got == [inner, "d", ("closed", 1005)] and plain == 1


def test_a_frame_the_protocol_refuses_closes_as_it_did_and_what_came_with_it_is_taken_as_it_was():
    """Not UTF-8: the messages before it are taken, then the close (1007); a
    frame the protocol's parser refuses (too big, unmasked): the protocol drops
    what came in the same read, so nothing of it is taken here either."""
    for bad, code, taken in ((_frame(0x1, b"\xff"), 1007, ["ok"]), (_frame(0x1, b"x" * (MAX + 1)), 1009, []),
                             (_frame(0x1, b"{}", masked=False), 1002, [])):
        stream = _frame(0x1, b"ok") + bad + _frame(0x1, b"after")
        got, out, plain = _run([stream], fast=True)
        assert got == [*taken, ("closed", code)] and plain == len(taken)
        assert out[:1] == b"\x88" and struct.unpack("!H", out[2:4])[0] == code, (code, out)
        assert (got, out) == _run([stream], fast=False)[:2]
        # the message read before, in a read of its own, is taken in any case
        got, out, plain = _run([_frame(0x1, b"ok"), bad + _frame(0x1, b"after")], fast=True)
        assert got == ["ok", ("closed", code)] and plain == 1


def test_an_app_failing_on_a_message_closes_the_connection_and_takes_no_more():
    async def go():
        seen: list[str] = []

        def take(text: str) -> None:
            seen.append(text)
            raise RuntimeError("a bug")

        async def app(scope, receive, send):
            await receive()
            await send({"type": "websocket.accept"})
            scope["extensions"][SCOPE_KEY].on_text = take
            while (await receive())["type"] != "websocket.disconnect":
                pass

        proto, transport = await _opened(app)
        proto.data_received(_frame(0x1, b"one") + _frame(0x1, b"two"))
        assert seen == ["one"] and transport.closing and proto.on_text is None
        proto.connection_lost(None)
        await asyncio.sleep(0)

    asyncio.run(go())


def test_the_players_socket_answers_a_message_off_the_connection_as_one_through_the_protocol():
    """``PlayerSocket`` reads the plain messages off its connection while it
    reads (and no longer after): each answered as the same message read
    through the protocol is, the socket's rate counting both."""
    from tablesim.platform.player.socket import BURST, PlayerSocket

    messages = ["not json", '{"type": "nope", "id": 3}', '[1]', '{"type": "bet", "id": true}', "x" * 5000] * 7

    class _Hub:
        def __init__(self) -> None:
            self.sent: list[str] = []

        def _send(self, client, text: str) -> None:
            self.sent.append(text)

    class _Raw:
        on_text = None

    class _Client:
        gone = None

        def __init__(self) -> None:
            self.wire = type("W", (), {"protocol": _Raw()})()

    class _Ws:
        def __init__(self, texts: list[str]) -> None:
            self.queue: asyncio.Queue = asyncio.Queue()
            for t in texts:
                self.queue.put_nowait({"type": "websocket.receive", "text": t})

        async def receive(self) -> dict:
            return await self.queue.get()

    async def through(plain: bool) -> tuple[list[str], _Raw]:
        hub = _Hub()
        ws = _Ws([] if plain else messages)
        sock = PlayerSocket(ws, None, hub)
        sock.client = _Client()
        raw = sock.client.wire.protocol
        reading = asyncio.ensure_future(sock._read())
        await asyncio.sleep(0)
        if plain:
            assert raw.on_text == sock._take_plain
            for t in messages:
                raw.on_text(t)
        ws.queue.put_nowait({"type": "websocket.disconnect"})
        await reading
        assert raw.on_text is None
        return hub.sent, raw

    fast, slow = asyncio.run(through(True))[0], asyncio.run(through(False))[0]
    assert fast == slow and len(fast) == len(messages)
    assert sum('"rate_limited"' in t for t in fast) == len(messages) - BURST


@given(st.one_of(st.text(max_size=30), st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8).map(json.dumps)), st.sampled_from(["", " ", "x", "}", "{}", "\n"]), st.booleans())
def test_a_message_is_parsed_as_json_loads_parses_it(text, more, before):
    """``parsed``: the same document as ``json.loads``, or a ValueError as it raises one."""
    from tablesim.platform.player.socket import parsed

    text = more + text if before else text + more
    try:
        expected = json.loads(text)
    except ValueError:
        with pytest.raises(ValueError):
            parsed(text)
        return
    assert parsed(text) == expected and type(parsed(text)) is type(expected)


def test_the_keepalive_ping_goes_only_to_a_peer_silent_for_its_interval():
    """A page that sends anything (its own latency pings) is not pinged by the
    server; once it falls silent for the interval, it is (and, without a pong,
    closed by the protocol's timeout, as before)."""
    def pings(out: bytes) -> int:  # (the server's frames are unmasked: a ping of 4 bytes, the only frame it sends)
        return out.count(b"\x89\x04")

    async def go():
        taken: list[str] = []

        async def app(scope, receive, send):
            await receive()
            await send({"type": "websocket.accept"})
            scope["extensions"][SCOPE_KEY].on_text = taken.append
            while (await receive())["type"] != "websocket.disconnect":
                pass

        proto, transport = await _opened(app, ping=0.2)
        shaken = len(transport.out)
        for _ in range(16):  # (0.8 s of a page talking every 0.05 s: four intervals)
            proto.data_received(_frame(0x1, b'{"type":"ping","t":1}'))
            await asyncio.sleep(0.05)
        talking = pings(bytes(transport.out[shaken:]))
        await asyncio.sleep(0.4)  # (silent for two intervals: pinged once, its pong awaited)
        silent = pings(bytes(transport.out[shaken:]))
        proto.connection_lost(None)
        return talking, silent, len(taken)

    talking, silent, taken = asyncio.run(go())
    assert taken == 16
    assert talking == 0
    assert silent == 1
