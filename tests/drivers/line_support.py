"""Helpers of the line-protocol tests (no tests here): a spec from a TOML
text, an emulator or a raw pty as the device, and the driver on it."""

from __future__ import annotations

import time
import tomllib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from drivers.emulators.server import EmulatorServer
from drivers.emulators.transport import PtyPort
from drivers.events import DeviceEvent
from drivers.lineproto.emulator import LineEmulator
from drivers.lineproto.spec import LineSpec, line_settings
from drivers.registry import open_device
from tablecore.validate import Reader
from tablesim.harness.tableconfig import load_table_config
from tablesim.profiles import config_root


def settings_of(config: str, kind: str) -> dict[str, Any]:
    """The ``[devices.<kind>]`` settings of an example configuration, as in its file."""
    return dict(load_table_config(config).devices[kind].settings)


def spec_of(kind: str, settings: dict[str, Any]) -> LineSpec:
    return line_settings(kind, Reader({"url": "x", **settings}, f"devices.{kind}"))["spec"]


def toml_settings(text: str) -> dict[str, Any]:
    return tomllib.loads(text)


def wait_events(device: Any, n: int, timeout: float = 10.0) -> list[DeviceEvent]:  # pure waiting
    out: list[DeviceEvent] = []
    deadline = time.monotonic() + timeout
    while len(out) < n and (left := deadline - time.monotonic()) > 0:
        event = device.next_event(left)
        if event is not None:
            out.append(event)
    assert len(out) == n, f"only {len(out)} of {n} events came: {out}"
    return out


def until(device: Any, predicate: Callable[[DeviceEvent], bool], timeout: float = 10.0) -> list[DeviceEvent]:
    out: list[DeviceEvent] = []
    deadline = time.monotonic() + timeout
    while (left := deadline - time.monotonic()) > 0:
        event = device.next_event(left)
        if event is None:
            continue
        out.append(event)
        if predicate(event):
            return out
    raise AssertionError(f"no matching event within {timeout} s; got {out}")


def quiet(device: Any, seconds: float = 0.3) -> list[DeviceEvent]:
    out = []
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        event = device.next_event(left)
        if event is not None:
            out.append(event)
    return out


@contextmanager
def emulated(kind: str, settings: dict[str, Any], *, tcp: bool = False, cue: bool = True,
             **emulator: Any) -> Iterator[tuple[Any, LineEmulator, EmulatorServer]]:
    """The line emulator of ``settings`` on a pty (or TCP) and the line driver on it."""
    emu = LineEmulator(spec_of(kind, settings), **{"seed": 1, "time_scale": 0.0, **emulator})
    with EmulatorServer(emu, pty=not tcp, tcp=0 if tcp else None) as server:
        device = open_device(kind, "line", {**settings, "url": server.url})
        if cue:
            device.cues.append(emu.cue)
        try:
            yield device, emu, server
        finally:
            device.close()


@contextmanager
def raw_device(kind: str, settings: dict[str, Any]) -> Iterator[tuple[Any, PtyPort]]:
    """A bare pty as the device (the test writes its bytes) and the line driver on it."""
    port = PtyPort()
    try:
        device = open_device(kind, "line", {**settings, "url": port.path})
        try:
            yield device, port
        finally:
            device.close()
    finally:
        port.close()


def example_configs() -> list[str]:
    """Every configuration under config/tables/ that names devices."""
    out = []
    for path in sorted((config_root() / "tables").glob("*.toml")):
        if "[devices." in path.read_text():
            out.append(path.stem)
    return out


class Responder:
    """The device's side of a raw pty, played by the test: ``answer(line)``
    gives the lines to write back for each host line (``silent`` stops it)."""

    def __init__(self, port: PtyPort, spec: LineSpec, answer: Callable[[str], list[str]]) -> None:
        import threading

        from drivers.lineproto.codec import LineDecoder

        self.port, self.spec, self.answer = port, spec, answer
        self.heard: list[str] = []
        self.silent = False
        self._decoder = LineDecoder(spec.fmt)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="test-responder", daemon=True)

    def __enter__(self) -> "Responder":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def write(self, *payloads: str) -> None:
        for payload in payloads:
            self.port.write(self.spec.fmt.encode(payload))

    def _loop(self) -> None:
        while not self._stop.is_set():
            data = self.port.read(256)
            for line in self._decoder.feed(data) if data else ():
                if isinstance(line, str):
                    self.heard.append(line)
                    if not self.silent:
                        self.write(*self.answer(line))
