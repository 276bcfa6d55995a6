"""Raw device traffic captured on a table and replayed as the device.

A capture (format ``tablesim-capture/1``, JSON Lines) keeps every byte each
line device sent and received, with its time, while a table played:

- a ``header`` line: ``format``, the table configuration, table id, game,
  the players' seed, rounds, whether the devices were emulated, and when;
- one ``io`` line per read or write of a device's port, in the order they
  happened: ``t`` (seconds since the capture began, 6 decimals), ``device``
  (its kind), ``dir`` (``rx``: device to host, ``tx``: host to device) and
  ``hex`` (the bytes); a read is what the port returned, so it may hold part
  of a line or several;
- one ``cue`` line per state the table asked of a device (``arm``,
  ``disarm``, with their values), written whether or not the device takes a
  command for it: a reader without commands is still armed by the table,
  and a replay must not hand it a card before its round was armed;
- one ``result`` line per round (``round_id`` and the round's result), then
  an ``end`` line.

:class:`TapPort` wraps a live port and writes the capture; :class:`ReplayPort`
is the device on replay (``url = "replay:CAPTURE"``, optionally
``?speed=X``): it hands the driver each ``rx`` chunk once the cues recorded
before it have happened again, and at the time it came after the last of
them (divided by ``speed``; ``speed=0``: as soon as the cues allow). The
driver's clock on both sides is the capture's ``t`` of the chunk it reads,
so whatever it measures over time (a rotor speed integrated, a duplicate
window) is the same number live and replayed. Host writes on replay are
taken and dropped: the bytes the device sends are what decides.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TextIO

FORMAT = "tablesim-capture/1"


class CaptureError(ValueError):
    """A capture that cannot be read (one line naming the file and the line)."""


class CaptureWriter:
    """Writes one capture; every method is thread-safe (the devices' reader threads and the table's)."""

    def __init__(self, path: str | Path, header: dict[str, Any]) -> None:
        self.path = Path(path)
        self._file: TextIO = self.path.open("w", encoding="ascii")
        self._lock = threading.Lock()
        self._start = time.monotonic()
        self._write({"header": {"format": FORMAT, **header,
                                "recorded": datetime.now(timezone.utc).isoformat(timespec="seconds")}})

    def now(self) -> float:
        return round(time.monotonic() - self._start, 6)

    def _write(self, item: dict[str, Any]) -> None:
        with self._lock:
            if not self._file.closed:
                self._file.write(json.dumps(item, default=str, separators=(",", ":")) + "\n")

    def io(self, device: str, direction: str, data: bytes) -> float:
        t = self.now()
        self._write({"t": t, "device": device, "dir": direction, "hex": data.hex()})
        return t

    def cue(self, device: str) -> Any:
        """A cue listener of a device (``device.cues``): its state changes, as they are asked."""
        def listen(action: str, values: dict[str, Any]) -> None:
            self._write({"t": self.now(), "device": device, "cue": action,
                         "values": {k: str(v) for k, v in values.items()}})
        return listen

    def wrapper(self, device_name: str) -> Any:
        """A ``transport_wrapper`` setting: the device's port, tapped into this capture."""
        def wrap(device: Any, port: Any) -> "TapPort":
            tap = TapPort(port, self, device_name)
            device.clock = tap.clock
            return tap
        return wrap

    def on_table_event(self, event: Any) -> None:
        """An EventBus subscriber: keeps each round's result."""
        if event.kind == "result":
            self._write({"round_id": event.round_id, "result": dict(event.data)})

    def close(self) -> None:
        self._write({"end": True})
        with self._lock:
            self._file.close()


class TapPort:
    """A port that writes what passes through it to a capture."""

    def __init__(self, port: Any, capture: CaptureWriter, device: str) -> None:
        self._port, self._capture, self.device = port, capture, device
        self.t = 0.0  # the capture time of the last bytes read: the driver's clock

    def clock(self) -> float:
        return self.t

    def read(self, size: int = 1) -> bytes:
        data = self._port.read(size)
        if data:
            self.t = self._capture.io(self.device, "rx", data)
        return data

    def write(self, data: bytes) -> int | None:
        self._capture.io(self.device, "tx", bytes(data))
        return self._port.write(data)

    @property
    def in_waiting(self) -> int:
        return 0  # each read is its own capture line, in the order it happened

    def close(self) -> None:
        self._port.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._port, name)


@dataclass(frozen=True)
class _Item:
    kind: str  # rx | cue
    t: float
    data: bytes = b""
    n: int = 0  # a cue's number among the device's cues (1, 2 ...)


def read_capture(path: str | Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(the header, every other line) of a capture; CaptureError naming what is wrong."""
    p = Path(path)
    try:
        lines = p.read_text(encoding="ascii").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise CaptureError(f"{p}: cannot read the capture: {exc}") from None
    items = []
    for number, text in enumerate(lines, 1):
        try:
            item = json.loads(text)
        except json.JSONDecodeError as exc:
            raise CaptureError(f"{p}: line {number} is not JSON: {exc.msg}") from None
        if not isinstance(item, dict):
            raise CaptureError(f"{p}: line {number} is not an object")
        items.append(item)
    if not items or not isinstance(items[0].get("header"), dict) or items[0]["header"].get("format") != FORMAT:
        raise CaptureError(f"{p}: not a capture (its first line must be a {FORMAT} header)")
    for number, item in enumerate(items[1:], 2):
        if "hex" in item:
            try:
                bytes.fromhex(item["hex"])
                float(item["t"])
            except (TypeError, ValueError, KeyError):
                raise CaptureError(f"{p}: line {number}: an io line needs t and hex") from None
    return items[0]["header"], items[1:]


class ReplayPort:
    """One device's side of a capture, played back to its driver (see the module doc)."""

    def __init__(self, path: str | Path, device: str, speed: float = 1.0) -> None:
        _, items = read_capture(path)
        self.device, self.speed = device, speed
        queue: deque[_Item] = deque()
        cues = 0
        for item in items:
            if item.get("device") != device:
                continue
            if "cue" in item:
                cues += 1
                queue.append(_Item("cue", float(item["t"]), n=cues))
            elif item.get("dir") == "rx":
                queue.append(_Item("rx", float(item["t"]), bytes.fromhex(item["hex"])))
        if not any(i.kind == "rx" for i in queue):
            raise CaptureError(f"{path}: the capture holds nothing the {device} sent")
        self._items = queue
        self._cond = threading.Condition()
        self._cue_times: list[float] = []  # when the replay made each cue (monotonic)
        self._anchor = (time.monotonic(), 0.0)  # (replay time, capture time) the next chunk is timed from
        self.t = 0.0
        self.timeout = 0.05
        self._closed = False

    def clock(self) -> float:
        return self.t

    def cue(self, action: str, values: dict[str, Any]) -> None:
        with self._cond:
            self._cue_times.append(time.monotonic())
            self._cond.notify_all()

    def read(self, size: int = 1) -> bytes:
        with self._cond:
            deadline = time.monotonic() + self.timeout
            while not self._closed and self._items:
                head, now = self._items[0], time.monotonic()
                if head.kind == "cue":
                    if len(self._cue_times) >= head.n:
                        self._items.popleft()
                        self._anchor = (self._cue_times[head.n - 1], head.t)
                        continue
                    due = deadline
                else:
                    since = (head.t - self._anchor[1]) / self.speed if self.speed > 0 else 0.0
                    due = self._anchor[0] + max(since, 0.0)
                    if now >= due:
                        self._items.popleft()
                        self.t = head.t
                        return head.data
                if now >= deadline:
                    return b""
                self._cond.wait(min(due, deadline) - now)
            if not self._closed:
                self._cond.wait(max(deadline - time.monotonic(), 0))
            return b""

    def write(self, data: bytes) -> int:
        return len(data)  # the host's lines are taken; what the device sent decides

    @property
    def in_waiting(self) -> int:
        return 0

    @property
    def done(self) -> bool:
        return not any(i.kind == "rx" for i in self._items)

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()


def replay_url(url: str) -> tuple[str, float] | None:
    """(the capture's path, the speed) of a ``replay:PATH[?speed=X]`` url; None for any other url."""
    if not url.startswith("replay:"):
        return None
    path, _, query = url[len("replay:"):].partition("?")
    speed = 1.0
    if query:
        key, _, value = query.partition("=")
        try:
            speed = float(value)
        except ValueError:
            speed = -1.0
        if key != "speed" or not 0 <= speed <= 1000:
            raise CaptureError(f"{url!r}: a replay url takes ?speed=X (0 to 1000; 0: as fast as the cues allow)")
    if not path:
        raise CaptureError(f"{url!r}: name the capture (replay:PATH)")
    return path, speed
