"""The USB card-shoe reader against the emulated pyusb backend (no USB needed)."""

from __future__ import annotations

import sys

import pytest
import usb.core

from drivers.events import MISREAD, CardRead, FaultRaised, ShoeCount
from drivers.usb.emulated_backend import EP_IN, EP_OUT, EmulatedShoeBackend
from drivers.usb.shoe import UsbShoe, UsbUnavailable
from tablecore.cards import DECK
from test_serial_support import FAST, no_leaks  # noqa: F401 - fixture


def collect(shoe: UsbShoe, n: int, timeout: float = 3.0) -> list:
    out = []
    while len(out) < n:
        event = shoe.next_event(timeout)
        assert event is not None, f"only {len(out)} of {n} events: {out}"
        out.append(event)
    return out


@pytest.mark.parametrize("in_transfer", ["interrupt", "bulk"])
def test_a_full_deal_over_usb(in_transfer: str) -> None:
    with EmulatedShoeBackend(seed=6, time_scale=0, timing=FAST, in_transfer=in_transfer) as backend:
        with UsbShoe(backend=backend, timing=FAST) as shoe:
            assert shoe.identity["model"] == "TDL-SHOE-EMU"
            shoe.load_shoe("P1", 1)
            shoe.arm("R1", 52)
            events = collect(shoe, 56)
            cards = [e for e in events if isinstance(e, CardRead)]
            assert [c.index for c in cards] == list(range(52))
            assert sorted(c.card.index for c in cards) == [c.index for c in DECK]
            assert len([e for e in events if isinstance(e, ShoeCount)]) == 4
            assert shoe.health.ok


def test_pyusb_sees_the_emulated_reader() -> None:
    with EmulatedShoeBackend(timing=FAST, serial_number="SN-42") as backend:
        dev = usb.core.find(idVendor=0x1209, idProduct=0x0001, backend=backend)
        assert dev is not None
        assert dev.serial_number == "SN-42" and "shoe reader" in dev.product
        dev.set_configuration()
        intf = dev.get_active_configuration()[(0, 0)]
        assert sorted(ep.bEndpointAddress for ep in intf) == [EP_OUT, EP_IN]
        with pytest.raises(usb.core.USBTimeoutError):
            dev.read(EP_IN, 256, timeout=20)  # nothing to say before HEL
        usb.util.dispose_resources(dev)


def test_one_frame_per_transfer() -> None:
    with EmulatedShoeBackend(timing=FAST, time_scale=0) as backend:
        with UsbShoe(backend=backend, timing=FAST) as shoe:
            shoe.load_shoe("P1", 1)
            shoe.arm("R1", 3)
            collect(shoe, 3)
        # Every transfer the reader queued was one whole frame.
        assert all(t[0] == 0x02 and t.endswith(b"\r\n") and t.count(b"\r\n") == 1 for t in backend.end.tx)


def test_faults_reach_the_usb_driver() -> None:
    with EmulatedShoeBackend(seed=1, timing=FAST, time_scale=0, faults=["misread@card=1", "crc@frame=3"]) as backend:
        with UsbShoe(backend=backend, timing=FAST) as shoe:
            shoe.load_shoe("P1", 1)
            shoe.arm("R1", 3)
            events = collect(shoe, 3)
            assert isinstance(events[0], FaultRaised) and events[0].code == MISREAD
            assert [e.index for e in events[1:]] == [1, 2]


def test_serial_number_selects_the_reader() -> None:
    with EmulatedShoeBackend(timing=FAST, serial_number="A1") as backend:
        shoe = UsbShoe(backend=backend, serial_number="B2", timing=FAST)
        with pytest.raises(UsbUnavailable) as info:
            shoe.open()
        assert "no USB shoe reader found" in str(info.value) and "B2" in str(info.value)


def test_unplugging_is_link_lost() -> None:
    with EmulatedShoeBackend(timing=FAST) as backend:
        with UsbShoe(backend=backend, timing=FAST, reconnect_interval=None) as shoe:
            backend.close()  # unplugged
            event = shoe.next_event(2)
            assert type(event).__name__ == "LinkLost" and "transport" in event.reason
            assert not shoe.health.link_up


def test_missing_libusb_is_one_line_without_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    import usb.backend.libusb1

    monkeypatch.setattr(usb.backend.libusb1, "get_backend", lambda *a, **k: None)
    shoe = UsbShoe(timing=FAST)
    with pytest.raises(UsbUnavailable) as info:
        shoe.open()
    assert str(info.value) == "usb backend disabled: libusb 1.0 was not found (install libusb-1.0-0)"


def test_missing_pyusb_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [m for m in sys.modules if m == "usb" or m.startswith("usb.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "usb", None)
    shoe = UsbShoe(timing=FAST)
    with pytest.raises(UsbUnavailable) as info:
        shoe.open()
    assert "pyusb is not installed" in str(info.value) and "\n" not in str(info.value)
