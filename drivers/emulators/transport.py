"""The emulator's end of a line: a pty master or an accepted TCP connection.

Both offer what ``LinkSession`` uses of a pyserial port (``read``,
``write``, ``timeout``, ``in_waiting``, ``flush``, ``close``). A driver
opens the other end with ``serial.serial_for_url``: the pty's slave path,
or ``socket://127.0.0.1:PORT``.
"""

from __future__ import annotations

import errno
import fcntl
import os
import select
import socket
import struct
import termios
import threading
import time
import tty


class PtyPort:
    """The master side of a new pty; ``path`` is the slave device a driver opens.

    With no driver on the slave, reads wait out the timeout and return
    nothing, and writes are dropped (a line with nobody listening).
    """

    def __init__(self) -> None:
        master, slave = os.openpty()
        try:
            tty.setraw(slave)  # no echo, no line discipline, even before a driver sets the port up
            self.path = os.ttyname(slave)
        finally:
            os.close(slave)
        os.set_blocking(master, False)
        self.fd = master
        self.timeout: float | None = 0.05
        self._closed = False
        self._write_lock = threading.Lock()

    def read(self, size: int = 1) -> bytes:
        if self._closed:
            raise OSError(errno.EBADF, "pty closed")
        ready, _, _ = select.select([self.fd], [], [], self.timeout)
        if not ready:
            return b""
        try:
            return os.read(self.fd, max(1, size))
        except BlockingIOError:
            return b""
        except OSError as exc:
            if exc.errno != errno.EIO:
                raise
            time.sleep(self.timeout or 0.05)  # no driver has the slave open
            return b""

    @property
    def in_waiting(self) -> int:
        try:
            buf = fcntl.ioctl(self.fd, termios.FIONREAD, b"\0\0\0\0")
            return struct.unpack("i", buf)[0]
        except OSError:
            return 0

    def write(self, data: bytes) -> int:
        with self._write_lock:
            view = memoryview(data)
            deadline = time.monotonic() + 0.5
            while view:
                try:
                    n = os.write(self.fd, view)
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        break  # nobody reads: drop the rest like a line with no listener
                    select.select([], [self.fd], [], 0.01)
                    continue
                except OSError as exc:
                    if exc.errno in (errno.EIO, errno.EBADF):
                        break
                    raise
                view = view[n:]
        return len(data)

    def flush(self) -> None:
        pass

    def reset_input_buffer(self) -> None:
        while True:
            try:
                if not os.read(self.fd, 4096):
                    return
            except OSError:
                return

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            os.close(self.fd)


class SocketPort:
    """One accepted TCP connection; a read fails once the peer has gone."""

    def __init__(self, sock: socket.socket) -> None:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock = sock
        self.timeout: float | None = 0.05
        self._closed = False
        self._write_lock = threading.Lock()

    def read(self, size: int = 1) -> bytes:
        ready, _, _ = select.select([self.sock], [], [], self.timeout)
        if not ready:
            return b""
        data = self.sock.recv(max(1, size))
        if not data:
            raise ConnectionError("the driver closed the connection")
        return data

    @property
    def in_waiting(self) -> int:
        try:
            buf = fcntl.ioctl(self.sock.fileno(), termios.FIONREAD, b"\0\0\0\0")
            return struct.unpack("i", buf)[0]
        except OSError:
            return 0

    def write(self, data: bytes) -> int:
        with self._write_lock:
            self.sock.sendall(data)
        return len(data)

    def flush(self) -> None:
        pass

    def reset_input_buffer(self) -> None:
        while True:
            ready, _, _ = select.select([self.sock], [], [], 0)
            if not ready:
                return
            try:
                if not self.sock.recv(4096):
                    return
            except OSError:
                return

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            try:
                self.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self.sock.close()
