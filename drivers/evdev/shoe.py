"""A keyboard-wedge card reader read as a Linux input device (``backend = "evdev"``).

The driver opens the reader's event device (a stable name:
``/dev/input/by-id/usb-<maker>_<model>-event-kbd``, or the one
``config/udev/99-tablesim.rules`` gives it), grabs it (``EVIOCGRAB``) so its
keystrokes never reach the kiosk's screen, decodes its key events
(:mod:`drivers.evdev.keys`) and maps each code to a card by the
configuration's table (or reads it as a card code, ``QH``, without one). A
card read while the shoe is disarmed is fault 204, never dealt; a code that
is no card is logged and never an event. An unplugged reader (the device
gone: ``ENODEV``, or the end of its stream) is ``LinkLost``; when its path
opens again it is grabbed again and ``LinkRestored``. The same code reads a
pipe of recorded events (a test machine has no ``/dev/uinput``): a pipe
cannot be grabbed and needs none.
"""

from __future__ import annotations

import errno
import fcntl
import os
import select
import stat
import threading
from typing import Any

import structlog

from drivers.codeshoe import CodeShoe, code_settings
from drivers.evdev.keys import EVIOCGRAB, KEYMAPS, KeyDecoder
from drivers.events import LinkLost, LinkRestored
from drivers.serial.link_device import DeviceUnavailable
from tablecore.validate import Reader
from tablecore import threadnames

log = structlog.get_logger(__name__)


def evdev_settings(kind: str, reader: Reader) -> dict[str, Any]:
    """``[devices.shoe]`` with ``backend = "evdev"``: path, grab, keymap, cards, reconnect."""
    if kind != "shoe":
        raise reader.fail(None, f"the evdev backend has no {kind} (it offers: shoe)")
    out: dict[str, Any] = {}
    if reader.has("name"):
        out["name"] = reader.str("name")
    out["path"] = reader.str("path")
    if not out["path"].startswith("/"):
        raise reader.fail("path", f"{out['path']!r} must be a device path (e.g. /dev/input/by-id/...-event-kbd)")
    out["grab"] = reader.bool("grab", True)
    out["keymap"] = reader.str("keymap", "us", choices=KEYMAPS)
    return code_settings(reader, out)


class EvdevShoe(CodeShoe):
    def __init__(self, path: str, *, grab: bool = True, keymap: str = "us", cards: dict[str, str] | None = None,
                 name: str | None = None, reconnect_interval: float = 1.0, transport_wrapper: Any = None) -> None:
        CodeShoe.__init__(self, name, cards)
        self.path, self.grab, self.keymap = path, grab, KEYMAPS[keymap]
        self.reconnect_interval = reconnect_interval
        self.cues: list[Any] = []
        self.health.link_up = False
        self._closing = threading.Event()
        self._thread: threading.Thread | None = None
        self._fd: int | None = None
        self._carry = b""  # what a reopened device had already sent
        self._log = log.bind(device=self.name, where=path)

    @classmethod
    def from_settings(cls, settings: dict[str, Any]) -> "EvdevShoe":
        return cls(**settings)

    def where(self) -> str:
        return self.path

    def log_fields(self) -> dict[str, Any]:
        return {"where": self.path}

    # -- the reader -----------------------------------------------------------------

    def _attach(self) -> int:
        """Open the reader's device and grab it (a pipe of recorded events is not grabbed)."""
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)
        except FileNotFoundError:
            raise DeviceUnavailable(f"{self.name}: no input device {self.path} (unplugged, or another name: "
                                    "ls -l /dev/input/by-id/)") from None
        except PermissionError:
            raise DeviceUnavailable(f"{self.name}: permission denied on {self.path} (the udev rule gives the "
                                    "input group access: config/udev/99-tablesim.rules)") from None
        except OSError as exc:
            raise DeviceUnavailable(f"{self.name}: cannot open {self.path}: {exc}") from None
        if self.grab and stat.S_ISCHR(os.fstat(fd).st_mode):
            try:
                fcntl.ioctl(fd, EVIOCGRAB, 1)
            except OSError as exc:
                os.close(fd)
                raise DeviceUnavailable(f"{self.name}: cannot grab {self.path} (another program holds it?): "
                                        f"{exc}") from None
        return fd

    def _release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)  # a grab ends with its file: the keyboard is the system's again

    def open(self) -> None:
        if self._thread is not None:
            return
        self._fd = self._attach()
        self.health.link_up = True
        self._thread = threadnames.thread(self._read_loop, f"evdev-{self.name}-reader")
        self._thread.start()
        self._log.info("opened", grabbed=self.grab)

    def close(self) -> None:
        self._closing.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()
        self._thread = None
        self._release()
        self.health.link_up = False
        self._events.put(None)
        self.reported()

    def _read(self) -> bytes | None:
        """What the device sent (b"" if nothing yet), or None when it is gone."""
        if self._carry:
            data, self._carry = self._carry, b""
            return data
        fd = self._fd
        if fd is None:
            return None
        try:
            return _read_once(fd, 0.1)
        except OSError as exc:
            if exc.errno in (errno.ENODEV, errno.EIO):
                return None
            raise

    def _read_loop(self) -> None:
        decoder = KeyDecoder(self.keymap)
        while not self._closing.is_set():
            data = self._read()
            if data is None:
                if self._closing.is_set():
                    return
                self._lost()
                decoder = KeyDecoder(self.keymap)
                continue
            for code in decoder.feed(data):
                self._code(code)

    def _lost(self) -> None:
        self._put(LinkLost("the reader was unplugged", device=self.name))
        self.health.link_up = False
        self._log.warning("reader lost")
        self._release()
        while not self._closing.wait(self.reconnect_interval):
            try:
                fd = self._attach()
            except DeviceUnavailable:
                continue
            first = self._first_look(fd)
            if first is None:  # opened, but nobody is there yet
                os.close(fd)
                continue
            self._fd, self._carry = fd, first
            self.health.link_up = True
            self._put(LinkRestored(device=self.name))
            self._log.info("reader back")
            return

    @staticmethod
    def _first_look(fd: int) -> bytes | None:
        """What a reopened device has already sent (b"" if nothing), or None if it is gone
        again at once (a pipe with no writer reads as its end)."""
        try:
            return _read_once(fd, 0)
        except OSError:
            return None


def _read_once(fd: int, wait: float) -> bytes | None:
    """What ``fd`` has within ``wait`` seconds (b"" if nothing), None at the end of
    its stream (the device, or the pipe's writer, is gone); OSError as read raises it."""
    ready, _, _ = select.select([fd], [], [], wait)
    if not ready:
        return b""
    try:
        data = os.read(fd, 24 * 64)
    except BlockingIOError:
        return b""
    return data or None
