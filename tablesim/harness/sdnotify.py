"""systemd's notify protocol, for a table run as a ``Type=notify`` service.

systemd passes the path of a datagram socket in ``NOTIFY_SOCKET`` (a leading
``@`` names an abstract socket) and, with ``WatchdogSec=``, the watchdog
period in ``WATCHDOG_USEC``. The table sends ``READY=1`` once it has
recovered its journal and serves, ``WATCHDOG=1`` from its main loop at half
the period (so a hung loop stops the pings and systemd restarts the table,
which then recovers from its journal), ``STATUS=...`` lines, and
``STOPPING=1`` on the way out. Without ``NOTIFY_SOCKET`` every call does
nothing. The protocol is a few bytes on a socket: no library is needed.
"""

from __future__ import annotations

import os
import socket
import time


class Notifier:
    def __init__(self, address: str | None, watchdog_usec: int | None = None) -> None:
        self.address = address
        #: seconds between two WATCHDOG=1 (half the period systemd gave), None: no watchdog
        self.watchdog_every = watchdog_usec / 2e6 if watchdog_usec else None
        self._last_ping = 0.0
        self._sock: socket.socket | None = None

    @classmethod
    def from_env(cls, environ=None) -> "Notifier":
        env = os.environ if environ is None else environ
        address = env.get("NOTIFY_SOCKET") or None
        usec = None
        try:
            usec = int(env.get("WATCHDOG_USEC", "")) or None
        except ValueError:
            pass
        pid = env.get("WATCHDOG_PID")
        if usec and pid and pid.isdigit() and int(pid) != os.getpid():
            usec = None  # the watchdog is meant for another process of the service
        return cls(address, usec)

    @property
    def enabled(self) -> bool:
        return self.address is not None

    def send(self, *fields: str) -> bool:
        """Send ``KEY=value`` lines in one datagram; False if there is no socket or it failed."""
        if self.address is None:
            return False
        target = "\0" + self.address[1:] if self.address.startswith("@") else self.address
        try:
            if self._sock is None:
                self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
            self._sock.sendto("\n".join(fields).encode("utf-8", "replace"), target)
        except OSError:
            return False  # systemd gone or the socket unusable: the table goes on
        return True

    def ready(self, status: str | None = None) -> bool:
        return self.send("READY=1", *([f"STATUS={status}"] if status else []))

    def status(self, text: str) -> bool:
        return self.send(f"STATUS={text}")

    def stopping(self) -> bool:
        return self.send("STOPPING=1")

    def watchdog(self, now: float | None = None) -> bool:
        """Ping the watchdog if half its period has passed since the last ping."""
        if self.address is None or self.watchdog_every is None:
            return False
        now = time.monotonic() if now is None else now
        if now - self._last_ping < self.watchdog_every:
            return False
        self._last_ping = now
        return self.send("WATCHDOG=1")

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None
