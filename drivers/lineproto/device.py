"""The host's end of a line-protocol device: port, reader, commands, poll.

:class:`LineDevice` opens its port with ``serial.serial_for_url`` (so any
pyserial URL: ``/dev/ttyUSB0``, ``socket://HOST:PORT`` for a device behind
a TCP serial server, a pty), reads it on a thread of its own, and hands
each line to the first message whose pattern matches all of it. The kind's
driver (:mod:`drivers.lineproto.kinds`) turns the named groups into typed
events. Rules every line driver keeps:

- a line that is malformed (framing, characters, checksum) or matches no
  message is logged as such and never becomes an event; neither does a
  matching line whose fields the driver cannot accept;
- commands never raise for link trouble: a command not answered in time is
  ``FaultRaised`` 101, one refused is 102 (severity ``E``), kept in
  ``health`` until a later command goes through;
- a polled device that stops answering for ``poll_misses`` polls, or a
  port that fails, is ``LinkLost``; the first line heard again (after the
  port is opened again, for a failed port) is ``LinkRestored``, and the
  state the table last asked for (armed or not) is sent again;
- ``close()`` joins the threads and closes the port.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from typing import Any

import structlog

from drivers.base import Device, round_context
from drivers.events import DeviceEvent, FaultCleared, FaultRaised, LinkLost, LinkRestored
from drivers.lineproto.codec import BadLine, Frame, LineDecoder, frames
from drivers.lineproto.faultmap import MappedFault
from drivers.lineproto.spec import LineSpec, Message
from drivers.lineproto.watch import LineWatch
from drivers.serial.link_device import COMMAND_NOT_DELIVERED, COMMAND_REFUSED, HOST_FAULTS, DeviceUnavailable
from tablecore import threadnames

log = structlog.get_logger(__name__)

#: what the driver tells its cue listeners (an emulated dealer): ("arm", values) / ("disarm", {})
Cue = Callable[[str, dict[str, Any]], None]


class Unacceptable(Exception):
    """A line that matched a message but whose fields cannot be taken (logged, no event)."""


class _Answer:
    def __init__(self, expect: str | None, refused: Any) -> None:
        self.expect, self.refused = expect, refused
        self.result: str | None = None  # "ok" or the refusing line
        self.done = threading.Event()


class LineDevice(Device):
    """Base of the line drivers; subclasses map messages to events (``on_message``)."""

    def __init__(self, url: str, *, spec: LineSpec, baudrate: int = 9600, name: str | None = None,
                 reconnect_interval: float | None = 1.0, identify_timeout: float = 2.0,
                 transport_wrapper: Any = None) -> None:
        super().__init__(name)
        self.url, self.spec, self.baudrate = url, spec, baudrate
        self.reconnect_interval = reconnect_interval
        self.identify_timeout = identify_timeout
        self.transport_wrapper = transport_wrapper
        self.cues: list[Cue] = []
        self.counts = self.health.counts  # the device's status carries them
        self.counts.update({"lines": 0, "events": 0, "malformed": 0, "unknown": 0, "refused": 0, "noise": 0,
                            "duplicates": 0})
        #: the time of a line (seconds): monotonic, or a replayed capture's own clock
        self.clock: Callable[[], float] = time.monotonic
        self._bare = any(m.bare for m in spec.messages)
        self._recent: dict[str, tuple[str, float]] = {}  # message -> (its last line, when): the duplicate window
        self._watch = LineWatch()
        self._flag_faults: set[int] = set()  # table codes raised by a {flags} group, cleared when its bits go
        self.health.link_up = False
        self._log = log.bind(device=self.name, where=url)
        self._lock = threading.RLock()
        self._cmd_lock = threading.Lock()
        self._events: queue.Queue[DeviceEvent | None] = queue.Queue()
        self._port: Any = None
        self._decoder = LineDecoder(spec.fmt, raw=True)
        self._answer: _Answer | None = None
        self._closing = threading.Event()
        self._heard = threading.Event()
        self._last_heard = 0.0
        self._lost = False
        self._threads: list[threading.Thread] = []
        self._desired: tuple[str, dict[str, Any]] | None = None  # the state command to send again

    @classmethod
    def from_settings(cls, settings: dict[str, Any]) -> "LineDevice":
        return cls(**settings)

    # -- to be provided by each kind -------------------------------------------------

    def on_message(self, message: Message, groups: dict[str, str]) -> list[DeviceEvent]:
        """Events from one matching line (under the lock); raise Unacceptable to refuse it."""
        raise Unacceptable(f"a {self.kind} has no {message.event} lines")

    # -- opening and closing -----------------------------------------------------------

    def where(self) -> str:
        return self.url

    def _open_port(self) -> Any:
        from drivers.lineproto.capture import CaptureError, ReplayPort, replay_url

        try:
            replay = replay_url(self.url)
            if replay is not None:  # a captured session plays the device (drivers.lineproto.capture)
                port = ReplayPort(replay[0], self.kind, speed=replay[1])
                self.cues[:] = [c for c in self.cues if not isinstance(getattr(c, "__self__", None), ReplayPort)]
                self.cues.insert(0, port.cue)
                self.clock = port.clock
                return port
        except CaptureError as exc:
            raise DeviceUnavailable(f"{self.name}: {exc}") from None
        try:
            import serial
        except ImportError as exc:
            raise DeviceUnavailable(f"line backend disabled: pyserial is not installed ({exc})") from None
        try:
            port = serial.serial_for_url(self.url, baudrate=self.baudrate, timeout=0.05)
        except (serial.SerialException, ValueError, OSError) as exc:
            raise DeviceUnavailable(f"{self.name}: cannot open {self.url}: {exc}") from None
        return self.transport_wrapper(self, port) if self.transport_wrapper is not None else port

    def open(self) -> None:
        """Open the port and start reading; a polled device must answer within ``identify``."""
        if self._port is not None:
            return
        if self._closing.is_set():
            raise DeviceUnavailable(f"{self.name}: closed devices cannot be opened again")
        self._port = self._open_port()
        self._start("reader", self._read_loop)
        if self.spec.poll_interval is None and self.spec.status_interval is not None:
            self._start("watch", self._watch_loop)
        if self.spec.poll_interval is not None:
            self._start("poll", self._poll_loop)
        if self.spec.poll_interval is not None or self.spec.status_interval is not None:
            # heard before the table arms it: a result it shows on its first line is an old one
            if not self._heard.wait(self.identify_timeout):
                self.close()
                how = "of polling" if self.spec.poll_interval is not None else "(it writes its status by itself)"
                raise DeviceUnavailable(f"{self.name}: no line from the device on {self.url} within "
                                        f"{self.identify_timeout:g} s {how} (wrong port, baud rate or cable?)")
        else:
            with self._lock:
                self.health.link_up = True  # nothing to ask: the port is the link
        self._log.info("opened", polled=self.spec.poll_interval)

    def _start(self, label: str, target: Callable[[], None]) -> None:
        thread = threadnames.thread(target, f"line-{self.name}-{label}")
        self._threads.append(thread)
        thread.start()

    def close(self) -> None:
        self._closing.set()
        for thread in self._threads:
            if thread is not threading.current_thread():
                thread.join()
        self._threads.clear()
        port, self._port = self._port, None
        if port is not None:
            try:
                port.close()
            except Exception:  # noqa: BLE001 - closing a failed port must not fail
                pass
        with self._lock:
            self.health.link_up = False
        self._events.put(None)
        self.reported()

    # -- events ------------------------------------------------------------------------

    def next_event(self, timeout: float | None = 0.0) -> DeviceEvent | None:
        try:
            if timeout is None:
                event = self._events.get()
            elif timeout <= 0:
                event = self._events.get_nowait()
            else:
                event = self._events.get(timeout=timeout)
        except queue.Empty:
            return None
        if event is None:
            self._events.put(None)  # closed: every later call returns at once too
        return event

    def _put(self, event: DeviceEvent) -> None:
        self.counts["events"] += 1
        self._events.put(event)
        self.reported()

    # -- reading ----------------------------------------------------------------------

    def _read_loop(self) -> None:
        while not self._closing.is_set():
            port = self._port
            try:
                data = port.read(256) if port is not None else b""
                waiting = getattr(port, "in_waiting", 0) if data else 0
                if waiting:
                    data += port.read(waiting)
            except Exception as exc:  # noqa: BLE001 - any read failure ends this port
                if self._closing.is_set():
                    return
                self._link_down(f"transport failed: {exc}")
                self._reopen()
                continue
            if data:
                for item in self._decoder.feed(data):
                    self._line(item)

    def _reopen(self) -> None:
        old, self._port = self._port, None
        if old is not None:
            try:
                old.close()
            except Exception:  # noqa: BLE001
                pass
        while not self._closing.wait(self.reconnect_interval or 1.0):
            try:
                self._port = self._open_port()
            except DeviceUnavailable as exc:
                self._log.info("reconnect failed", error=str(exc))
                continue
            self._decoder = LineDecoder(self.spec.fmt, raw=True)
            self._log.info("reconnected")
            if self.spec.poll_interval is None:
                self._link_up()
            return

    def _line(self, item: bytes | BadLine) -> None:
        self.counts["lines"] += 1
        found = frames(self.spec.fmt, item, bare=self._bare, resync=self.spec.resync) \
            if isinstance(item, bytes) else item
        self._watch_line(isinstance(found, BadLine))
        if isinstance(found, BadLine):
            self.counts["malformed"] += 1
            self._log.warning("malformed line", why=found.reason, line=found.raw.decode("ascii", "replace"))
            return
        with self._lock:
            self._link_up()
            if any(self._answered(f.payload) for f in found[:1]):
                return
            hit = self._match(found)
            if hit is None:
                self.counts["unknown"] += 1
                self._log.warning("unknown line", line=item.decode("ascii", "replace"))
                return
            frame, message, groups = hit
            if frame.noise:
                # what came before the frame is noise, never a card: said, counted
                self.counts["noise"] += 1
                self._log.warning("noise before a frame", noise=frame.noise.decode("ascii", "replace"),
                                  line=frame.payload)
            if self._duplicate(message, frame.payload):
                return
            try:
                events = self._flags(groups)
                common = self._common(message, groups)
                events += self.on_message(message, groups) if common is None else common
            except Unacceptable as why:
                self.counts["refused"] += 1
                self._log.warning("line not taken", message=message.name, line=frame.payload, why=str(why))
                return
            for event in events:
                self._put(event)

    def _watch_line(self, malformed: bool) -> None:
        """Garbage or a flood as the device's named fault (drivers.lineproto.watch), never an event of its lines."""
        raised, cleared = self._watch.line(self.clock(), malformed)
        with self._lock:
            for code, text in raised:
                self._log.warning("line fault", code=code, text=text)
                self.health.faults[code] = text
                self._put(FaultRaised(code, "W", text, device=self.name))
            for code in cleared:
                if self.health.faults.pop(code, None) is not None:
                    self._put(FaultCleared(code, device=self.name))

    def _match(self, found: list[Frame]) -> tuple[Frame, Message, dict[str, str]] | None:
        """The first frame a message matches (a bare frame only a bare message), with its groups."""
        for frame in found:
            for message in self.spec.messages:
                if message.bare != frame.bare:
                    continue
                match = message.pattern.fullmatch(frame.payload)
                if match is not None:
                    return frame, message, {k: v for k, v in match.groupdict().items() if v is not None}
        return None

    def _duplicate(self, message: Message, payload: str) -> bool:
        """A repeat of the message's last line within its window, with no arm between: one read."""
        if message.duplicate_window is None:
            return False
        now = self.clock()
        last = self._recent.get(message.name)
        self._recent[message.name] = (payload, now)
        if last is not None and last[0] == payload and now - last[1] <= message.duplicate_window:
            self.counts["duplicates"] += 1
            self._log.info("duplicate line taken once", message=message.name, line=payload)
            return True
        return False

    def _flags(self, groups: dict[str, str]) -> list[DeviceEvent]:
        """The faults a {flags} group raises and clears, through the configuration's flag map."""
        if "flags" not in groups or not self.spec.faults.flags and not self.spec.turns.no_spin_flags:
            return []
        from drivers.lineproto.turns import flag_bits

        value = flag_bits(groups["flags"])
        if value is None:
            raise Unacceptable(f"flags {groups['flags']!r} are not hex")
        raised = self.spec.faults.bits(self.kind, value, ignore=self.spec.turns.no_spin_flags)
        events: list[DeviceEvent] = []
        for code in sorted(self._flag_faults - set(raised)):
            self._flag_faults.discard(code)
            if self.health.faults.pop(code, None) is not None:
                events.append(FaultCleared(code, device=self.name))
        for code, fault in raised.items():
            self._flag_faults.add(code)
            events += self._raise(fault)
        return events

    def _raise(self, fault: MappedFault) -> list[DeviceEvent]:
        if self.health.faults.get(fault.code) == fault.text:
            return []  # the same fault shown again (a status line repeats it)
        self.health.faults[fault.code] = fault.text
        return [FaultRaised(fault.code, fault.severity, fault.text, device=self.name)]  # type: ignore[arg-type]

    def reset_duplicates(self) -> None:
        """An arm: a line after it is a new read, however soon it comes."""
        self._recent.clear()

    def _answered(self, line: str) -> bool:
        answer = self._answer
        if answer is None or answer.done.is_set():
            return False
        if answer.expect is not None and line == answer.expect:
            answer.result = "ok"
        elif answer.refused is not None and answer.refused.fullmatch(line):
            answer.result = line
        else:
            return False
        answer.done.set()
        return True

    def _common(self, message: Message, groups: dict[str, str]) -> list[DeviceEvent] | None:
        """Fault lines, the same for every kind (None: not one of them)."""
        if message.event not in ("fault", "fault_cleared"):
            return None
        code_s = groups["code"]
        if self.spec.faults.codes:
            mapped = self.spec.faults.code(self.kind, code_s)
            if message.event == "fault_cleared":
                return [FaultCleared(mapped.code, device=self.name)] \
                    if self.health.faults.pop(mapped.code, None) is not None else []
            return self._raise(mapped)
        if not (code_s.isascii() and code_s.isdigit() and 100 <= int(code_s) <= 999):
            raise Unacceptable(f"fault code {code_s!r} is not 100-999")
        code = int(code_s)
        if message.event == "fault_cleared":
            return [FaultCleared(code, device=self.name)] if self.health.faults.pop(code, None) is not None else []
        severity = groups.get("severity", message.severity)
        if severity not in ("W", "E", "C"):
            raise Unacceptable(f"severity {severity!r} is not W, E or C")
        text = groups.get("text") or message.name
        if self.health.faults.get(code) == text:
            return []  # the same fault shown again (a status line repeats it)
        self.health.faults[code] = text
        return [FaultRaised(code, severity, text, device=self.name)]  # type: ignore[arg-type]

    # -- link --------------------------------------------------------------------------

    def _link_up(self) -> None:
        self._last_heard = time.monotonic()
        self._heard.set()
        with self._lock:
            self.health.link_up = True
            if not self._lost:
                return
            self._lost = False
            self._put(LinkRestored(device=self.name))
            desired = self._desired
        self._log.info("link restored")
        if desired is not None:
            threading.Thread(target=self._command, args=desired, daemon=True,
                             name=f"line-{self.name}-resync").start()

    def _link_down(self, reason: str) -> None:
        with self._lock:
            self.health.link_up = False
            if self._lost:
                return
            self._lost = True
            self._put(LinkLost(reason, device=self.name))
        self._log.warning("link lost", reason=reason)

    def _watch_loop(self) -> None:
        """A device that writes its status by itself: silent for ``poll_misses`` intervals is a lost link."""
        interval = self.spec.status_interval or 1.0
        self._last_heard = time.monotonic()
        while not self._closing.wait(interval):
            silent = time.monotonic() - self._last_heard
            if silent > interval * self.spec.poll_misses and self._port is not None:
                self._link_down(f"no line for {silent:.1f} s (the device writes its status every {interval:g} s)")

    def _poll_loop(self) -> None:
        interval = self.spec.poll_interval or 1.0
        self._last_heard = time.monotonic()
        while not self._closing.is_set():
            self._command("poll", {})
            if self._closing.wait(interval):
                return
            silent = time.monotonic() - self._last_heard
            if silent > interval * self.spec.poll_misses and self._port is not None:
                self._link_down(f"no line for {silent:.1f} s ({self.spec.poll_misses} polls unanswered)")

    # -- commands -------------------------------------------------------------------------

    def _cue(self, action: str, values: dict[str, Any]) -> None:
        for cue in list(self.cues):
            cue(action, values)

    def _state_command(self, name: str, values: dict[str, Any]) -> bool:
        with self._lock:
            self._desired = (name, values)
            if name == "arm":
                self.reset_duplicates()
        ok = self._command(name, values)
        self._cue(name, values)
        return ok

    def _command(self, name: str, values: dict[str, Any]) -> bool:
        """Send command ``name`` if the device takes one; False (and a 101/102 fault) if it did not go through."""
        context = round_context()  # the table's round, for the lines the reader thread logs
        if context:
            self._log = log.bind(device=self.name, where=self.url, **context)
        command = self.spec.commands.get(name)
        port = self._port
        if command is None:
            return True  # the device has no such command: the host keeps the state itself
        with self._cmd_lock:
            text = command.send.render(values)
            expect = command.expect.render(values) if command.expect is not None else None
            answer = _Answer(expect, command.refused)
            with self._lock:
                self._answer = answer if (expect is not None or command.refused is not None) else None
            try:
                if port is None:
                    raise OSError("the port is not open")
                port.write(self.spec.fmt.encode(text))
            except Exception as exc:  # noqa: BLE001 - a failed write is a command not delivered
                if name != "poll":
                    self._command_fault(COMMAND_NOT_DELIVERED, f"{name} not delivered to the {self.kind}: {exc}")
                return False
            if expect is None:
                return True
            answered = answer.done.wait(command.timeout)
            with self._lock:
                self._answer = None
        if not answered:
            if name != "poll":
                self._command_fault(COMMAND_NOT_DELIVERED, f"{name} not answered by the {self.kind} "
                                    f"within {command.timeout:g} s (expected {expect!r})")
            return False
        if answer.result != "ok":
            self._command_fault(COMMAND_REFUSED, f"{name} refused by the {self.kind}: {answer.result!r}")
            return False
        self._command_ok()
        return True

    def _command_fault(self, code: int, text: str) -> None:
        if self._closing.is_set():
            return
        self._log.warning("command failed", code=code, text=text)
        with self._lock:
            self.health.faults[code] = text
            self._put(FaultRaised(code, "E", text, device=self.name))

    def _command_ok(self) -> None:
        with self._lock:
            for code in HOST_FAULTS:
                if self.health.faults.pop(code, None) is not None:
                    self._put(FaultCleared(code, device=self.name))
