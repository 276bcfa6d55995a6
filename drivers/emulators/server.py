"""Put an emulator on a line a driver can open: a new pty, or a TCP port.

``EmulatorServer(emulator, pty=True)`` creates a pty and speaks on its
master; ``url`` is the slave's path (``/dev/pts/N``). With ``tcp=PORT`` it
listens on 127.0.0.1:PORT (0: any free port) and speaks to one driver at a
time; ``url`` is ``socket://127.0.0.1:PORT``. A driver that connects again
replaces the earlier connection; the device keeps its state and its
unacknowledged events across connections.
"""

from __future__ import annotations

import select
import socket
import threading

from drivers.emulators.base import Emulator
from drivers.emulators.transport import PtyPort, SocketPort


class EmulatorServer:
    def __init__(self, emulator: Emulator, *, pty: bool = True, tcp: int | None = None, host: str = "127.0.0.1") -> None:
        self.emulator = emulator
        self.tcp = tcp
        self.host = host
        self.url = ""
        self._pty: PtyPort | None = None
        self._listener: socket.socket | None = None
        self._conn: SocketPort | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._use_pty = pty and tcp is None

    @property
    def where(self) -> str:
        """Where a driver connects, as a person reads it (the pty path, or host:port)."""
        return self.url.removeprefix("socket://")

    def start(self) -> str:
        self.emulator.start()
        try:
            if self._use_pty:
                self._pty = PtyPort()
                self.url = self._pty.path
                self.emulator.attach(self._pty)
            else:
                listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                listener.bind((self.host, self.tcp or 0))
                listener.listen(1)
                self._listener = listener
                self.url = f"socket://{self.host}:{listener.getsockname()[1]}"
                self._thread = threading.Thread(target=self._serve, name=f"emu-{self.emulator.name}-tcp", daemon=True)
                self._thread.start()
        except BaseException:
            self.stop()
            raise
        return self.url

    def _serve(self) -> None:
        assert self._listener is not None
        while not self._stop.is_set():
            ready, _, _ = select.select([self._listener], [], [], 0.05)
            if ready:
                try:
                    sock, _ = self._listener.accept()
                except OSError:
                    continue
                self._replace(SocketPort(sock))
            elif self._conn is not None and self.emulator.link_broken:
                self._replace(None)  # the driver went away: wait for the next one

    def drop(self) -> None:
        """Cut the current TCP connection (a serial server losing its network):
        the device keeps its state and waits for the driver to connect again."""
        if self._listener is not None:
            self._replace(None)

    def _replace(self, conn: SocketPort | None) -> None:
        self.emulator.detach()
        old, self._conn = self._conn, conn
        if old is not None:
            old.close()
        if conn is not None:
            self.emulator.attach(conn)

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        self.emulator.stop()
        for port in (self._conn, self._pty):
            if port is not None:
                port.close()
        self._conn = self._pty = None
        if self._listener is not None:
            self._listener.close()
            self._listener = None

    def __enter__(self) -> "EmulatorServer":
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
