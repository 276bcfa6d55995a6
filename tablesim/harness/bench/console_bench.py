"""A card's way from the device to the screen: the shoe emulator writes a
card frame on its pty; the served table (``tablesim serve --config``, the
real serial driver on that pty, another process) takes it, journals it and
sends the card event to a console's WebSocket, here in this process again.
Both ends are timed on this process's clock: the emulator's trace hook sees
each frame as it is written, the WebSocket client each event as it arrives.

Rounds of the game that sets this benchmark up (its ``CardsSetup``) are
played through the API until enough cards went that way.
"""

from __future__ import annotations

import functools
import json
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from tablesim.harness.bench.served import ServedTable, call, percentile

CARDS = 500
#: the emulator's pace: a card every 0.8 s x this (20 ms), the first 1.5 s x this after arming
TIME_SCALE = 0.025


class _Cards:
    """First-write times of the card frames, per (round, index), from the emulator."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.written: dict[tuple[str, int], float] = {}

    def trace(self, raw: bytes, at: float) -> None:
        if raw[7:10] == b"CRD":
            parts = raw.split(b"|")
            key = (parts[3].decode("ascii", "replace"), int(parts[4]))
            with self.lock:
                self.written.setdefault(key, at)  # a resend keeps the first time


class _Console(threading.Thread):
    """A console's WebSocket: the arrival time of every card event."""

    def __init__(self, url: str) -> None:
        super().__init__(name="bench-console", daemon=True)
        self.url = url.replace("http://", "ws://") + "/ws?since=0"
        self.cards: list[tuple[float, str]] = []  # (arrival, round id)
        self.ready = threading.Event()
        self.error: BaseException | None = None
        self.stop = False

    def run(self) -> None:
        from websockets.sync.client import connect

        try:
            with connect(self.url, open_timeout=10, max_size=None) as ws:
                self.ready.set()
                while not self.stop:
                    try:
                        raw = ws.recv(timeout=0.2)
                    except TimeoutError:
                        continue
                    now = time.perf_counter()
                    if '"card"' not in raw:
                        continue
                    msg = json.loads(raw)
                    if msg.get("type") == "event" and msg.get("kind") == "card" and not msg.get("replay"):
                        self.cards.append((now, msg.get("round_id", "")))
        except Exception as exc:  # the server went away: the caller reports what arrived
            self.error = exc
        finally:
            self.ready.set()

    def open(self) -> "_Console":
        self.start()
        self.ready.wait(15)
        if self.error is not None:
            raise RuntimeError(f"the console's WebSocket did not open: {self.error}")
        return self

    def close(self) -> None:
        self.stop = True
        self.join(5)


def _wait(served: ServedTable, *states: str, timeout: float = 30.0) -> dict:
    end = time.monotonic() + timeout
    while (snap := call(served, "GET", "/api/table"))["state"] not in states:
        if time.monotonic() > end:
            raise RuntimeError(f"the table stayed {snap['state']} (waiting for {states})")
        time.sleep(0.005)
    return snap


def card_to_console(cards: int = CARDS, time_scale: float = TIME_SCALE) -> dict[str, Any]:
    """p50/p99 (ms) from a card frame written to the pty to its event on a console's WebSocket."""
    from drivers.emulators import make_emulator
    from drivers.emulators.server import EmulatorServer

    from tablesim.harness.bench.service import setup

    game, deal = setup("card_to_console")
    frames = _Cards()
    emulator = make_emulator(deal.device, seed=1, time_scale=time_scale)
    emulator.trace = frames.trace
    samples: list[float] = []
    with tempfile.TemporaryDirectory(prefix="tablesim-bench-") as tmp, \
            EmulatorServer(emulator, pty=True) as pty:
        config = Path(tmp) / f"{game.name}-bench.toml"
        config.write_text(deal.config.format(url=pty.url))
        with ServedTable("--config", str(config)) as served:
            console = _Console(served.url).open()
            try:
                rounds = 0
                while len(console.cards) < cards:
                    deal.play_round(functools.partial(call, served), functools.partial(_wait, served))
                    rounds += 1
                    if rounds > 4 * (cards // 20 + 1):
                        raise RuntimeError(f"only {len(console.cards)} cards reached the console")
                time.sleep(0.2)
            finally:
                console.close()
    # Pair each round's card events, in order, with its frames in index order.
    by_round: dict[str, list[float]] = {}
    for at, rid in console.cards:
        by_round.setdefault(rid, []).append(at)
    with frames.lock:
        written = dict(frames.written)
    sent: dict[str, list[float]] = {}
    for (rid, index), at in sorted(written.items()):
        sent.setdefault(rid, []).append(at)
    skipped = 0
    for rid, arrivals in by_round.items():
        frames_of = next((v for k, v in sent.items() if rid.endswith(k) or k.endswith(rid) or k == rid), None)
        if frames_of is None or len(frames_of) != len(arrivals):
            skipped += 1
            continue
        samples += [(a - w) * 1000 for a, w in zip(arrivals, frames_of)]
    if not samples:
        raise RuntimeError(f"no card could be paired (rounds {list(by_round)[:3]}, frames {list(sent)[:3]})")
    ordered = sorted(samples)
    return {
        "p50_ms": round(statistics.median(ordered), 2),
        "p99_ms": round(percentile(ordered, 0.99), 2),
        "max_ms": round(ordered[-1], 2),
        "cards": len(samples),
        "rounds_skipped": skipped,
        "card_interval_ms": round(800 * time_scale, 1),
        "path": "shoe emulator -> pty -> serial driver -> table (journal) -> WebSocket",
    }
