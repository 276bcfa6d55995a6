"""Device link benchmarks: the frame codec, and a card's way from the shoe
emulator to the serial driver over a pty."""

from __future__ import annotations

import statistics
import threading
import time
from typing import Any

from drivers.tdl import Frame, StreamDecoder, decode, encode
from tablesim.harness.bench.measure import rate

CARDS = 1040  # cards dealt for the latency measurement (20 decks)


def codec() -> dict[str, Any]:
    """Frames encoded + decoded per second (a CRD), and stream-decoded per second."""
    frame = Frame(0x02, 0x1F, "CRD", ("R1042", "3", "Q", "H", "D"))
    raw = encode(frame)
    stream = raw * 64
    decoder = StreamDecoder()

    def round_trip() -> None:
        decode(encode(frame))

    def feed() -> None:
        decoder.feed(stream)

    return {
        "frames_per_second": rate(round_trip, batch=2000),
        "stream_frames_per_second": rate(feed, batch=20) * 64,
        "frame": raw.decode("ascii", "backslashreplace"),
        "bytes": len(raw),
    }


def latency(cards: int = CARDS) -> dict[str, Any]:
    """Median and p99 time (ms) from the emulator writing a CRD on the pty to
    ``SerialShoe.next_event`` returning its CardRead."""
    from drivers.emulators.server import EmulatorServer
    from drivers.emulators.shoe import ShoeEmulator
    from drivers.serial.shoe import SerialShoe
    from drivers.serial.timing import LinkTiming

    timing = LinkTiming(heartbeat_interval=1.0, read_poll=0.05)
    written: dict[int, float] = {}
    lock = threading.Lock()

    def trace(raw: bytes, at: float) -> None:
        # Only the first transmission of each card counts (a resend keeps its time).
        if raw[7:10] == b"CRD":
            index = int(raw.split(b"|")[4])
            with lock:
                written.setdefault(index, at)

    decks = min(8, max(1, -(-cards // 52)))  # a shoe holds at most 8 decks: refill it as needed
    per_shoe = 52 * decks
    emulator = ShoeEmulator(seed=1, time_scale=0.002, decks=decks, timing=timing)
    emulator.trace = trace
    samples: list[float] = []
    with EmulatorServer(emulator, pty=True) as server:
        shoe = SerialShoe(server.url, timing=timing)
        shoe.open()
        try:
            shoe_no = 0
            while len(samples) < cards:
                shoe_no += 1
                with lock:
                    written.clear()  # card indices start again with each round
                shoe.load_shoe(f"BENCH{shoe_no}", decks)
                want = min(per_shoe, cards - len(samples))
                shoe.arm(f"BENCH-R{shoe_no}", want)
                got = _read_cards(shoe, want, written, lock, samples)
                shoe.disarm()
                if got == 0:
                    break
        finally:
            shoe.close()
    if not samples:
        raise RuntimeError("no card arrived from the shoe emulator")
    return {**_spread(samples), "cards": len(samples), "transport": "pty"}


def _read_cards(shoe, want: int, written: dict, lock, samples: list) -> int:
    """Read up to ``want`` cards off the armed shoe, adding each one's delay (ms) to ``samples``."""
    from drivers.events import CardRead

    got = 0
    while got < want:
        event = shoe.next_event(5.0)
        now = time.perf_counter()
        if event is None:
            break
        if isinstance(event, CardRead):
            got += 1
            with lock:
                sent = written.get(event.index)
            if sent is not None:
                samples.append((now - sent) * 1000)
    return got


def _spread(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(round(0.99 * (len(ordered) - 1))))]
    return {
        "median_ms": round(statistics.median(ordered), 3),
        "p99_ms": round(p99, 3),
        "max_ms": round(ordered[-1], 3),
    }
