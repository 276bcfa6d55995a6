"""A noisy line is a link fault, not the host refusing a card.

When every copy of the shoe's ``CRD`` arrives damaged, the host answers each
``NAK|CRC`` and the emulator's resends are used up. The card must then go
out again as a new frame, reach the table once, and the dealer go on: the
card is not lost (no ``FLT|204`` "drawn while disarmed") and the round does
not wait for the device timeout.
"""

from __future__ import annotations

import socket
import threading
import time

from drivers.emulators.shoe import ShoeEmulator
from drivers.events import CardRead, FaultRaised
from drivers.serial import SerialShoe
from test_serial_support import FAST, no_leaks  # noqa: F401 - fixture


class DamagingPort:
    """The device end of a TCP line that damages the first ``copies`` writes of a ``CRD``."""

    def __init__(self, sock: socket.socket, copies: int) -> None:
        self.sock = sock
        self.timeout = 0.05
        self.left = copies
        self.damaged = 0
        self.lock = threading.Lock()

    def read(self, size: int = 1) -> bytes:
        self.sock.settimeout(self.timeout)
        try:
            data = self.sock.recv(max(1, size))
        except socket.timeout:
            return b""
        except OSError:
            raise ConnectionError("closed") from None
        if not data:
            raise ConnectionError("closed")
        return data

    def write(self, data: bytes) -> int:
        with self.lock:
            if b"|CRD|" in data and self.left > 0:
                self.left -= 1
                self.damaged += 1
                i = data.index(b"|CRD|") + 2
                data = data[:i] + bytes([data[i] ^ 0x01]) + data[i + 1:]  # one bit: CRC catches it
            self.sock.sendall(data)
        return len(data)

    def flush(self) -> None:
        pass

    def close(self) -> None:
        self.sock.close()


def test_resends_used_up_by_noise_do_not_lose_the_card():
    server = socket.create_server(("127.0.0.1", 0))
    emulator = ShoeEmulator(seed=3, time_scale=0, timing=FAST)
    emulator.start()
    port: list[DamagingPort] = []

    def accept() -> None:
        sock, _ = server.accept()
        port.append(DamagingPort(sock, copies=FAST.max_resends + 1 + 2))  # all 4 copies, then 2 more
        emulator.attach(port[0])

    acceptor = threading.Thread(target=accept)
    acceptor.start()
    shoe = SerialShoe(f"socket://127.0.0.1:{server.getsockname()[1]}", timing=FAST)
    try:
        shoe.open()
        acceptor.join(5)
        start = time.monotonic()
        shoe.arm("R1", 3)
        events = []
        while len([e for e in events if isinstance(e, CardRead)]) < 3:
            event = shoe.next_event(timeout=5)
            assert event is not None, f"the dealer stopped: {events}"
            events.append(event)
        elapsed = time.monotonic() - start
        cards = [e for e in events if isinstance(e, CardRead)]
        assert [c.index for c in cards] == [0, 1, 2]
        assert len({c.card for c in cards}) == 3
        assert not [e for e in events if isinstance(e, FaultRaised) and e.code == 204], events
        assert port[0].damaged == FAST.max_resends + 1 + 2  # the first card's copies really were damaged
        end = time.monotonic() + 2
        while emulator.pending_events and time.monotonic() < end:  # the last ACK is on its way
            time.sleep(0.01)
        assert emulator.pending_events == 0
        assert elapsed < 5, elapsed
    finally:
        shoe.close()
        emulator.stop()
        if port:
            port[0].close()
        server.close()
