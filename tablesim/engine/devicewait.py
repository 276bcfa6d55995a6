"""Waiting for the next report of any of a table's devices.

One device: its own blocking ``next_event(timeout)``. Several (the football
table's shoe and draw display): each device is asked once, then the pump
sleeps on one ``threading.Event`` that every device's reader thread sets
when it queues a report (``Device.watch``), so a report is taken the moment
it arrives and nothing polls. Devices that report only when asked (mocks)
answer the first pass at once; between two passes only the table's own
commands could change what they would say, and none runs while it waits.

The table's ``pump`` and the console's runner both take reports through it.
"""

from __future__ import annotations

import threading
import time
from typing import Sequence

from drivers.base import Device
from drivers.events import DeviceEvent


class DeviceWaiter:
    def __init__(self) -> None:
        self._wake = threading.Event()
        self._watched: set[int] = set()

    def _watch(self, devices: Sequence[Device]) -> None:
        for device in devices:
            if id(device) not in self._watched:
                self._watched.add(id(device))
                watch = getattr(device, "watch", None)
                if watch is not None:
                    watch(self._wake.set)

    def next_event(self, devices: Sequence[Device], timeout: float) -> DeviceEvent | None:
        """The next report of any of ``devices``, waiting up to ``timeout`` seconds."""
        if len(devices) == 1:
            return devices[0].next_event(timeout)
        for device in devices:  # what is queued now (mock devices: what they report when asked)
            event = device.next_event(0)
            if event is not None:
                return event
        if timeout <= 0:
            return None
        self._watch(devices)
        wake = self._wake
        deadline = time.monotonic() + timeout
        while True:
            wake.clear()  # before asking: a report queued after the ask wakes the wait below
            for device in devices:
                event = device.next_event(0)
                if event is not None:
                    return event
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            wake.wait(remaining)
