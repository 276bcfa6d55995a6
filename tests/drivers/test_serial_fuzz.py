"""Property tests: whatever a device (or the line) sends, the driver survives,
and no card event ever comes from a bad frame.

Two levels: frames handed straight to the driver's ``on_frame`` (many
examples, no I/O), and raw bytes on a real socket into an open driver, with
a device session answering its HEL/PNG and sending a good card after each
burst of garbage to prove the driver still works.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import serial
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from drivers.events import CardRead
from drivers.tdl import Frame, LinkSession, NakReason, encode
from drivers.serial import SerialShoe, SerialWheel
from tablecore.cards import RANK_CHARS, SUITS
from test_serial_support import FAST, no_leaks  # noqa: F401 - fixture
from examples import examples

#: the raw rig's link: its test is about garbage, not about the link giving up,
#: so a heartbeat misses only after 3 s and an answer may take 2 s (at load 17 a
#: FAST link lost its heartbeats and its resends mid-example)
RAW = FAST.with_(ack_timeout=0.5, heartbeat_interval=1.0)

ADDR = 0x02
FIELD = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E, blacklist_characters="|"), max_size=12)
TYPES = st.sampled_from(["CRD", "CNT", "CUT", "EMP", "FLT", "FLC", "PWR", "IDN", "STS", "SLR", "DOR", "XYZ", "HDO", "RES"])
RANKS = st.sampled_from(list(RANK_CHARS) + ["10", "1", "Z", "", "q"])
SUIT = st.sampled_from(list(SUITS) + ["X", "", "h"])


def valid_crd(round_id: str, index: int, rank: str, suit: str, face: str = "D") -> tuple[str, ...]:
    return (round_id, str(index), rank, suit, face)


def crd_is_valid(fields: tuple[str, ...], round_id: str, expected: int) -> bool:
    if len(fields) != 5:
        return False
    r, index, rank, suit, face = fields
    rank = "T" if rank == "10" else rank
    return (
        r == round_id and index.isascii() and index.isdigit() and int(index) == expected
        and rank in tuple(RANK_CHARS) and suit in tuple(SUITS) and face in ("D", "U")
    )


crd_fields = st.tuples(
    st.sampled_from(["R1", "R2", "", "R1 "]),
    st.one_of(st.integers(0, 12).map(str), FIELD),
    RANKS,
    SUIT,
    st.sampled_from(["D", "U", "X", ""]),
)
any_frame = st.one_of(
    st.builds(lambda f, seq: Frame(ADDR, seq, "CRD", f), crd_fields, st.integers(0, 255)),
    st.builds(lambda t, f, seq: Frame(ADDR, seq, t, tuple(f)), TYPES, st.lists(FIELD, max_size=6), st.integers(0, 255)),
)


@settings(max_examples=examples(200), deadline=None)
@given(frames=st.lists(any_frame, max_size=30))
@example(frames=[Frame(ADDR, 1, "CRD", ("R1", "0", "9", "", "D"))])  # an empty suit is no suit
@example(frames=[Frame(ADDR, 1, "CRD", ("R1", "0", "10", "H", "U")), Frame(ADDR, 2, "CRD", ("R1", "1", "TH", "H", "D"))])
def test_on_frame_never_raises_and_cards_come_only_from_valid_crd(frames: list[Frame]) -> None:
    shoe = SerialShoe(None, timing=FAST)
    shoe.armed, shoe.round_id, shoe.max_cards = True, "R1", 52
    for frame in frames:
        expected = shoe._next_index
        delivered_before = dict(shoe._cards)
        verdict = shoe._on_frame(frame)
        assert verdict is None or verdict in set(NakReason)
        events = []
        while (event := shoe.next_event(0)) is not None:
            events.append(event)
        cards = [e for e in events if isinstance(e, CardRead)]
        if cards:
            assert len(cards) == 1 and verdict is None
            assert frame.type == "CRD" and crd_is_valid(frame.fields, "R1", expected)
            assert frame.fields not in delivered_before.values()
        elif frame.type == "CRD" and crd_is_valid(frame.fields, "R1", expected):
            raise AssertionError(f"a valid card was not delivered: {frame}")


@settings(max_examples=examples(150), deadline=None)
@given(frames=st.lists(
    st.builds(lambda t, f, seq: Frame(0x04, seq, t, tuple(f)),
              st.sampled_from(["SPN", "REV", "RES", "INV", "FLT", "FLC", "PWR"]),
              st.lists(st.sampled_from(["R1", "R2", "", "CW", "CCW", "1", "2", "3", "17", "4.5", "peg", "x"]), max_size=5),
              st.integers(0, 255)),
    max_size=30))
def test_wheel_driver_never_raises_and_results_only_for_the_armed_round(frames: list[Frame]) -> None:
    wheel = SerialWheel(None, timing=FAST)
    wheel.armed, wheel.round_id = True, "R1"
    for frame in frames:
        verdict = wheel._on_frame(frame)
        assert verdict is None or verdict in set(NakReason)
    while (event := wheel.next_event(0)) is not None:
        assert getattr(event, "round_id", "R1") in ("R1", "")


def test_pwr_accounting_drops_the_replayed_event_the_host_took() -> None:
    shoe = SerialShoe(None, timing=FAST)
    shoe.armed, shoe.round_id, shoe.max_cards = True, "R1", 52
    flt = ("205", "W", "low confidence on card 4")
    assert shoe._on_frame(Frame(ADDR, 7, "FLT", flt)) is None  # taken; its ACK is lost in the outage
    assert shoe._on_frame(Frame(ADDR, 0, "PWR", ("2", "06", "ARMED"))) is None  # the device saw 06 ACKed last
    shoe.health.faults.clear()  # content alone would not catch it now: only the PWR accounting can
    assert shoe._on_frame(Frame(ADDR, 1, "FLT", flt)) is None  # the replay: ACKed, not delivered
    assert shoe._on_frame(Frame(ADDR, 2, "FLT", ("205", "W", "low confidence on card 5"))) is None
    events = []
    while (e := shoe.next_event(0)) is not None:
        events.append(e)
    assert [type(e).__name__ for e in events] == ["FaultRaised", "LinkLost", "LinkRestored", "FaultRaised"]
    assert events[-1].text.endswith("card 5")


def test_pwr_with_matching_seq_replays_nothing_twice() -> None:
    shoe = SerialShoe(None, timing=FAST)
    flt = ("205", "W", "low confidence")
    shoe._on_frame(Frame(ADDR, 7, "FLT", flt))
    shoe._on_frame(Frame(ADDR, 0, "PWR", ("2", "07", "IDLE")))  # the host's last = the device's last ACKed
    shoe.health.faults.clear()
    shoe._on_frame(Frame(ADDR, 1, "FLT", flt))  # a new event with the same words: delivered
    kinds = []
    while (e := shoe.next_event(0)) is not None:
        kinds.append(type(e).__name__)
    assert kinds.count("FaultRaised") == 2


# -- raw bytes into an open driver --------------------------------------------------


class RawDevice:
    """The device end of a socket: a device LinkSession plus a raw writer for garbage."""

    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.url = "socket://127.0.0.1:%d" % self.server.getsockname()[1]
        self.port: serial.SerialBase | None = None
        self.session: LinkSession | None = None
        self.hel = threading.Event()

    def accept(self) -> None:
        sock, _ = self.server.accept()
        self.sock = sock
        # A device session over the accepted socket, through a tiny pyserial-like adapter.
        self.port = _SockPort(sock)
        self.session = LinkSession(self.port, role="device", addr=ADDR, on_frame=self.on_frame,
                                   pon_fields=lambda: ("ARMED", "0", "1"), **RAW.session_kwargs())
        self.session.start()

    def on_frame(self, frame: Frame) -> None:
        if frame.type == "HEL":
            self.hel.set()
        return None

    def close(self) -> None:
        if self.session is not None:
            self.session.close()
        self.server.close()


class _SockPort:
    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.timeout = 0.05
        self.lock = threading.Lock()

    def read(self, size: int = 1) -> bytes:
        self.sock.settimeout(self.timeout)
        try:
            data = self.sock.recv(max(1, size))
        except socket.timeout:
            return b""
        if not data:
            raise ConnectionError("closed")
        return data

    def write(self, data: bytes) -> int:
        with self.lock:
            self.sock.sendall(data)
        return len(data)

    def close(self) -> None:
        self.sock.close()


@contextmanager
def raw_rig() -> Iterator[tuple[RawDevice, SerialShoe]]:
    device = RawDevice()
    shoe = SerialShoe(device.url, timing=RAW, identify_timeout=2.0)
    opener = threading.Thread(target=shoe.open)
    opener.start()
    device.accept()
    assert device.hel.wait(2)
    device.session.send("IDN", "RAW", "1", "0", "TDL/1", "0")
    opener.join()
    try:
        yield device, shoe
    finally:
        shoe.close()
        device.close()


def _flip(raw: bytes, bit: int) -> bytes:
    i = bit // 8 % len(raw)
    return raw[:i] + bytes([raw[i] ^ (1 << (bit % 8))]) + raw[i + 1 :]


@st.composite
def garbage(draw: st.DrawFn):
    """Bytes that must never become a card (noise, damaged or cut frames,
    frames out of turn), made for the shoe's next card index: a function of
    it. (Drawn apart from the shoe's state, which moves on between examples:
    hypothesis replays an example's draws and must meet the same bounds.)"""
    seq = draw(st.integers(0x80, 0xFF))  # apart from the device session's own SEQs
    kind = draw(st.sampled_from(["noise", "flip", "cut", "crc", "ahead", "round", "fields", "addr", "type"]))
    if kind == "noise":
        noise = draw(st.binary(max_size=300))
        return lambda index: noise
    good = lambda index: encode(Frame(ADDR, seq, "CRD", valid_crd("R1", index, "Q", "H")))  # noqa: E731
    if kind == "flip":
        bit = draw(st.integers(0, 1 << 16))
        return lambda index: _flip(good(index), bit)  # (_flip takes the byte modulo the frame's length)
    if kind == "cut":
        at = draw(st.integers(0, 1 << 16))
        return lambda index: good(index)[: at % (len(good(index)) - 6)]  # cut before its ETX
    if kind == "crc":
        off = draw(st.integers(1, 0xFFFE))
        return lambda index: (lambda g: g[:-6] + b"%04X\r\n" % ((int(g[-6:-2], 16) + off) & 0xFFFF))(good(index))
    if kind == "ahead":
        ahead = draw(st.integers(1, 5))
        return lambda index: encode(Frame(ADDR, seq, "CRD", valid_crd("R1", index + ahead, "2", "S")))
    if kind == "round":
        rnd = draw(st.sampled_from(["R0", "R2", ""]))
        return lambda index: encode(Frame(ADDR, seq, "CRD", valid_crd(rnd, index, "2", "S")))
    if kind == "fields":
        fields = tuple(draw(st.lists(FIELD, max_size=7)))
        return lambda index: encode(Frame(ADDR, seq, "CRD", fields))
    if kind == "addr":
        return lambda index: encode(Frame(0x03, seq, "CRD", valid_crd("R1", index, "2", "S")))
    kind_, fields = draw(st.sampled_from(["CNT", "EMP", "XYZ", "FLC", "DOR"])), tuple(draw(st.lists(FIELD, max_size=3)))
    return lambda index: encode(Frame(ADDR, seq, kind_, fields))


@pytest.mark.property  # (its examples are drawn inside, on one open rig)
def test_raw_garbage_on_the_line_never_becomes_a_card() -> None:
    with raw_rig() as (device, shoe):
        shoe.arm("R1", 1000)
        sent_cards: list[int] = []

        @settings(max_examples=examples(50), deadline=None, suppress_health_check=list(HealthCheck))
        @given(data=st.data())
        def burst(data: st.DataObject) -> None:
            makers = data.draw(st.lists(garbage(), min_size=1, max_size=4))
            blob = b"".join(make(shoe._next_index) for make in makers)
            cut = data.draw(st.integers(0, 1 << 16)) % (len(blob) + 1)
            for part in (blob[:cut], blob[cut:]):
                if part:
                    device.port.write(part)
            seen = []
            # A good card after the garbage: ACKed only once the driver has read all that came before.
            device.session.send("CRD", *valid_crd("R1", shoe._next_index, "A", "S"))
            while (event := shoe.next_event(0)) is not None:  # queued before the ACK went out
                seen.append(event)
            cards = [e for e in seen if isinstance(e, CardRead)]
            assert len(cards) == 1 and cards[0].card.code == "AS", seen
            sent_cards.append(cards[0].index)

        burst()
        assert len(sent_cards) >= 10
        assert shoe._session is not None and shoe._session.link_up
