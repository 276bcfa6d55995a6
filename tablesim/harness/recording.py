"""Record and replay a table session's device traffic (docs/protocol.md,
"Record and replay").

Both are listeners attached to a device when it is opened, through the
device registry's ``transport_wrapper`` setting (``recorder.settings()``),
as a USB backend object travels: nothing global is patched, so two tables
in one process record (or replay) independently.

Recording: each transport a recorded serial (or USB) driver opens becomes a
:class:`TapTransport`: the bytes the driver reads and writes are written to
a JSON Lines file, with their monotonic time offset, the device kind and
the direction. The file starts with a header (the run's options)
and ends with one ``result`` line per round and an ``end`` line.

Replay: :class:`Replayer` replaces the port of each driver it is attached
to with a :class:`Playback`: it hands the driver the recorded device->host bytes
(as fast as causality allows: the bytes the device sent after a host frame
are given only once the host wrote that frame) and checks every host->device
write against the recording. A write the recording does not have is a
:class:`ReplayMismatch` naming the recorded frame.

The host's heartbeat is off in both (the wrapper sets the driver's
``heartbeat_interval`` to None): PNG frames take host sequence numbers at
wall-clock times, so with them on no two runs write the same bytes.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from tablecore.errors import InputError

FORMAT = "tablesim-recording/1"
TX = "host->device"
RX = "device->host"
#: how many recorded host frames ahead a write may match (two threads of the
#: host, the table's and the link reader's, may write in either order)
WINDOW = 4


class ReplayMismatch(Exception):
    """The replayed run did not do what the recorded run did."""


#: the device backends whose transport a recording can listen on (the TDL/1 drivers)
TAPPED_BACKENDS = ("serial", "usb")


def _heartbeat_off(device: Any) -> None:
    timing = getattr(device, "timing", None)
    if timing is not None and timing.heartbeat_interval is not None:
        device.timing = timing.with_(heartbeat_interval=None)


def show(data: bytes) -> str:
    """A frame for a message: its text without STX/ETX/CR LF noise."""
    text = data.decode("latin-1")
    return repr(text.replace("\x02", "<STX>").replace("\x03", "<ETX>").replace("\r\n", ""))


# -- recording ------------------------------------------------------------------------------


class TapTransport:
    """A transport (what ``serial.serial_for_url`` returns) that records its traffic."""

    def __init__(self, inner: Any, recorder: "Recorder", kind: str) -> None:
        self._inner = inner
        self._recorder = recorder
        self._kind = kind

    @property
    def timeout(self) -> float | None:
        return self._inner.timeout

    @timeout.setter
    def timeout(self, value: float | None) -> None:
        self._inner.timeout = value

    @property
    def in_waiting(self) -> int:
        return getattr(self._inner, "in_waiting", 0)

    def read(self, size: int = 1) -> bytes:
        data = self._inner.read(size)
        if data:
            self._recorder.frame(self._kind, RX, bytes(data))
        return data

    def write(self, data: bytes) -> int | None:
        # Recorded before it goes out, so the device's answer can never come first in the file.
        self._recorder.frame(self._kind, TX, bytes(data))
        return self._inner.write(data)

    def flush(self) -> None:
        flush = getattr(self._inner, "flush", None)
        if flush is not None:
            flush()

    def close(self) -> None:
        self._inner.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class Recorder:
    """Writes a recording: header, frames (both directions), results, end."""

    def __init__(self, path: str | Path, header: dict[str, Any]) -> None:
        self.path = Path(path)
        try:
            self._file = open(self.path, "w", encoding="ascii")
        except OSError as exc:
            raise InputError(f"cannot write the recording: {exc}", where="--record") from None
        self._lock = threading.Lock()
        self._start = time.monotonic()
        self.frames = 0
        self.results = 0
        self._line({"type": "header", "format": FORMAT, "heartbeat": "off",
                    "recorded": datetime.now(timezone.utc).isoformat(timespec="seconds"), **header})

    def _line(self, obj: dict[str, Any]) -> None:
        self._file.write(json.dumps(obj, separators=(",", ":")) + "\n")

    def frame(self, kind: str, direction: str, data: bytes) -> None:
        with self._lock:
            if self._file.closed:
                return
            self.frames += 1
            self._line({"type": "frame", "n": self.frames, "t": round(time.monotonic() - self._start, 6),
                        "device": kind, "dir": direction, "hex": data.hex()})

    def result(self, round_id: str, result: dict[str, Any]) -> None:
        with self._lock:
            if self._file.closed:
                return
            self.results += 1
            self._line({"type": "result", "round_id": round_id, "result": result})

    def on_table_event(self, event: Any) -> None:
        """An EventBus subscriber: keeps each round's result."""
        if event.kind == "result":
            self.result(event.round_id, dict(event.data))

    def wrap(self, device: Any, transport: Any) -> TapTransport:
        _heartbeat_off(device)
        return TapTransport(transport, self, device.kind)

    def settings(self) -> dict[str, Any]:
        """The device settings that attach this recorder to a device's transport
        (``open_device(kind, backend, {..., **recorder.settings()})``)."""
        return {"transport_wrapper": self.wrap}

    def close(self) -> None:
        with self._lock:
            if self._file.closed:
                return
            self._line({"type": "end", "frames": self.frames, "rounds": self.results})
            self._file.close()


# -- reading a recording ----------------------------------------------------------------------


@dataclass
class Item:
    n: int  # the frame's number in the recording
    line: int  # its line in the file
    device: str
    dir: str
    data: bytes


@dataclass
class Recording:
    header: dict[str, Any]
    frames: list[Item] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)  # {"round_id", "result"}
    complete: bool = False

    @property
    def devices(self) -> list[str]:
        return list(dict.fromkeys(item.device for item in self.frames))

    @classmethod
    def load(cls, path: str | Path) -> "Recording":
        where = str(path)
        try:
            lines = Path(path).read_text(encoding="ascii").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"cannot read the recording: {exc}", where=where) from None
        recording: Recording | None = None
        for no, text in enumerate(lines, 1):
            if not text.strip():
                continue
            try:
                obj = json.loads(text)
                kind = obj["type"]
                if recording is None:
                    if kind != "header" or obj.get("format") != FORMAT:
                        raise ValueError(f"not a {FORMAT} header")
                    recording = cls(obj)
                elif kind == "frame":
                    if obj["dir"] not in (TX, RX):
                        raise ValueError(f"direction {obj['dir']!r}")
                    recording.frames.append(Item(int(obj["n"]), no, str(obj["device"]), obj["dir"],
                                                 bytes.fromhex(obj["hex"])))
                elif kind == "result":
                    recording.results.append({"round_id": obj["round_id"], "result": obj["result"]})
                elif kind == "end":
                    recording.complete = True
                else:
                    raise ValueError(f"unknown line type {kind!r}")
            except (ValueError, KeyError, TypeError) as exc:
                raise InputError(f"line {no}: not a recording line ({exc})", where=where) from None
        if recording is None:
            raise InputError("empty file, not a recording", where=where)
        return recording


# -- replay --------------------------------------------------------------------------------------


class Playback:
    """A device's port in a replay: the recorded device bytes out, the host's writes checked."""

    def __init__(self, kind: str, items: list[Item], replayer: "Replayer") -> None:
        self.kind = kind
        self.timeout: float | None = None
        self._items = items
        self._done = [False] * len(items)
        self._pos = 0
        self._buf = bytearray()
        self._last_tx: bytes | None = None
        self._replayer = replayer
        self._cv = replayer.cv
        self._closed = False
        with self._cv:
            self._release()

    def _release(self) -> None:
        """Hand over every recorded device byte no unmatched host frame precedes (under cv)."""
        items, done = self._items, self._done
        while self._pos < len(items):
            i, item = self._pos, items[self._pos]
            if not done[i]:
                if item.dir == RX:
                    self._buf += item.data
                elif item.data != self._last_tx:  # a recorded resend of the last frame is not required
                    break
                done[i] = True
            self._pos += 1
        self._cv.notify_all()

    def reopen(self) -> "Playback":
        with self._cv:
            self._closed = False
        return self

    @property
    def in_waiting(self) -> int:
        with self._cv:
            return len(self._buf)

    @property
    def finished(self) -> bool:
        """Every recorded host frame was written."""
        return not self.pending_tx()

    def pending_tx(self) -> list[Item]:
        return [item for item, done in zip(self._items, self._done) if not done and item.dir == TX]

    def read(self, size: int = 1) -> bytes:
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        with self._cv:
            while not self._buf:
                if self._closed:
                    return b""
                if self._replayer.failure is not None:
                    raise ReplayMismatch(self._replayer.failure)
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return b""
                self._cv.wait(remaining)
            out = bytes(self._buf[:size])
            del self._buf[:size]
            return out

    def write(self, data: bytes) -> int:
        data = bytes(data)
        with self._cv:
            if self._replayer.failure is not None:
                raise ReplayMismatch(self._replayer.failure)
            seen = 0
            for i in range(self._pos, len(self._items)):
                item = self._items[i]
                if self._done[i] or item.dir != TX:
                    continue
                if item.data == data:
                    self._done[i] = True
                    self._last_tx = data
                    self._release()
                    return len(data)
                seen += 1
                if seen >= WINDOW:
                    break
            if data == self._last_tx:
                return len(data)  # a resend the recorded run did not need
            expected = self.pending_tx()
            if expected:
                first = expected[0]
                text = (f"frame {first.n} (line {first.line}, {self.kind}, {TX}) does not match: "
                        f"recorded {show(first.data)}, the replay wrote {show(data)}")
            else:
                text = (f"the replay wrote {show(data)} to the {self.kind}, "
                        f"after the last frame the recording has for it")
            self._replayer.fail(text)
            raise ReplayMismatch(text)

    def flush(self) -> None:
        pass

    def close(self) -> None:
        with self._cv:
            self._closed = True
            self._cv.notify_all()


class Replayer:
    """Plays a recording back to the drivers opened while :meth:`installed` is active."""

    def __init__(self, recording: Recording) -> None:
        self.recording = recording
        self.cv = threading.Condition()
        self.failure: str | None = None
        self.playbacks: dict[str, Playback] = {}
        for kind in recording.devices:
            self.playbacks[kind] = Playback(kind, [i for i in recording.frames if i.device == kind], self)

    def fail(self, text: str) -> None:
        with self.cv:
            if self.failure is None:
                self.failure = text
            self.cv.notify_all()

    def check(self) -> None:
        if self.failure is not None:
            raise ReplayMismatch(self.failure)

    def wrap(self, device: Any, transport: Any) -> Playback:
        _heartbeat_off(device)
        try:
            transport.close()  # the placeholder port (loop://) the driver opened
        except Exception:  # noqa: BLE001
            pass
        playback = self.playbacks.get(device.kind)
        if playback is None:
            playback = self.playbacks[device.kind] = Playback(device.kind, [], self)
        return playback.reopen()

    def settings(self) -> dict[str, Any]:
        """The device settings that make a driver read this recording instead of its port."""
        return {"transport_wrapper": self.wrap}

    def watch(self, device: Any) -> None:
        """Make ``device.next_event`` raise ReplayMismatch as soon as the replay failed
        (so the table stops at once instead of waiting for its device timeout)."""
        original = device.next_event

        def next_event(timeout: float | None = 0.0):
            self.check()
            if timeout is None or timeout > 0.05:
                deadline = None if timeout is None else time.monotonic() + timeout
                while True:
                    remaining = 0.05 if deadline is None else min(0.05, deadline - time.monotonic())
                    if remaining <= 0:
                        return None
                    event = original(remaining)
                    if event is not None:
                        return event
                    self.check()
            event = original(timeout)
            self.check()
            return event

        device.next_event = next_event

    def wait_finished(self, quiet_for: float = 1.0) -> None:
        """Wait until every recorded host frame was written, or nothing moved for ``quiet_for`` s."""
        def state() -> list[int]:
            return [len(p.pending_tx()) for p in self.playbacks.values()]

        last, since = state(), time.monotonic()
        while any(last) and self.failure is None and time.monotonic() - since < quiet_for:
            with self.cv:
                self.cv.wait(0.02)
            now = state()
            if now != last:
                last, since = now, time.monotonic()

    def leftover(self) -> str | None:
        """The first recorded host frame the replay never wrote, as a message."""
        for playback in self.playbacks.values():
            pending = playback.pending_tx()
            if pending:
                first = pending[0]
                return (f"frame {first.n} (line {first.line}, {playback.kind}, {TX}) was never written "
                        f"by the replay: {show(first.data)}")
        return None


MISSING = "(absent)"


def first_difference(a: Any, b: Any, path: str = "") -> tuple[str, Any, Any]:
    """The first field (a dotted path, ``[i]`` for a list's item) where ``a``
    and ``b`` differ, and the two values there."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            if a.get(key, MISSING) != b.get(key, MISSING):
                return first_difference(a.get(key, MISSING), b.get(key, MISSING), f"{path}.{key}" if path else str(key))
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for n, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return first_difference(x, y, f"{path}[{n}]")
    return path or "(the result)", a, b


def _short(value: Any, limit: int = 120) -> str:
    text = value if value == MISSING else json.dumps(value, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def compare_results(recorded: list[dict[str, Any]], replayed: list[dict[str, Any]]) -> str | None:
    """The first difference between two lists of ``{"round_id", "result"}``, as a message.
    Every field of a recorded result must be replayed the same; a field this
    release adds that the recording has not (e.g. ``stakes``, added after
    recordings were committed) has nothing to be held against."""
    for i, (a, b) in enumerate(zip(recorded, replayed), 1):
        b = {**b, "result": {k: v for k, v in b["result"].items() if k in a["result"]}}
        if a != b:
            if a["round_id"] != b["round_id"]:
                return f"round {i} differs from the recording: round id recorded {a['round_id']}, replayed {b['round_id']}"
            path, was, now = first_difference(a["result"], b["result"])
            return (f"round {i} ({a['round_id']}) differs from the recording ({path}): "
                    f"recorded {_short(was)}, replayed {_short(now)}")
    if len(recorded) != len(replayed):
        return f"the recording has {len(recorded)} round result(s), the replay produced {len(replayed)}"
    return None
