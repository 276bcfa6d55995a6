"""What every device emulator shares: the device's end of the TDL/1 link.

An :class:`Emulator` is a protocol-level stand-in for a device. It speaks
the real bytes through the same link layer as the drivers
(``LinkSession(role="device")``), on any line a driver can open (a pty, a
TCP connection, or the emulated USB backend's endpoints). Its parts:

- **commands** arrive in ``on_frame`` (the session's reader thread): they
  are checked at once (``FMT``/``STA``/``BSY``/``UNK``) and their effects are
  scheduled;
- **a timer thread** runs the device's behaviour (a card drawn, a hand
  dispensed, a wheel turn), each delay scaled by ``time_scale``
  (0: as fast as possible);
- **a sender thread** sends the device's events in order, one at a time;
  an event stays in the outbox until the host ACKs it, across link losses,
  resends used up on a noisy line (``NAK|CRC``, ``NAK|BSY``: not a refusal)
  and power losses (then it is replayed after ``PWR``);
- **faults** (:mod:`drivers.emulators.faults`) corrupt or drop frames, cut
  the line, lose power, or make the device itself misbehave.

The emulator never closes the port it is attached to: its owner (a server,
the launcher, a test) does, so a power cycle can attach to it again.
"""

from __future__ import annotations

import hashlib
import heapq
import itertools
import random
import secrets
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import structlog

from drivers.tdl import ANSWER_TYPES, DeviceAddr, Frame, LinkDown, LinkSession, Nak, NakReason, Transport
from drivers.tdl.frame import STX
from drivers.emulators.faults import FaultPlan, FaultSpec, parse_fault
from drivers.serial import parse
from drivers.serial.parse import Refuse
from drivers.serial.timing import LinkTiming

log = structlog.get_logger(__name__)

FIRMWARE = "1.0.0"
PROTOCOL = "TDL/1"
_SEVERITY_BITS = {"W": 1, "E": 2, "C": 4}


def firmware_hash() -> str:
    """The emulators' 'firmware hash': a digest of their source files."""
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


#: NAK reasons that say the frame did not get through, not that the host refused it
LINK_REASONS = (NakReason.CRC, NakReason.BSY)


@dataclass
class Outgoing:
    """An event waiting in the outbox until the host ACKs it."""

    type: str
    fields: tuple[str, ...]
    on_done: Callable[[bool, str | None], None] | None = None  # (taken, nak reason), under the lock
    power: FaultSpec | None = None  # lose power once it is sent: its ACK is lost
    meta: dict[str, Any] = field(default_factory=dict)


class FaultyLine:
    """The line as the emulator's session sees it: link-level faults happen here.

    Never closes the port (the owner does), so a power cycle can reattach.
    """

    def __init__(self, port: Transport, emulator: "Emulator") -> None:
        self._port = port
        self._emulator = emulator

    @property
    def timeout(self) -> float | None:
        return self._port.timeout

    @timeout.setter
    def timeout(self, value: float | None) -> None:
        self._port.timeout = value

    @property
    def in_waiting(self) -> int:
        return 0 if self._emulator.muted() else getattr(self._port, "in_waiting", 0)

    def read(self, size: int = 1) -> bytes:
        data = self._port.read(size)
        return b"" if self._emulator.muted() else data

    def write(self, data: bytes) -> int:
        out = self._emulator.on_write(bytes(data))
        if out:
            self._port.write(out)
        return len(data)

    def flush(self) -> None:
        flush = getattr(self._port, "flush", None)
        if flush is not None:
            flush()

    def close(self) -> None:
        pass  # the owner closes the port


class Emulator:
    """Base of the four device emulators."""

    KIND: ClassVar[str]
    ADDR: ClassVar[DeviceAddr]
    MODEL: ClassVar[str]
    TRANSIENT_FAULTS: ClassVar[tuple[int, ...]] = ()  # cleared (FLC) by the next round's ARM

    def __init__(
        self,
        *,
        seed: int | None = None,
        time_scale: float = 1.0,
        faults: Iterable[str | FaultSpec] = (),
        timing: LinkTiming | None = None,
        name: str | None = None,
        serial_no: str | None = None,
    ) -> None:
        if time_scale < 0:
            raise ValueError("time_scale must be 0 or more")
        self.seed = seed if seed is not None else secrets.randbelow(2**32)
        self.rng = random.Random(self.seed)
        self.time_scale = time_scale
        self.plan = FaultPlan([f if isinstance(f, FaultSpec) else parse_fault(f, self.KIND) for f in faults])
        self.timing = timing or LinkTiming()
        self.name = name or f"{self.KIND}-emulator"
        self.serial_no = serial_no or f"EMU{self.seed % 100000:05d}"
        self.count: Counter[str] = Counter()  # frame, event, card, hand, show, spin, shuffle
        self.state = "IDLE"
        self.active_faults: dict[int, tuple[str, str]] = {}  # code -> (severity, text)
        self.boot = 1
        self.power_losses = 0
        self.last_acked_seq: int | None = None
        self.trace: Callable[[bytes, float], None] | None = None  # sees every frame written (bench)
        self._log = log.bind(emulator=self.name)

        self.lock = threading.RLock()
        self._cv = threading.Condition(self.lock)
        self._outbox: deque[Outgoing] = deque()
        self._timers: list[tuple[float, int, int, Callable[[], None]]] = []
        self._timer_ids = itertools.count()
        self._epoch = 0  # bumped by a power loss: older timers are void
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._port: Transport | None = None
        self._session: LinkSession | None = None
        self._powered = True
        self._silences: list[tuple[float, float]] = []
        self._last_new: bytes | None = None
        self._broken = False  # the current line's transport failed
        self._started_at = time.monotonic()
        self._booted_at = self._started_at

        self._handlers: dict[str, Callable[[Frame], NakReason | None]] = {
            "HEL": self._on_hel,
            "STA": self._on_sta,
            "RST": self._on_rst,
            "SLF": self._on_slf,
            **self.device_handlers(),
        }

    # -- to be provided by each device -------------------------------------------

    def device_handlers(self) -> dict[str, Callable[[Frame], NakReason | None]]:
        return {}

    def status_fields(self) -> tuple[str, ...]:
        """The device-specific fields of ``STS`` (after state and fault codes)."""
        return ()

    def reset(self) -> None:
        """``RST``: back to the device's idle state (under the lock)."""

    def on_power_loss(self) -> None:
        """Volatile state is lost (under the lock); the cards inside stay where they are."""

    def on_refused(self, out: Outgoing, reason: str) -> None:
        """The host refused an event (``NAK``): what the device does about it (under the lock)."""
        self._log.warning("event refused by the host", type=out.type, fields=list(out.fields), nak=reason)

    # -- life cycle --------------------------------------------------------------

    def start(self) -> None:
        """Start the timer and sender threads (the device is powered on)."""
        if self._threads:
            return
        now = time.monotonic()
        self._started_at = self._booted_at = now
        for spec in self.plan.of("silent"):
            if spec.key == "after":
                self.plan.specs.remove(spec)
                self._silence(now + spec.at, spec.duration)
        for target, label in ((self._timer_loop, "timers"), (self._send_loop, "sender")):
            thread = threading.Thread(target=target, name=f"emu-{self.name}-{label}", daemon=True)
            self._threads.append(thread)
            thread.start()
        self._log.info("started", seed=self.seed, time_scale=self.time_scale, faults=[str(s) for s in self.plan.specs])

    def attach(self, port: Transport) -> None:
        """Speak on ``port`` (replacing any earlier line). The caller keeps owning ``port``."""
        self.detach()
        with self.lock:
            self._port = port
            self._last_new = None
            if self._powered:
                self._open_session(port)

    def detach(self) -> None:
        """Stop speaking on the current line (its port stays open)."""
        with self.lock:
            session, self._session = self._session, None
            self._port = None
        if session is not None:
            session.close()

    def stop(self) -> None:
        """Power off for good: stop every thread this emulator started."""
        self._stop.set()
        with self._cv:
            self._cv.notify_all()
        self.detach()
        for thread in self._threads:
            if thread is not threading.current_thread():
                thread.join()
        self._threads.clear()

    def __enter__(self) -> "Emulator":
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def link_broken(self) -> bool:
        """The line failed (e.g. the TCP peer went away): its owner should attach another."""
        return self._session is not None and self._broken

    @property
    def link_up(self) -> bool:
        session = self._session
        return session is not None and session.link_up

    def _open_session(self, port: Transport) -> None:
        self._broken = False
        session = LinkSession(
            FaultyLine(port, self),
            role="device",
            addr=int(self.ADDR),
            on_frame=self._on_frame,
            on_link=self._on_link,
            pon_fields=self._pon_fields,
            name=self.name,
            **self.timing.session_kwargs(),
        )
        self._session = session
        session.start()
        self._cv.notify_all()

    # -- timing ------------------------------------------------------------------

    def after(self, seconds: float, job: Callable[[], None]) -> None:
        """Run ``job`` (under the lock) after ``seconds`` of device time, scaled by ``time_scale``."""
        due = time.monotonic() + seconds * self.time_scale
        heapq.heappush(self._timers, (due, next(self._timer_ids), self._epoch, job))
        self._cv.notify_all()

    def _timer_loop(self) -> None:
        with self._cv:
            while not self._stop.is_set():
                now = time.monotonic()
                if self._timers and self._timers[0][0] <= now:
                    _, _, epoch, job = heapq.heappop(self._timers)
                    if epoch == self._epoch and self._powered:
                        try:
                            job()
                        except Exception:  # noqa: BLE001 - one failed job must not stop the device
                            self._log.exception("device job failed")
                    continue
                wait = self._timers[0][0] - now if self._timers else 0.25
                self._cv.wait(min(wait, 0.25))

    # -- events out ----------------------------------------------------------------

    def emit(
        self,
        type: str,
        *fields: str,
        counter: str | None = None,
        on_done: Callable[[bool, str | None], None] | None = None,
    ) -> Outgoing:
        """Queue an event (under the lock); ``counter`` names what it counts (card, hand ...)."""
        self.count["event"] += 1
        power = self.plan.take("power", "event", self.count["event"])
        if counter is not None and power is None:
            power = self.plan.take("power", counter, self.count[counter])
        out = Outgoing(type, tuple(fields), on_done, power)
        self._outbox.append(out)
        self._cv.notify_all()
        return out

    def raise_fault(self, code: int, severity: str, text: str, card: str | None = None, **kw: Any) -> None:
        self.active_faults[code] = (severity, text)
        self.emit("FLT", str(code), severity, text, *((card,) if card is not None else ()), **kw)

    def clear_fault(self, code: int) -> None:
        if self.active_faults.pop(code, None) is not None:
            self.emit("FLC", str(code))

    def clear_transient_faults(self) -> None:
        for code in self.TRANSIENT_FAULTS:
            self.clear_fault(code)

    @property
    def pending_events(self) -> int:
        """Events not yet ACKed by the host."""
        with self.lock:
            return len(self._outbox)

    def _send_loop(self) -> None:
        while not self._stop.is_set():
            with self._cv:
                while not self._stop.is_set() and not (self._outbox and self._session is not None and self._powered):
                    self._cv.wait(0.25)
                if self._stop.is_set():
                    return
                out, session = self._outbox[0], self._session
            assert session is not None
            try:
                seq = session.send(out.type, *out.fields)
            except Nak as refused:
                if refused.reason in LINK_REASONS:
                    # Every copy was damaged on the way (NAK|CRC) or the host was busy
                    # (NAK|BSY): the host never decided on the event. That is a link
                    # fault, not a refusal: the event stays first in line and goes
                    # out again as a new frame (the host takes it once, by content).
                    self._log.warning("event not delivered: resends used up", type=out.type, nak=refused.reason)
                    self._stop.wait(self.timing.ack_timeout)
                    continue
                with self.lock:
                    if self._outbox and self._outbox[0] is out:
                        self._outbox.popleft()
                    self.on_refused(out, refused.reason)
                    if out.on_done is not None:
                        out.on_done(False, refused.reason)
                continue
            except (LinkDown, RuntimeError):
                # Not delivered (or the session is being replaced): it stays first in line.
                self._stop.wait(self.timing.ack_timeout)
                continue
            with self.lock:
                if out.power is not None and self._powered:
                    spec, out.power = out.power, None  # the host took it, but the power goes before its ACK counts
                else:
                    spec = None
                    if self._outbox and self._outbox[0] is out:
                        self._outbox.popleft()
                    self.last_acked_seq = seq
                    if out.on_done is not None:
                        out.on_done(True, None)
            if spec is not None:
                self._power_cycle(spec)

    # -- power -----------------------------------------------------------------------

    def _power_cycle(self, spec: FaultSpec) -> None:
        """Lose power, stay off ``spec.duration`` s, boot, send PWR and replay what was not ACKed."""
        with self.lock:
            state_before = self.state
            acked = self.last_acked_seq
            self._powered = False
            self._epoch += 1
            self._timers.clear()
            session, self._session = self._session, None
            self.power_losses += 1
            self.on_power_loss()
        self._log.warning("power lost", fault=str(spec), state_before=state_before)
        if session is not None:
            session.close()
        if self._stop.wait(spec.duration or 0.0):
            return
        with self.lock:
            self.boot += 1
            self._booted_at = time.monotonic()
            self.last_acked_seq = None
            self._powered = True
            self._last_new = None
            self._outbox.appendleft(
                Outgoing("PWR", (str(self.boot), "" if acked is None else f"{acked:02X}", state_before))
            )
            port = self._port
            if port is not None:
                reset = getattr(port, "reset_input_buffer", None)
                if reset is not None:
                    reset()  # what the host sent while the power was off is gone
                self._open_session(port)
        self._log.info("booted", boot=self.boot, replay=len(self._outbox) - 1)

    # -- link-level faults (the session's threads) ------------------------------------

    def _silence(self, start: float, duration: float | None) -> None:
        self._silences.append((start, start + duration if duration is not None else float("inf")))

    def mute(self, on: bool) -> None:
        """Go silent (True) until unmuted (False): nothing goes out, nothing is heard."""
        with self.lock:
            if on:
                self._silence(time.monotonic(), None)
            else:
                self._silences.clear()

    def muted(self) -> bool:
        """Powered off or silent: nothing goes out, nothing is heard."""
        if not self._powered:
            return True
        if self._silences:
            now = time.monotonic()
            return any(start <= now < end for start, end in self._silences)
        return False

    def on_write(self, data: bytes) -> bytes:
        """The bytes that really leave for ``data`` (one whole frame per write)."""
        if self.muted():
            return b""
        if len(data) >= 10 and data[0] == STX and data[7:10].decode("ascii", "replace") not in ANSWER_TYPES:
            with self.lock:
                if data != self._last_new:  # a new frame, not a resend
                    self._last_new = data
                    self.count["frame"] += 1
                    n = self.count["frame"]
                    if self.plan.take("crc", "frame", n) is not None:
                        self._log.info("fault: frame sent with a bad CRC", frame=n)
                        digit = data[-6:-5]
                        data = data[:-6] + (b"0" if digit != b"0" else b"1") + data[-5:]
                    elif self.plan.take("drop", "frame", n) is not None:
                        self._log.info("fault: frame dropped", frame=n)
                        return b""
                    silent = self.plan.take("silent", "frame", n)
                    if silent is not None:
                        self._log.info("fault: the line goes silent", frame=n, seconds=silent.duration)
                        self._silence(time.monotonic(), silent.duration)
                        return b""
        if self.trace is not None:
            self.trace(data, time.perf_counter())
        return data

    # -- frames in (reader thread: quick, never send) ------------------------------------

    def _on_link(self, up: bool, reason: str) -> None:
        self._log.info("link up" if up else "link down", reason=reason)
        if not up and reason.startswith(("transport", "link reader failed")):
            self._broken = True
        if up:
            with self._cv:
                self._cv.notify_all()

    def _pon_fields(self) -> tuple[str, str, str]:
        with self.lock:
            mask = 0
            for severity, _ in self.active_faults.values():
                mask |= _SEVERITY_BITS.get(severity, 0)
            return (self.state, f"{mask:X}", str(int(time.monotonic() - self._booted_at)))

    def _on_frame(self, frame: Frame) -> NakReason | None:
        with self.lock:
            handler = self._handlers.get(frame.type)
            if handler is None:
                self._log.info("unknown command", type=frame.type)
                return NakReason.UNK
            try:
                return handler(frame)
            except Refuse as refused:
                self._log.info("command refused", type=frame.type, nak=str(refused.reason), why=refused.why)
                return refused.reason

    def _on_hel(self, frame: Frame) -> NakReason | None:
        parse.fields(frame, 0)
        self.emit("IDN", self.MODEL, self.serial_no, FIRMWARE, PROTOCOL, firmware_hash())
        return None

    def _on_sta(self, frame: Frame) -> NakReason | None:
        parse.fields(frame, 0)
        codes = ",".join(str(c) for c in sorted(self.active_faults))
        self.emit("STS", self.state, codes, *self.status_fields())
        return None

    def _on_rst(self, frame: Frame) -> NakReason | None:
        parse.fields(frame, 0)
        self._epoch += 1
        self._timers.clear()
        self.reset()
        for code in list(self.active_faults):
            self.clear_fault(code)
        return None

    def _on_slf(self, frame: Frame) -> NakReason | None:
        parse.fields(frame, 0)
        self.emit("SLR", ",".join(str(c) for c in sorted(self.active_faults)))
        return None
