"""USB card-shoe reader, driven with pyusb: the same TDL/1 messages as the
serial shoe, one frame per transfer.

Frames from the reader arrive one per transfer on its IN endpoint (bulk or
interrupt); commands go out one per transfer on its OUT endpoint. The link
layer runs unchanged on top of :class:`UsbTransport`, which makes the two
endpoints look like a serial port.

The pyusb backend is injectable: ``UsbShoe(vid, pid, backend=...)`` (the
emulated backend in :mod:`drivers.usb.emulated_backend` stands in for a
real reader). With no backend given, libusb 1.0 is used; if it is missing,
opening raises :class:`UsbUnavailable` with a one-line reason, and only
this backend is affected.
"""

from __future__ import annotations

import threading
from typing import Any

from drivers.tdl import MAX_FRAME_LEN
from drivers.serial.link_device import DeviceUnavailable
from drivers.serial.shoe import SerialShoe

#: pid.codes' test IDs, which the emulated reader presents; set a real reader's in the table config.
DEFAULT_VID = 0x1209
DEFAULT_PID = 0x0001


class UsbUnavailable(DeviceUnavailable):
    """pyusb or libusb is missing, or no reader is plugged in."""


def default_backend() -> Any:
    """libusb 1.0 through pyusb, or UsbUnavailable saying what is missing."""
    try:
        import usb.backend.libusb1 as libusb1
    except ImportError as exc:
        raise UsbUnavailable(f"usb backend disabled: pyusb is not installed ({exc})") from None
    backend = libusb1.get_backend()
    if backend is None:
        raise UsbUnavailable("usb backend disabled: libusb 1.0 was not found (install libusb-1.0-0)")
    return backend


class UsbTransport:
    """Two USB endpoints as the byte transport ``LinkSession`` expects.

    ``write`` sends one transfer (the session writes one whole frame per
    call); ``read`` returns bytes of the transfers received, one transfer
    read at a time, waiting at most ``timeout`` seconds.
    """

    def __init__(self, device: Any, interface: int, ep_in: Any, ep_out: Any) -> None:
        import usb.core

        self._usb_core = usb.core
        self.device = device
        self.interface = interface
        self.ep_in = ep_in
        self.ep_out = ep_out
        self.timeout: float | None = 0.05
        self._buffer = bytearray()
        self._read_lock = threading.Lock()
        self._closed = False

    def _read_transfer(self) -> None:
        ms = max(1, int((self.timeout if self.timeout is not None else 1.0) * 1000))
        try:
            data = self.ep_in.read(max(MAX_FRAME_LEN, self.ep_in.wMaxPacketSize), timeout=ms)
        except self._usb_core.USBTimeoutError:
            return
        self._buffer += bytes(data)

    def read(self, size: int = 1) -> bytes:
        with self._read_lock:
            if self._closed:
                raise OSError("USB transport closed")
            if not self._buffer:
                self._read_transfer()
            out = bytes(self._buffer[:size])
            del self._buffer[:size]
            return out

    @property
    def in_waiting(self) -> int:
        return len(self._buffer)

    def write(self, data: bytes) -> int:
        ms = max(1, int((self.timeout if self.timeout is not None else 1.0) * 1000)) * 10
        return self.ep_out.write(bytes(data), timeout=ms)

    def flush(self) -> None:
        pass  # a transfer has left when write returns

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        import usb.util

        try:
            usb.util.release_interface(self.device, self.interface)
        except Exception:  # noqa: BLE001 - an unplugged device cannot release anything
            pass
        usb.util.dispose_resources(self.device)


class UsbShoe(SerialShoe):
    """The card-shoe reader on USB. Everything above the transport is the serial shoe's."""

    def __init__(
        self,
        vid: int = DEFAULT_VID,
        pid: int = DEFAULT_PID,
        *,
        serial_number: str | None = None,
        interface: int = 0,
        backend: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(None, **kwargs)
        self.vid, self.pid = vid, pid
        self.serial_number = serial_number
        self.interface = interface
        self.backend = backend

    def where(self) -> str:
        sn = f" serial {self.serial_number}" if self.serial_number else ""
        return f"usb {self.vid:04x}:{self.pid:04x}{sn}"

    def open_transport(self) -> UsbTransport:
        try:
            import usb.core
            import usb.util
        except ImportError as exc:
            raise UsbUnavailable(f"usb backend disabled: pyusb is not installed ({exc})") from None
        backend = self.backend if self.backend is not None else default_backend()
        wanted = self.serial_number

        def same_serial(dev: Any) -> bool:
            try:
                return dev.serial_number == wanted
            except (ValueError, usb.core.USBError):
                return False

        match = same_serial if wanted is not None else None

        try:
            device = usb.core.find(idVendor=self.vid, idProduct=self.pid, backend=backend, custom_match=match)
        except usb.core.USBError as exc:
            raise UsbUnavailable(f"{self.name}: cannot list USB devices: {exc}") from None
        if device is None:
            raise UsbUnavailable(f"{self.name}: no USB shoe reader found at {self.where()}")
        try:
            try:
                if device.is_kernel_driver_active(self.interface):
                    device.detach_kernel_driver(self.interface)
            except (NotImplementedError, usb.core.USBError):
                pass
            device.set_configuration()
            intf = device.get_active_configuration()[(self.interface, 0)]
            ep_in = usb.util.find_descriptor(intf, custom_match=_endpoint(usb.util.ENDPOINT_IN))
            ep_out = usb.util.find_descriptor(intf, custom_match=_endpoint(usb.util.ENDPOINT_OUT))
            if ep_in is None or ep_out is None:
                raise UsbUnavailable(f"{self.name}: the device at {self.where()} has no bulk/interrupt IN and OUT endpoints")
            usb.util.claim_interface(device, self.interface)
        except (usb.core.USBError, KeyError, IndexError) as exc:
            usb.util.dispose_resources(device)
            raise UsbUnavailable(f"{self.name}: cannot open {self.where()}: {exc}") from None
        return UsbTransport(device, self.interface, ep_in, ep_out)


def _endpoint(direction: int) -> Any:
    import usb.util

    def match(ep: Any) -> bool:
        return (
            usb.util.endpoint_direction(ep.bEndpointAddress) == direction
            and usb.util.endpoint_type(ep.bmAttributes) in (usb.util.ENDPOINT_TYPE_BULK, usb.util.ENDPOINT_TYPE_INTR)
        )

    return match
