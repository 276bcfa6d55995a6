"""Which TDL/1 device answers on a port: ``tablesim devices --probe``.

The probe does not know which device sits behind a port, and a device
ignores frames for another address, so it speaks to all four addresses at
once, with raw frames rather than a ``LinkSession`` (which is bound to one
address):

1. ``PNG`` (SEQ 00) to every address. A device answers its own with ``PON``
   (state word, fault mask). Being the host's first frame, the PNG also
   makes the device forget the last frame it took, so the ``HEL`` that
   follows is never mistaken for a duplicate of a table's earlier ``HEL``.
2. ``HEL`` (SEQ 01) to the address that answered; the device ACKs it and
   sends ``IDN|model|serial|firmware|protocol|hash``, which the probe ACKs
   (so the device does not keep it in its outbox).

What came back decides the verdict: an identity; or why none: the port
could not be opened (missing, permissions, busy), nothing at all came back
within the timeout (no device, powered off, wrong cable or port), bytes came
back but no valid frame (wrong baud rate, or not a TDL/1 device), or a
device answered the heartbeat but never identified itself.
"""

from __future__ import annotations

import errno
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from drivers.tdl import ACK, NAK, PNG, PON, DeviceAddr, Frame, FrameError, StreamDecoder, Transport, encode

KIND_OF_ADDR = {DeviceAddr.SHUFFLER: "shuffler", DeviceAddr.SHOE: "shoe", DeviceAddr.DISPLAY: "display",
                DeviceAddr.WHEEL: "wheel"}
#: how long a port is given to answer, in seconds (a device answers in milliseconds)
DEFAULT_TIMEOUT = 1.0


@dataclass
class ProbeResult:
    port: str
    kind: str | None = None
    addr: str | None = None
    model: str | None = None
    serial: str | None = None
    firmware: str | None = None
    protocol: str | None = None
    state: str | None = None
    faultmask: int | None = None
    error: str | None = None
    #: what was seen on the line, for the troubleshooting text
    frames: int = 0
    bad_frames: int = 0
    bytes_in: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def found(self) -> bool:
        return self.kind is not None and self.error is None

    def as_json(self) -> dict[str, Any]:
        return asdict(self)

    def line(self) -> str:
        if self.found:
            state = f", {self.state}" if self.state else ""
            faults = f", faults active (mask {self.faultmask:X})" if self.faultmask else ""
            return (f"{self.port}: {self.kind} (address {self.addr}) {self.model} serial {self.serial}, "
                    f"firmware {self.firmware}, {self.protocol}{state}{faults}")
        return f"{self.port}: no device: {self.error}"


class _Line:
    """Frames in and out of one transport, with what was seen."""

    def __init__(self, transport: Transport, result: ProbeResult) -> None:
        self.transport = transport
        self.result = result
        self.decoder = StreamDecoder()

    def send(self, frame: Frame) -> None:
        self.transport.write(encode(frame))
        flush = getattr(self.transport, "flush", None)
        if flush is not None:
            flush()

    def receive(self, until: float) -> list[Frame]:
        """Frames read before ``until`` (returns as soon as some arrived)."""
        while time.monotonic() < until:
            data = self.transport.read(256)
            if not data:
                continue
            self.result.bytes_in += len(data)
            frames = []
            for item in self.decoder.feed(data):
                if isinstance(item, FrameError):
                    self.result.bad_frames += 1
                else:
                    self.result.frames += 1
                    frames.append(item)
            if frames:
                return frames
        return []


def probe_transport(transport: Transport, port: str, timeout: float = DEFAULT_TIMEOUT) -> ProbeResult:
    """Say hello on an open transport (it is not closed here)."""
    result = ProbeResult(port)
    transport.timeout = 0.05
    line = _Line(transport, result)
    for addr in KIND_OF_ADDR:
        line.send(Frame(addr, 0, PNG))
    end = time.monotonic() + timeout
    alive: dict[int, Frame] = {}
    while time.monotonic() < end and not alive:
        for frame in line.receive(end):
            if frame.type == PON and frame.addr in KIND_OF_ADDR:
                alive[frame.addr] = frame
    if not alive:
        result.error = _silence(result, timeout)
        return result
    if len(alive) > 1:
        result.notes.append("several addresses answered: devices share this line (each needs its own port)")
    addr, pon = next(iter(alive.items()))
    result.kind = KIND_OF_ADDR[DeviceAddr(addr)]
    result.addr = f"{addr:02X}"
    if len(pon.fields) >= 2:
        result.state = pon.fields[0] or None
        try:
            result.faultmask = int(pon.fields[1], 16)
        except ValueError:
            pass
    identity = _hello(line, addr, end + timeout)
    if identity is None:
        result.error = (f"a {result.kind} answers the heartbeat (PON) but did not identify itself (no IDN "
                        f"after HEL within {timeout:g} s)")
        return result
    fields = list(identity.fields) + [""] * 5
    result.model, result.serial, result.firmware, result.protocol = (f or "?" for f in fields[:4])
    if result.protocol != "TDL/1":
        result.notes.append(f"speaks {result.protocol!r}, not TDL/1")
    return result


def _hello(line: _Line, addr: int, until: float) -> Frame | None:
    """HEL (resent once on NAK|CRC or no ACK); the IDN that follows, ACKed."""
    hel = Frame(addr, 1, "HEL")
    line.send(hel)
    resent = False
    acked_at = None
    while time.monotonic() < until:
        frames = line.receive(min(until, time.monotonic() + 0.3))
        if not frames and acked_at is None and not resent:
            line.send(hel)
            resent = True
            continue
        for frame in frames:
            if frame.addr != addr:
                continue
            if frame.type == ACK and frame.seq == 1:
                acked_at = time.monotonic()
            elif frame.type == NAK and frame.seq == 1 and not resent:
                line.send(hel)
                resent = True
            elif frame.type not in (ACK, NAK, PON):
                line.send(Frame(addr, frame.seq, ACK))  # every device frame is answered
                if frame.type == "IDN":
                    return frame
    return None


def _silence(result: ProbeResult, timeout: float) -> str:
    if result.bad_frames:
        return (f"{result.bad_frames} damaged frame(s) and no valid one: line noise or a bad cable "
                "(shielding, length, ground)")
    if result.bytes_in:
        return (f"{result.bytes_in} byte(s) but no TDL/1 frame: wrong baud rate (TDL/1 is 115200 8N1 "
                "unless configured), or not a TDL/1 device")
    return (f"no answer within {timeout:g} s: no device on this port, powered off, or a wrong cable "
            "(a null-modem where a straight cable is needed, or the reverse)")


def probe_serial(url: str, *, baudrate: int = 115200, timeout: float = DEFAULT_TIMEOUT) -> ProbeResult:
    """Open ``url`` with ``serial.serial_for_url`` (exclusively, so a running
    table's port is reported busy rather than disturbed) and probe it."""
    try:
        import serial
    except ImportError as exc:  # pragma: no cover - pyserial is a dependency
        return ProbeResult(url, error=f"pyserial is not installed ({exc})")
    try:
        port = serial.serial_for_url(url, baudrate=baudrate, timeout=0.05, do_not_open=True)
        if hasattr(port, "exclusive"):
            try:
                port.exclusive = True
            except (ValueError, NotImplementedError, serial.SerialException):
                pass
        port.open()
    except (serial.SerialException, ValueError, OSError) as exc:
        return ProbeResult(url, error=_open_error(url, exc))
    try:
        try:
            port.reset_input_buffer()
        except (AttributeError, OSError, serial.SerialException):
            pass
        return probe_transport(port, url, timeout)
    except (serial.SerialException, OSError) as exc:
        return ProbeResult(url, error=f"the port failed while probing: {exc}")
    finally:
        port.close()


def _open_error(url: str, exc: BaseException) -> str:
    code = getattr(exc, "errno", None)
    text = str(exc)
    if code == errno.EACCES or "Permission denied" in text:
        return ("permission denied: add this user to the dialout group (sudo usermod -aG dialout $USER, "
                "then log in again), see docs/hardware.md")
    if code == errno.EBUSY or "busy" in text.lower() or "exclusively lock" in text:
        return "busy: another program has the port open (a running table, a terminal program, ModemManager)"
    if code == errno.ENOENT or "No such file" in text:
        return "no such port (unplugged, or another name: see ls -l /dev/serial/by-id/)"
    return f"cannot open: {text}"


def probe_usb_shoe(vid: int, pid: int, *, serial_number: str | None = None, backend: Any = None,
                   timeout: float = DEFAULT_TIMEOUT) -> ProbeResult:
    """Find a USB shoe reader by vendor/product (and serial) and probe it."""
    from drivers.usb.shoe import UsbShoe, UsbUnavailable

    reader = UsbShoe(vid, pid, serial_number=serial_number, backend=backend, name="usb shoe")
    where = reader.where()
    try:
        transport = reader.open_transport()
    except UsbUnavailable as exc:
        return ProbeResult(where, error=str(exc).removeprefix("usb shoe: "))
    try:
        return probe_transport(transport, where, timeout)
    except OSError as exc:
        return ProbeResult(where, error=f"the reader failed while probing: {exc}")
    finally:
        transport.close()
