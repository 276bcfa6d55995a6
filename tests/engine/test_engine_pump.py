"""The device pump (tablesim/engine/devicewait.py): one wait over several devices,
woken by the report itself, never a sleep loop."""

from __future__ import annotations

import queue
import threading
import time

from drivers.base import Device
from drivers.events import CardRead
from tablecore.cards import parse_dealt
from tablesim.engine.devicewait import DeviceWaiter


class ThreadedDevice(Device):
    """Queues reports from another thread, as a driver's reader thread does."""

    kind = "shoe"

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.events: queue.Queue = queue.Queue()
        self.asked = 0

    def next_event(self, timeout=0.0):
        self.asked += 1
        try:
            return self.events.get(timeout=timeout) if timeout else self.events.get_nowait()
        except queue.Empty:
            return None

    def report_later(self, seconds: float, event) -> None:
        def later() -> None:
            time.sleep(seconds)
            self.events.put(event)
            self.reported()

        threading.Thread(target=later, daemon=True).start()


def card(code: str, device: str) -> CardRead:
    return CardRead(device=device, round_id="R1", index=1, card=parse_dealt(code).card)


def test_a_report_of_the_second_device_wakes_the_wait_at_once():
    a, b = ThreadedDevice("display"), ThreadedDevice("shoe")
    pump = DeviceWaiter()
    b.report_later(0.2, card("AS", "shoe"))
    start = time.monotonic()
    event = pump.next_event([a, b], 5.0)
    waited = time.monotonic() - start
    assert event is not None and event.device == "shoe"
    assert 0.15 <= waited < 2.0
    # woken by the report, not by polling: each device was asked a handful of times, not every few ms
    assert a.asked <= 3 and b.asked <= 3


def test_nothing_reported_returns_none_after_the_timeout_and_reports_queued_before_come_first():
    a, b = ThreadedDevice("display"), ThreadedDevice("shoe")
    pump = DeviceWaiter()
    start = time.monotonic()
    assert pump.next_event([a, b], 0.3) is None
    assert time.monotonic() - start >= 0.3
    assert a.asked <= 3
    a.events.put(card("KH", "display"))
    b.events.put(card("2C", "shoe"))
    assert pump.next_event([a, b], 0).device == "display"
    assert pump.next_event([a, b], 0).device == "shoe"
    assert pump.next_event([a, b], 0) is None
