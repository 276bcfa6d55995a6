"""A USB HID card reader: a reader in the shoe that enumerates as a
keyboard and types each card's code, then Enter (``backend = "hid"``).

The driver reads the keyboard's interrupt IN endpoint itself through pyusb
(the kernel's keyboard driver is detached while the table holds the reader,
so the codes never reach a console, and reattached on close), decodes the
boot-protocol reports (modifier byte, reserved byte, six key usages) with a
keymap, and maps each code to a card by the configuration's table (or reads
it as a card code, ``QH``, when there is none). A card read while the shoe
is disarmed is fault 204, never dealt; a code that is no card is logged and
never an event. An unplugged reader is ``LinkLost``; plugged in again, it
is found, opened and ``LinkRestored``.
"""

from __future__ import annotations

import errno
import threading
from typing import Any

import structlog

from drivers.codeshoe import CodeShoe, code_settings
from drivers.events import LinkLost, LinkRestored
from drivers.serial.link_device import DeviceUnavailable
from tablecore.validate import Reader
from tablecore import threadnames

log = structlog.get_logger(__name__)

ENTER = 0x28
SHIFT = 0x22  # left and right shift bits of the modifier byte
#: boot keyboard usage -> (character, with shift): the US layout's letters, digits and a few signs
US: dict[int, tuple[str, str]] = {
    **{0x04 + i: (c, c.upper()) for i, c in enumerate("abcdefghijklmnopqrstuvwxyz")},
    **{0x1E + i: (d, s) for i, (d, s) in enumerate(zip("1234567890", "!@#$%^&*()"))},
    0x2C: (" ", " "), 0x2D: ("-", "_"), 0x2E: ("=", "+"), 0x36: (",", "<"), 0x37: (".", ">"), 0x38: ("/", "?"),
}
KEYMAPS = {"us": US}


class KeyboardDecoder:
    """Boot-protocol reports in, typed codes out (one per Enter)."""

    def __init__(self, keymap: dict[int, tuple[str, str]] = US, max_length: int = 64) -> None:
        self.keymap, self.max_length = keymap, max_length
        self._held: set[int] = set()
        self._typed: list[str] = []

    def feed(self, report: bytes) -> list[str]:
        if len(report) < 3:
            return []
        modifiers, keys = report[0], [k for k in report[2:8] if k]
        if 0x01 in keys:  # ErrorRollOver: too many keys at once, the report says nothing
            return []
        codes = []
        for key in keys:
            if key in self._held:
                continue  # still held down: typed once
            if key == ENTER:
                code, self._typed = "".join(self._typed), []
                if code:
                    codes.append(code)
            elif key in self.keymap and len(self._typed) < self.max_length:
                self._typed.append(self.keymap[key][1 if modifiers & SHIFT else 0])
        self._held = set(keys)
        return codes


def hid_settings(kind: str, reader: Reader) -> dict[str, Any]:
    """``[devices.shoe]`` with ``backend = "hid"``: vid, pid, serial_number, interface, keymap, cards, reconnect."""
    if kind != "shoe":
        raise reader.fail(None, f"the hid backend has no {kind} (it offers: shoe)")
    out: dict[str, Any] = {"vid": reader.int("vid", lo=0, hi=0xFFFF), "pid": reader.int("pid", lo=0, hi=0xFFFF)}
    for key in ("name", "serial_number"):
        if reader.has(key):
            out[key] = reader.str(key)
    out["interface"] = reader.int("interface", 0, lo=0, hi=255)
    out["keymap"] = reader.str("keymap", "us", choices=KEYMAPS)
    return code_settings(reader, out)


class HidShoe(CodeShoe):
    def __init__(self, vid: int, pid: int, *, serial_number: str | None = None, interface: int = 0,
                 keymap: str = "us", cards: dict[str, str] | None = None, backend: Any = None,
                 name: str | None = None, reconnect_interval: float = 1.0, transport_wrapper: Any = None) -> None:
        CodeShoe.__init__(self, name, cards)
        self.vid, self.pid, self.serial_number, self.interface = vid, pid, serial_number, interface
        self.keymap, self.backend = KEYMAPS[keymap], backend
        self.reconnect_interval = reconnect_interval
        self.cues: list[Any] = []
        self.health.link_up = False
        self._closing = threading.Event()
        self._thread: threading.Thread | None = None
        self._dev: Any = None
        self._endpoint: Any = None
        self._detached = False
        self._log = log.bind(device=self.name, usb=self.where())

    @classmethod
    def from_settings(cls, settings: dict[str, Any]) -> "HidShoe":
        return cls(**settings)

    def where(self) -> str:
        return f"usb {self.vid:04x}:{self.pid:04x}" + (f" serial {self.serial_number}" if self.serial_number else "")

    def log_fields(self) -> dict[str, Any]:
        return {"usb": self.where()}

    # -- the reader ------------------------------------------------------------------

    def _attach(self) -> None:
        """Find the reader, take its keyboard interface from the kernel, find its IN endpoint."""
        import usb.core
        import usb.util

        match = (lambda d: usb.util.get_string(d, d.iSerialNumber) == self.serial_number) \
            if self.serial_number else None
        try:
            dev = usb.core.find(idVendor=self.vid, idProduct=self.pid, backend=self.backend, custom_match=match)
        except (usb.core.USBError, ValueError) as exc:
            raise DeviceUnavailable(f"{self.name}: cannot look for {self.where()}: {exc}") from None
        except usb.core.NoBackendError:
            raise DeviceUnavailable(f"{self.name}: no libusb backend (install libusb-1.0)") from None
        if dev is None:
            raise DeviceUnavailable(f"{self.name}: no HID card reader found at {self.where()}")
        try:
            self._detached = bool(dev.is_kernel_driver_active(self.interface))
            if self._detached:
                dev.detach_kernel_driver(self.interface)
            dev.set_configuration()
            usb.util.claim_interface(dev, self.interface)
            intf = dev.get_active_configuration()[(self.interface, 0)]
            self._endpoint = usb.util.find_descriptor(intf, custom_match=lambda e: usb.util.endpoint_direction(
                e.bEndpointAddress) == usb.util.ENDPOINT_IN)
        except usb.core.USBError as exc:
            raise DeviceUnavailable(f"{self.name}: cannot take {self.where()}: {exc}") from None
        if self._endpoint is None:
            raise DeviceUnavailable(f"{self.name}: {self.where()} has no IN endpoint on interface {self.interface}")
        self._dev = dev

    def _release(self) -> None:
        import usb.core
        import usb.util

        dev, self._dev = self._dev, None
        if dev is None:
            return
        try:
            usb.util.release_interface(dev, self.interface)
            if self._detached:
                dev.attach_kernel_driver(self.interface)  # the keyboard is the system's again
        except usb.core.USBError:
            pass  # unplugged: nothing to give back
        usb.util.dispose_resources(dev)

    def open(self) -> None:
        if self._thread is not None:
            return
        self._attach()
        self.health.link_up = True
        self._thread = threadnames.thread(self._read_loop, f"hid-{self.name}-reader")
        self._thread.start()
        self._log.info("opened")

    def close(self) -> None:
        self._closing.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()
        self._thread = None
        self._release()
        self.health.link_up = False
        self._events.put(None)
        self.reported()

    def _read_loop(self) -> None:
        import usb.core

        decoder = KeyboardDecoder(self.keymap)
        while not self._closing.is_set():
            try:
                report = bytes(self._endpoint.read(self._endpoint.wMaxPacketSize, timeout=100))
            except usb.core.USBTimeoutError:
                continue
            except usb.core.USBError as exc:
                if self._closing.is_set():
                    return
                self._lost(exc)
                decoder = KeyboardDecoder(self.keymap)
                continue
            for code in decoder.feed(report):
                self._code(code)

    def _lost(self, exc: Exception) -> None:
        gone = getattr(exc, "errno", None) == errno.ENODEV
        self._put(LinkLost(f"the reader {'was unplugged' if gone else f'failed: {exc}'}", device=self.name))
        self.health.link_up = False
        self._log.warning("reader lost", error=str(exc))
        self._release()
        while not self._closing.wait(self.reconnect_interval):
            try:
                self._attach()
            except DeviceUnavailable:
                continue
            self.health.link_up = True
            self._put(LinkRestored(device=self.name))
            self._log.info("reader back")
            return
