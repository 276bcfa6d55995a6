"""A pyusb backend with an emulated USB card-shoe reader plugged in.

:class:`EmulatedShoeBackend` implements the methods of
``usb.backend.IBackend`` that pyusb calls (enumerate, descriptors, open and
close, configuration, interface claiming, bulk/interrupt transfers, string
descriptors), backed by a :class:`~drivers.emulators.shoe.ShoeEmulator`
that speaks TDL/1 on the device's endpoints, one frame per transfer. Hand
it to ``usb.core.find(backend=...)`` (or ``UsbShoe(backend=...)``): the USB
driver then runs, unchanged, on a machine with no USB at all.

The emulated reader is "plugged in" from construction until :meth:`close`
(or the end of a ``with`` block), which stops its threads.
"""

from __future__ import annotations

import array
import errno
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import usb.backend
import usb.core

from drivers.emulators.shoe import ShoeEmulator
from drivers.usb.shoe import DEFAULT_PID, DEFAULT_VID

EP_IN = 0x81
EP_OUT = 0x01
MAX_PACKET = 64
_GET_DESCRIPTOR = 0x06
_STRING = 0x03


@dataclass
class _Descriptor:
    """A descriptor: pyusb reads its fields as attributes."""

    values: dict[str, Any] = field(default_factory=dict)

    def __getattr__(self, name: str) -> Any:
        try:
            return self.__dict__["values"][name]
        except KeyError:
            raise AttributeError(name) from None


class _DeviceEnd:
    """The reader's side of its endpoints, as the emulator's byte transport.

    Every write is one IN transfer (the session writes one frame per call);
    reads return what the host sent on the OUT endpoint.
    """

    def __init__(self) -> None:
        self.timeout: float | None = 0.05
        self._cv = threading.Condition()
        self._rx = bytearray()  # OUT transfers, as bytes for the device
        self.tx: deque[bytes] = deque(maxlen=256)  # IN transfers waiting for the host (a bounded buffer)

    # device side (the emulator's session)
    def read(self, size: int = 1) -> bytes:
        with self._cv:
            if not self._rx:
                self._cv.wait(self.timeout)
            out = bytes(self._rx[:size])
            del self._rx[:size]
            return out

    @property
    def in_waiting(self) -> int:
        return len(self._rx)

    def write(self, data: bytes) -> int:
        with self._cv:
            self.tx.append(bytes(data))
            self._cv.notify_all()
        return len(data)

    def flush(self) -> None:
        pass

    def reset_input_buffer(self) -> None:
        with self._cv:
            self._rx.clear()

    def close(self) -> None:
        pass

    # host side (the backend's transfers)
    def host_write(self, data: bytes) -> None:
        with self._cv:
            self._rx += data
            self._cv.notify_all()

    def host_read(self, timeout: float) -> bytes | None:
        deadline = time.monotonic() + timeout
        with self._cv:
            while not self.tx:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._cv.wait(left)
            return self.tx.popleft()

    def host_reset(self) -> None:
        """A host opened the device: transfers nobody read are gone."""
        with self._cv:
            self.tx.clear()


class _Handle:
    def __init__(self, dev: object) -> None:
        self.dev = dev
        self.open = True


class EmulatedShoeBackend(usb.backend.IBackend):
    """pyusb backend with one emulated shoe reader (vid:pid, serial number) attached."""

    def __init__(
        self,
        *,
        vid: int = DEFAULT_VID,
        pid: int = DEFAULT_PID,
        serial_number: str = "EMU-SHOE-1",
        in_transfer: str = "interrupt",
        emulator: ShoeEmulator | None = None,
        **emulator_kwargs: Any,
    ) -> None:
        if in_transfer not in ("interrupt", "bulk"):
            raise ValueError("in_transfer is interrupt or bulk")
        self.vid, self.pid = vid, pid
        self.serial_number = serial_number
        self.in_attributes = 0x03 if in_transfer == "interrupt" else 0x02
        self.end = _DeviceEnd()
        self.emulator = emulator or ShoeEmulator(**emulator_kwargs)
        self.emulator.start()
        self.emulator.attach(self.end)
        self._device = object()  # the device's identity for pyusb
        self._configuration = 0
        self._claimed: set[int] = set()
        self._strings = {1: "tablesim", 2: "TDL/1 USB shoe reader (emulated)", 3: serial_number}
        self._plugged = True

    # -- plugging ---------------------------------------------------------------

    def close(self) -> None:
        """Unplug the reader: stop the emulator's threads."""
        if self._plugged:
            self._plugged = False
            self.emulator.stop()

    def __enter__(self) -> "EmulatedShoeBackend":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _check(self, handle: _Handle | None = None) -> None:
        if not self._plugged or (handle is not None and not handle.open):
            raise usb.core.USBError("No such device (it may have been disconnected)", -4, errno.ENODEV)

    # -- enumeration and descriptors ------------------------------------------------

    def enumerate_devices(self) -> Any:
        return [self._device] if self._plugged else []

    def get_parent(self, dev: object) -> None:
        return None

    def get_device_descriptor(self, dev: object) -> _Descriptor:
        return _Descriptor(dict(
            bLength=18, bDescriptorType=1, bcdUSB=0x0200, bDeviceClass=0, bDeviceSubClass=0,
            bDeviceProtocol=0, bMaxPacketSize0=64, idVendor=self.vid, idProduct=self.pid, bcdDevice=0x0100,
            iManufacturer=1, iProduct=2, iSerialNumber=3, bNumConfigurations=1,
            address=1, bus=1, port_number=1, port_numbers=(1,), speed=2,
        ))

    def get_configuration_descriptor(self, dev: object, config: int) -> _Descriptor:
        if config != 0:
            raise IndexError("configuration index out of range")
        return _Descriptor(dict(
            bLength=9, bDescriptorType=2, wTotalLength=32, bNumInterfaces=1, bConfigurationValue=1,
            iConfiguration=0, bmAttributes=0x80, bMaxPower=50, extra_descriptors=[],
        ))

    def get_interface_descriptor(self, dev: object, intf: int, alt: int, config: int) -> _Descriptor:
        if config != 0 or intf != 0 or alt != 0:
            raise IndexError("interface index out of range")
        return _Descriptor(dict(
            bLength=9, bDescriptorType=4, bInterfaceNumber=0, bAlternateSetting=0, bNumEndpoints=2,
            bInterfaceClass=0xFF, bInterfaceSubClass=0, bInterfaceProtocol=0, iInterface=0, extra_descriptors=[],
        ))

    def get_endpoint_descriptor(self, dev: object, ep: int, intf: int, alt: int, config: int) -> _Descriptor:
        if config != 0 or intf != 0 or alt != 0 or ep not in (0, 1):
            raise IndexError("endpoint index out of range")
        address, attributes = (EP_IN, self.in_attributes) if ep == 0 else (EP_OUT, 0x02)
        return _Descriptor(dict(
            bLength=7, bDescriptorType=5, bEndpointAddress=address, bmAttributes=attributes,
            wMaxPacketSize=MAX_PACKET, bInterval=1, bRefresh=0, bSynchAddress=0, extra_descriptors=[],
        ))

    # -- opening -------------------------------------------------------------------------

    def open_device(self, dev: object) -> _Handle:
        self._check()
        self.end.host_reset()
        return _Handle(dev)

    def close_device(self, dev_handle: _Handle) -> None:
        dev_handle.open = False

    def set_configuration(self, dev_handle: _Handle, config_value: int) -> None:
        self._check(dev_handle)
        if config_value not in (0, 1):
            raise usb.core.USBError("Invalid parameter", -2, errno.EINVAL)
        self._configuration = config_value

    def get_configuration(self, dev_handle: _Handle) -> int:
        self._check(dev_handle)
        return self._configuration

    def set_interface_altsetting(self, dev_handle: _Handle, intf: int, altsetting: int) -> None:
        self._check(dev_handle)
        if intf != 0 or altsetting != 0:
            raise usb.core.USBError("Invalid parameter", -2, errno.EINVAL)

    def claim_interface(self, dev_handle: _Handle, intf: int) -> None:
        self._check(dev_handle)
        if intf != 0:
            raise usb.core.USBError("Not found", -5, errno.ENOENT)
        self._claimed.add(intf)

    def release_interface(self, dev_handle: _Handle, intf: int) -> None:
        self._claimed.discard(intf)

    def is_kernel_driver_active(self, dev_handle: _Handle, intf: int) -> bool:
        return False

    def detach_kernel_driver(self, dev_handle: _Handle, intf: int) -> None:
        pass

    def attach_kernel_driver(self, dev_handle: _Handle, intf: int) -> None:
        pass

    def clear_halt(self, dev_handle: _Handle, ep: int) -> None:
        self._check(dev_handle)

    def reset_device(self, dev_handle: _Handle) -> None:
        self._check(dev_handle)
        self.end.host_reset()

    # -- transfers ------------------------------------------------------------------------

    def _write(self, dev_handle: _Handle, ep: int, intf: int, data: array.array, timeout: int) -> int:
        self._check(dev_handle)
        if ep != EP_OUT or intf not in self._claimed:
            raise usb.core.USBError("Invalid parameter", -2, errno.EINVAL)
        payload = data.tobytes()
        self.end.host_write(payload)
        return len(payload)

    def _read(self, dev_handle: _Handle, ep: int, intf: int, buff: array.array, timeout: int) -> int:
        self._check(dev_handle)
        if ep != EP_IN or intf not in self._claimed:
            raise usb.core.USBError("Invalid parameter", -2, errno.EINVAL)
        transfer = self.end.host_read((timeout or 1000) / 1000)
        if transfer is None:
            self._check(dev_handle)
            raise usb.core.USBTimeoutError("Operation timed out", -7, errno.ETIMEDOUT)
        if len(transfer) > len(buff) * buff.itemsize:
            raise usb.core.USBError("Overflow", -8, errno.EOVERFLOW)
        buff[: len(transfer)] = array.array("B", transfer)
        return len(transfer)

    def bulk_write(self, dev_handle: _Handle, ep: int, intf: int, data: array.array, timeout: int) -> int:
        return self._write(dev_handle, ep, intf, data, timeout)

    def intr_write(self, dev_handle: _Handle, ep: int, intf: int, data: array.array, timeout: int) -> int:
        return self._write(dev_handle, ep, intf, data, timeout)

    def bulk_read(self, dev_handle: _Handle, ep: int, intf: int, buff: array.array, timeout: int) -> int:
        return self._read(dev_handle, ep, intf, buff, timeout)

    def intr_read(self, dev_handle: _Handle, ep: int, intf: int, buff: array.array, timeout: int) -> int:
        return self._read(dev_handle, ep, intf, buff, timeout)

    def ctrl_transfer(
        self, dev_handle: _Handle, bmRequestType: int, bRequest: int, wValue: int, wIndex: int,
        data: array.array, timeout: int,
    ) -> int:
        """Only GET_DESCRIPTOR(STRING): pyusb's way to the serial number and product name."""
        self._check(dev_handle)
        if bRequest != _GET_DESCRIPTOR or (wValue >> 8) != _STRING or not (bmRequestType & 0x80):
            raise usb.core.USBError("Pipe error", -9, errno.EPIPE)
        index = wValue & 0xFF
        if index == 0:
            body = (0x0409).to_bytes(2, "little")  # one language: US English
        elif index in self._strings:
            body = self._strings[index].encode("utf-16-le")
        else:
            raise usb.core.USBError("Pipe error", -9, errno.EPIPE)
        raw = bytes((2 + len(body), _STRING)) + body
        n = min(len(raw), len(data) * data.itemsize)
        data[:n] = array.array("B", raw[:n])
        return n
