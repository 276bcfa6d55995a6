"""An emulated keyboard-wedge reader: the input events a real one sends,
recorded form, written into a named pipe that the ``evdev`` driver reads as
its device (no ``/dev/uinput`` needed).

Cued by its driver like a dealer watching the table (``arm``: deal up to
``max_cards`` cards, one every ``card_interval`` device seconds), it types
each card's code from the configuration's table (or the card code itself)
and Enter. ``unplug()`` closes the pipe and removes it (the driver sees the
end of its stream), ``replug()`` makes it again; ``mute(True)`` stops typing.
"""

from __future__ import annotations

import os
import random
import tempfile
import threading
from pathlib import Path

from drivers.evdev.keys import typed
from tablecore.cards import DECK


class EmulatedKeyboard:
    def __init__(self, *, cards: dict[str, str] | None = None, seed: int | None = None, time_scale: float = 1.0,
                 card_interval: float = 0.8, directory: str | None = None) -> None:
        self.codes = {card: code for code, card in (cards or {}).items()}  # card -> the code typed for it
        self.rng = random.Random(seed)
        self.pack = [c for c in DECK if not self.codes or c.code in self.codes]
        self.rng.shuffle(self.pack)
        self.time_scale, self.card_interval = time_scale, card_interval
        self._dir = Path(directory or tempfile.mkdtemp(prefix="tablesim-kbd-"))
        self.path = str(self._dir / "event-kbd")
        self._lock = threading.Condition()
        self._fd: int | None = None
        self._muted = False
        self._gen = 0
        self._stop = threading.Event()
        self._dealers: list[threading.Thread] = []
        self.typed = 0
        self.replug()

    def replug(self) -> None:
        with self._lock:
            if not os.path.exists(self.path):
                os.mkfifo(self.path, 0o600)
            # read and write: opening never waits for a reader, and the pipe lives while we hold it
            self._fd = os.open(self.path, os.O_RDWR)

    def unplug(self) -> None:
        with self._lock:
            fd, self._fd = self._fd, None
            if fd is not None:
                os.close(fd)
            if os.path.exists(self.path):
                os.unlink(self.path)

    def mute(self, on: bool) -> None:
        with self._lock:
            self._muted = on

    def type_code(self, code: str) -> None:
        with self._lock:
            if self._fd is None or self._muted:
                return
            os.write(self._fd, typed(code))
            self.typed += 1

    def cue(self, action: str, values: dict) -> None:
        with self._lock:
            self._gen += 1
            gen = self._gen
        if action == "arm":
            count = int(values.get("max_cards", 1))
            thread = threading.Thread(target=self._deal, args=(gen, count), daemon=True, name="kbd-dealer")
            self._dealers = [t for t in self._dealers if t.is_alive()] + [thread]
            thread.start()

    def _deal(self, gen: int, count: int) -> None:
        for _ in range(count):
            if self._stop.wait(self.card_interval * self.time_scale) or gen != self._gen or not self.pack:
                return
            card = self.pack.pop()
            self.type_code(self.codes.get(card.code, card.code))

    def close(self) -> None:
        self._stop.set()
        for thread in self._dealers:
            thread.join()
        self.unplug()
        try:
            self._dir.rmdir()
        except OSError:
            pass
