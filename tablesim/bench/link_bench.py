"""Device link benchmarks: the frame codec, and a card's way from the shoe
emulator to the serial driver over a pty."""

from __future__ import annotations

import statistics
import threading
import time
from typing import Any

from drivers.link import Frame, StreamDecoder, decode, encode
from tablesim.bench.measure import rate

CARDS = 200  # cards dealt for the latency measurement (4 decks)


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
    from drivers.events import CardRead
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

    decks = max(1, -(-cards // 52))
    emulator = ShoeEmulator(seed=1, time_scale=0.002, decks=decks, timing=timing)
    emulator.trace = trace
    samples: list[float] = []
    with EmulatorServer(emulator, pty=True) as server:
        shoe = SerialShoe(server.url, timing=timing)
        shoe.open()
        try:
            shoe.load_shoe("BENCH", decks)
            shoe.arm("BENCH-R1", cards)
            while len(samples) < cards:
                event = shoe.next_event(5.0)
                now = time.perf_counter()
                if event is None:
                    break
                if isinstance(event, CardRead):
                    with lock:
                        sent = written.get(event.index)
                    if sent is not None:
                        samples.append((now - sent) * 1000)
            shoe.disarm()
        finally:
            shoe.close()
    if not samples:
        raise RuntimeError("no card arrived from the shoe emulator")
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(round(0.99 * (len(ordered) - 1))))]
    return {
        "median_ms": round(statistics.median(ordered), 3),
        "p99_ms": round(p99, 3),
        "max_ms": round(ordered[-1], 3),
        "cards": len(samples),
        "transport": "pty",
    }
