"""A pyusb backend with an emulated HID card reader plugged in: a boot
keyboard (interface class 3, subclass 1, protocol 1, one interrupt IN
endpoint of 8-byte reports) that types card codes, then Enter.

Hand it to ``HidShoe(backend=...)`` (``usb.core.find(backend=...)``): the
HID driver then runs unchanged on a machine with no USB. ``type_code``
types one code; a dealer (``cue``, connected by ``--emulated``) types the
cards of a seeded pack while the shoe is armed. ``unplug`` and ``replug``
do what they say; the kernel's keyboard driver is bound on every plug
(``kernel_driver_attached``), so a driver must detach it and give it back.
"""

from __future__ import annotations

import array
import errno
import random
import threading
from collections import deque
from typing import Any

import usb.backend
import usb.core

from drivers.usb.emulated_backend import _Descriptor, _Handle
from drivers.usb.hid import ENTER, US
from tablecore.cards import DECK

EP_IN = 0x81
_KEY_OF = {char: (usage, shifted) for usage, pair in US.items() for shifted, char in enumerate(pair)}
_GET_DESCRIPTOR, _STRING = 0x06, 0x03


class EmulatedHidReader(usb.backend.IBackend):
    def __init__(self, *, vid: int = 0x1209, pid: int = 0x0002, serial_number: str = "EMU-HID-1",
                 cards: dict[str, str] | None = None, seed: int | None = None, time_scale: float = 1.0,
                 card_interval: float = 0.8) -> None:
        self.vid, self.pid, self.serial_number = vid, pid, serial_number
        self.codes = {card: code for code, card in (cards or {}).items()}  # card -> the code typed for it
        self.rng = random.Random(seed)
        self.pack = [c for c in DECK if not self.codes or c.code in self.codes]
        self.rng.shuffle(self.pack)
        self.time_scale, self.card_interval = time_scale, card_interval
        self.kernel_driver_attached = True
        self._plugged, self._device = True, object()
        self._cv = threading.Condition()
        self._reports: deque[bytes] = deque()
        self._claimed: set[int] = set()
        self._dealing: tuple[int, int] | None = None  # (generation, cards left)
        self._gen = 0
        self._stop = threading.Event()
        self._dealer: threading.Thread | None = None

    # -- the reader's side ----------------------------------------------------------

    def type_code(self, code: str) -> None:
        """The reader types ``code`` then Enter: one report per key pressed, one per release."""
        with self._cv:
            if getattr(self, "_muted", False):
                return
            for char in code:
                usage, shifted = _KEY_OF[char]
                self._reports.append(bytes([0x02 if shifted else 0, 0, usage, 0, 0, 0, 0, 0]))
                self._reports.append(bytes(8))
            self._reports.append(bytes([0, 0, ENTER, 0, 0, 0, 0, 0]))
            self._reports.append(bytes(8))
            self._cv.notify_all()

    def mute(self, on: bool) -> None:
        """The reader stops typing (True) until unmuted (False)."""
        with self._cv:
            self._muted = on

    def unplug(self) -> None:
        with self._cv:
            self._plugged = False
            self._reports.clear()
            self._cv.notify_all()

    def replug(self) -> None:
        with self._cv:
            self._plugged, self._device = True, object()
            self.kernel_driver_attached = True  # the kernel binds its keyboard driver to a new device
            self._claimed.clear()

    def cue(self, action: str, values: dict[str, Any]) -> None:
        """The dealer sees the table arm or disarm the shoe."""
        with self._cv:
            self._gen += 1
            self._dealing = (self._gen, int(values.get("max_cards", 0))) if action == "arm" else None
            if self._dealer is None:
                self._dealer = threading.Thread(target=self._deal, name="emu-hid-dealer", daemon=True)
                self._dealer.start()
            self._cv.notify_all()

    def _deal(self) -> None:
        while not self._stop.is_set():
            with self._cv:
                if not self._dealing or not self._dealing[1] or not self.pack:
                    self._cv.wait(0.1)
                    continue
                gen, left = self._dealing
            if self._stop.wait(self.card_interval * self.time_scale):
                return
            with self._cv:
                if self._dealing is None or self._dealing[0] != gen or not self.pack:
                    continue
                self._dealing = (gen, left - 1)
                card = self.pack.pop()
            self.type_code(self.codes.get(card.code, card.code))

    def close(self) -> None:
        self._stop.set()
        if self._dealer is not None:
            self._dealer.join()
            self._dealer = None

    # -- what pyusb asks ------------------------------------------------------------

    def _check(self, handle: _Handle | None = None) -> None:
        if not self._plugged or (handle is not None and (not handle.open or handle.dev is not self._device)):
            raise usb.core.USBError("No such device (it may have been disconnected)", -4, errno.ENODEV)

    def enumerate_devices(self) -> Any:
        return [self._device] if self._plugged else []

    def get_parent(self, dev: object) -> None:
        return None

    def get_device_descriptor(self, dev: object) -> _Descriptor:
        return _Descriptor(dict(
            bLength=18, bDescriptorType=1, bcdUSB=0x0200, bDeviceClass=0, bDeviceSubClass=0, bDeviceProtocol=0,
            bMaxPacketSize0=8, idVendor=self.vid, idProduct=self.pid, bcdDevice=0x0100, iManufacturer=1,
            iProduct=2, iSerialNumber=3, bNumConfigurations=1, address=2, bus=1, port_number=2, port_numbers=(2,),
            speed=1))

    def get_configuration_descriptor(self, dev: object, config: int) -> _Descriptor:
        if config != 0:
            raise IndexError("configuration index out of range")
        return _Descriptor(dict(bLength=9, bDescriptorType=2, wTotalLength=34, bNumInterfaces=1,
                                bConfigurationValue=1, iConfiguration=0, bmAttributes=0xA0, bMaxPower=50,
                                extra_descriptors=[]))

    def get_interface_descriptor(self, dev: object, intf: int, alt: int, config: int) -> _Descriptor:
        if (config, intf, alt) != (0, 0, 0):
            raise IndexError("interface index out of range")
        return _Descriptor(dict(bLength=9, bDescriptorType=4, bInterfaceNumber=0, bAlternateSetting=0,
                                bNumEndpoints=1, bInterfaceClass=3, bInterfaceSubClass=1, bInterfaceProtocol=1,
                                iInterface=0, extra_descriptors=[]))

    def get_endpoint_descriptor(self, dev: object, ep: int, intf: int, alt: int, config: int) -> _Descriptor:
        if (config, intf, alt, ep) != (0, 0, 0, 0):
            raise IndexError("endpoint index out of range")
        return _Descriptor(dict(bLength=7, bDescriptorType=5, bEndpointAddress=EP_IN, bmAttributes=0x03,
                                wMaxPacketSize=8, bInterval=10, bRefresh=0, bSynchAddress=0, extra_descriptors=[]))

    def open_device(self, dev: object) -> _Handle:
        self._check()
        return _Handle(dev)

    def close_device(self, dev_handle: _Handle) -> None:
        dev_handle.open = False

    def set_configuration(self, dev_handle: _Handle, config_value: int) -> None:
        self._check(dev_handle)

    def get_configuration(self, dev_handle: _Handle) -> int:
        self._check(dev_handle)
        return 1

    def claim_interface(self, dev_handle: _Handle, intf: int) -> None:
        self._check(dev_handle)
        if self.kernel_driver_attached:
            raise usb.core.USBError("Resource busy (the kernel's keyboard driver has it)", -6, errno.EBUSY)
        self._claimed.add(intf)

    def release_interface(self, dev_handle: _Handle, intf: int) -> None:
        self._claimed.discard(intf)

    def is_kernel_driver_active(self, dev_handle: _Handle, intf: int) -> bool:
        self._check(dev_handle)
        return self.kernel_driver_attached

    def detach_kernel_driver(self, dev_handle: _Handle, intf: int) -> None:
        self._check(dev_handle)
        self.kernel_driver_attached = False

    def attach_kernel_driver(self, dev_handle: _Handle, intf: int) -> None:
        self._check(dev_handle)
        self.kernel_driver_attached = True

    def intr_read(self, dev_handle: _Handle, ep: int, intf: int, buff: array.array, timeout: int) -> int:
        self._check(dev_handle)
        if ep != EP_IN or intf not in self._claimed:
            raise usb.core.USBError("Invalid parameter", -2, errno.EINVAL)
        with self._cv:
            if not self._reports:
                self._cv.wait((timeout or 1000) / 1000)
            self._check(dev_handle)
            if not self._reports:
                raise usb.core.USBTimeoutError("Operation timed out", -7, errno.ETIMEDOUT)
            report = self._reports.popleft()
        buff[: len(report)] = array.array("B", report)
        return len(report)

    def ctrl_transfer(self, dev_handle: _Handle, bmRequestType: int, bRequest: int, wValue: int, wIndex: int,
                      data: array.array, timeout: int) -> int:
        self._check(dev_handle)
        strings = {1: "tablesim", 2: "HID card reader (emulated)", 3: self.serial_number}
        index = wValue & 0xFF
        if bRequest != _GET_DESCRIPTOR or (wValue >> 8) != _STRING or (index and index not in strings):
            raise usb.core.USBError("Pipe error", -9, errno.EPIPE)
        body = (0x0409).to_bytes(2, "little") if index == 0 else strings[index].encode("utf-16-le")
        raw = bytes((2 + len(body), _STRING)) + body
        n = min(len(raw), len(data) * data.itemsize)
        data[:n] = array.array("B", raw[:n])
        return n
