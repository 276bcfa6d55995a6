"""Helpers shared by the serial, USB, emulator and registry tests (no tests here).

Import what a test module needs: ``from test_serial_support import no_leaks, rig``.
The leak check is the one of tests/drivers/tdl/test_link_session.py:
every test must leave threads and file descriptors as it found them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


from drivers.emulators import make_emulator
from drivers.emulators.base import Emulator
from drivers.emulators.server import EmulatorServer
from drivers.events import DeviceEvent
from drivers.serial import LinkTiming, SerialDisplay, SerialShoe, SerialShuffler, SerialWheel
from drivers.serial.link_device import LinkDevice
from leakcheck import no_leaks, open_fds  # noqa: F401  (no_leaks: an autouse fixture)

#: link timing scaled down: 100 ms answers, 100 ms heartbeats, 3 misses. For
#: the tests of link loss, power loss and resends, which need the link to give
#: up fast (a loaded machine may also starve it into a spurious LinkLost).
FAST = LinkTiming.fast(ack_timeout=0.1)
#: the rig's default, for tests of what a device does, not of its link: a
#: heartbeat only misses after 3 s of starvation (a CI machine at load 19
#: starved a 100 ms one into a LinkLost that test never asked about); answers
#: still come in 250 ms, so a frame the emulator drops costs little.
STEADY = FAST.with_(ack_timeout=0.25, heartbeat_interval=1.0)
DRIVERS: dict[str, type[LinkDevice]] = {
    "shoe": SerialShoe,
    "shuffler": SerialShuffler,
    "display": SerialDisplay,
    "wheel": SerialWheel,
}




class Rig:
    """An emulator on a pty or a TCP port, and the serial driver connected to it."""

    def __init__(self, emulator: Emulator, server: EmulatorServer, driver: LinkDevice) -> None:
        self.emulator = emulator
        self.server = server
        self.driver = driver

    def events(self, n: int, timeout: float = 10.0) -> list[DeviceEvent]:  # pure waiting
        """The next ``n`` events (fails if they do not all come within ``timeout``)."""
        out: list[DeviceEvent] = []
        deadline = time.monotonic() + timeout
        while len(out) < n:
            left = deadline - time.monotonic()
            event = self.driver.next_event(max(0.0, left)) if left > 0 else None
            assert event is not None, f"only {len(out)} of {n} events came: {out}"
            out.append(event)
        return out

    def until(self, predicate: Callable[[DeviceEvent], bool], timeout: float = 10.0) -> list[DeviceEvent]:
        """Events up to and including the first that satisfies ``predicate``."""
        out: list[DeviceEvent] = []
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"no matching event within {timeout} s; got {out}"
            event = self.driver.next_event(left)
            assert event is not None, f"no matching event within {timeout} s; got {out}"
            out.append(event)
            if predicate(event):
                return out

    def quiet(self, seconds: float = 0.2) -> list[DeviceEvent]:
        """Whatever else arrives within ``seconds`` (expected: nothing)."""
        out = []
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            event = self.driver.next_event(left)
            if event is not None:
                out.append(event)
        return out


@contextmanager
def rig(
    kind: str,
    *,
    transport: str = "pty",
    faults: tuple[str, ...] | list[str] = (),
    seed: int = 11,
    time_scale: float = 0.0,
    driver_kw: dict[str, Any] | None = None,
    timing: LinkTiming = STEADY,
    **emulator_kw: Any,
) -> Iterator[Rig]:
    emulator = make_emulator(kind, seed=seed, time_scale=time_scale, faults=list(faults), timing=timing, **emulator_kw)
    with EmulatorServer(emulator, pty=transport == "pty", tcp=0 if transport == "socket" else None) as server:
        driver = DRIVERS[kind](server.url, timing=timing, **(driver_kw or {}))
        driver.open()
        try:
            yield Rig(emulator, server, driver)
        finally:
            driver.close()


def wait_for(predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.005)


def types(events: list[DeviceEvent]) -> list[str]:
    return [type(e).__name__ for e in events]
