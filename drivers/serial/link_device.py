"""What every TDL/1 driver shares: one device, one link, the host's end.

:class:`LinkDevice` opens the port (only ever with ``serial.serial_for_url``,
so a config may name ``/dev/ttyUSB0``, ``socket://host:port``, ``spy://``,
``loop://`` or a pty), runs a ``LinkSession(role="host")`` on it, says
``HEL`` and waits for ``IDN``, and turns device messages into the typed
events of :mod:`drivers.events`, queued for :meth:`next_event`.

Rules every driver follows (docs/protocol.md, "Host drivers"):

- A device message that is malformed (``FMT``), unknown (``UNK``), out of
  order (``SEQ``) or not allowed now (``STA``) is refused with that NAK and
  logged; nothing is delivered from it, and the driver goes on.
- Delivery is idempotent on content: a report the driver already delivered
  (the same card, hand, read-back, fault ...) is ACKed again, never
  delivered twice. ``PWR`` accounting adds the protocol's own rule: after a
  power loss the first replayed event is dropped when the device's
  ``last_acked_seq`` shows the host took it before the outage.
- Commands never raise for link trouble. A command the device refused or
  never got becomes ``FaultRaised`` 102 (refused) or 101 (not delivered),
  severity ``E``, kept in ``health`` until a later command goes through.
- ``health.link_up`` follows the link; a loss and a restoration reach the
  table as ``LinkLost`` / ``LinkRestored``. A device power loss (``PWR``)
  that the heartbeat did not notice is reported as the same pair.
- After the link comes back or the device rebooted, a worker thread sends
  the device the state the table last asked for (armed or not) again.
- ``close()`` joins every thread and closes the port.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Any, ClassVar

import structlog

from drivers.base import Device, round_context
from drivers.events import DeviceEvent, FaultCleared, FaultRaised, LinkLost, LinkRestored
from drivers.tdl import PON, DeviceAddr, Frame, LinkDown, LinkSession, Nak, NakReason, Transport
from drivers.serial import parse
from drivers.serial.parse import Refuse
from drivers.serial.timing import LinkTiming
from tablecore.errors import DeviceFault
from tablecore import threadnames

log = structlog.get_logger(__name__)

#: Host-side faults (1xx: link and common), raised by the driver itself.
COMMAND_NOT_DELIVERED = 101
COMMAND_REFUSED = 102
HOST_FAULTS = (COMMAND_NOT_DELIVERED, COMMAND_REFUSED)

SEVERITIES = ("W", "E", "C")
PROTOCOL = "TDL/1"

Handler = Callable[[Frame], list[DeviceEvent]]

#: What a driver's ``transport_wrapper`` is (record and replay, ``tablesim.harness.recording``):
#: called with the device and each transport it opens, it returns what the session runs on.
TransportWrapper = Callable[["LinkDevice", Transport], Transport]


class DeviceUnavailable(DeviceFault):
    """The device could not be opened or did not identify itself (one line, no traceback)."""

    def __init__(self, text: str) -> None:
        self.code = "unavailable"
        self.text = text
        Exception.__init__(self, text)


class _Closed:
    """Sentinel put in the event queue by close(), so a blocked next_event returns."""


_CLOSED = _Closed()


class LinkDevice(Device):
    """Base of the serial (and USB) drivers; subclasses add commands and handlers."""

    ADDR: ClassVar[DeviceAddr]
    #: whether the device keeps a round across host sessions (the shoe's round
    #: id and card index, the wheel's arming): reset_round then sends RST
    KEEPS_ROUND: ClassVar[bool] = False

    def __init__(
        self,
        url: str | None = None,
        *,
        name: str | None = None,
        baudrate: int = 115200,
        timing: LinkTiming | None = None,
        identify_timeout: float = 2.0,
        reconnect_interval: float | None = 1.0,
        transport_wrapper: TransportWrapper | None = None,
    ) -> None:
        super().__init__(name)
        self.url = url
        #: a listener on this device's bytes (a recorder, a replayer), given when it is
        #: opened (device settings ``transport_wrapper``); None: the port as opened
        self.transport_wrapper = transport_wrapper
        self.baudrate = baudrate
        self.timing = timing or LinkTiming()
        self.identify_timeout = identify_timeout
        self.reconnect_interval = reconnect_interval
        self.health.link_up = False
        self.identity: dict[str, str] | None = None
        self.status: tuple[str, ...] | None = None  # the last STS
        self.self_test: list[int] | None = None  # the last SLR
        self.doors: dict[str, str] = {}
        self.device_state = ""  # from PON
        self.faultmask = 0
        self.boot: int | None = None
        self.power_losses = 0
        self._log = log.bind(device=self.name, addr=f"{self.ADDR:02X}")
        self._context: dict[str, str] = {}  # the table's round, bound to this driver's log lines

        self._lock = threading.RLock()  # driver state, shared by the table thread and the link's threads
        self._cmd_lock = threading.Lock()  # one state-changing command at a time (table or resync)
        self._events: queue.Queue[DeviceEvent | _Closed] = queue.Queue()
        self._session: LinkSession | None = None
        self._work: queue.Queue[Callable[[], None] | None] = queue.Queue()
        self._worker: threading.Thread | None = None
        self._closing = threading.Event()
        self._identified = threading.Event()
        self._opened = False

        # Link and PWR accounting (reader thread, under _lock).
        self._lost = False  # a LinkLost was delivered and not yet followed by LinkRestored
        self._taken = 0  # frames taken from the device (PON excluded)
        self._lost_at = -1  # _taken when the last LinkLost was delivered
        self._last_taken: tuple[int, str, tuple[str, ...]] | None = None  # (seq, type, fields)
        self._replayed: tuple[str, tuple[str, ...]] | None = None  # a replayed event the host has
        self._desired: tuple[str, ...] | None = None  # the state command to send again
        self._desired_failed = False

        self._handlers: dict[str, Handler] = {
            "IDN": self._on_idn,
            "STS": self._on_sts,
            "SLR": self._on_slr,
            "FLT": self._on_flt,
            "FLC": self._on_flc,
            "DOR": self._on_dor,
            **self.device_handlers(),
        }

    # -- to be provided by each driver ---------------------------------------

    def device_handlers(self) -> dict[str, Handler]:
        """Device message TYPE -> handler returning the events to deliver."""
        return {}

    def on_fault(self, code: int, card: Any) -> None:
        """A fault report was taken (under the driver lock); drivers keep books."""

    def fault_source(self, code: int, card: Any) -> str:
        """The load a fault report's card came from (a shoe's pack), or "".
        Called under the driver lock, in the order the reports arrive."""
        return ""

    def resync_command(self, desired: tuple[str, ...]) -> tuple[str, ...] | None:
        """The command that restores ``desired`` on a device that lost it (None: nothing to send)."""
        return desired

    # -- opening and closing --------------------------------------------------

    def open_transport(self) -> Transport:
        """The byte transport to the device: always ``serial.serial_for_url``."""
        try:
            import serial  # pyserial: the serial backend's one dependency
        except ImportError as exc:
            raise DeviceUnavailable(f"serial backend disabled: pyserial is not installed ({exc})") from None
        if not self.url:
            raise DeviceUnavailable(f"{self.name}: no port URL configured")
        try:
            return serial.serial_for_url(self.url, baudrate=self.baudrate, timeout=self.timing.read_poll)
        except (serial.SerialException, ValueError, OSError) as exc:
            raise DeviceUnavailable(f"{self.name}: cannot open {self.url}: {exc}") from None

    def where(self) -> str:
        return self.url or "?"

    def open(self) -> None:
        """Open the port, start the link, say HEL and wait for IDN."""
        with self._lock:
            if self._opened:
                return
            if self._closing.is_set():
                raise DeviceUnavailable(f"{self.name}: closed devices cannot be opened again")
            self._opened = True
        self._worker = threadnames.thread(self._work_loop, f"drv-{self.name}-worker")
        self._worker.start()
        try:
            self._session = self._new_session()
            self._identify()
        except BaseException:
            self.close()
            raise
        self._log.info("opened", where=self.where(), identity=self.identity)

    def reset_round(self) -> bool:
        """``RST`` to a device that keeps a round: it is idle and has forgotten
        the round it was armed for. A refusal is logged, not a fault: the
        table still refuses a card of another round, one by one."""
        session = self._session
        if not self.KEEPS_ROUND or session is None:
            return True
        try:
            session.send("RST")
        except (LinkDown, Nak) as exc:
            self._log.warning("round state not reset", reason=str(exc))
            return False
        self._log.info("round state reset")
        return True

    def _new_session(self) -> LinkSession:
        transport = self.open_transport()
        wrapper = self.transport_wrapper
        if wrapper is not None:
            transport = wrapper(self, transport)
        session = LinkSession(
            transport,
            role="host",
            addr=int(self.ADDR),
            on_frame=self._on_frame,
            on_link=self._on_link,
            name=self.name,
            **self.timing.session_kwargs(),
        )
        if self._context:
            session.bind_log(**self._context)
        session.start()
        return session

    def _bind_context(self) -> None:
        """Bind the calling table thread's round (table, game, round_id) to the
        lines this driver and its link log from their own threads."""
        context = round_context()
        if not context or context == self._context:
            return
        self._context = context
        self._log = log.bind(device=self.name, addr=f"{self.ADDR:02X}", **context)
        session = self._session
        if session is not None:
            session.bind_log(**context)

    def _identify(self) -> None:
        session = self._session
        assert session is not None
        try:
            session.send("HEL")
        except (LinkDown, Nak) as exc:
            raise DeviceUnavailable(f"{self.name}: no answer to HEL on {self.where()}: {exc}") from None
        if not self._identified.wait(self.identify_timeout):
            raise DeviceUnavailable(f"{self.name}: the device on {self.where()} did not identify itself (no IDN)")
        with self._lock:
            self.health.link_up = session.link_up

    def close(self) -> None:
        """Stop the link and the worker, close the port. Safe to call twice."""
        self._closing.set()
        with self._lock:
            session, self._session = self._session, None
        if session is not None:
            session.close()
        worker, self._worker = self._worker, None
        if worker is not None:
            self._work.put(None)
            if worker is not threading.current_thread():
                worker.join()
        with self._lock:
            self.health.link_up = False
        self._events.put(_CLOSED)
        self.reported()

    @property
    def is_open(self) -> bool:
        return self._session is not None and not self._closing.is_set()

    # -- events ------------------------------------------------------------------

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
        if isinstance(event, _Closed):
            self._events.put(event)  # every later call returns at once too
            return None
        return event

    def _put(self, event: DeviceEvent) -> None:
        self._events.put(event)
        self.reported()

    # -- commands ---------------------------------------------------------------

    def _command(self, type: str, *fields: str) -> bool:
        """Send one command; False (and a 101/102 fault event) if it did not go through."""
        self._bind_context()
        session = self._session
        if session is None:
            raise DeviceFault("closed", f"{self.name} is not open")
        try:
            session.send(type, *fields)
        except Nak as exc:
            if not self._closing.is_set():
                self._command_fault(COMMAND_REFUSED, f"{type} refused by the {self.kind}: NAK|{exc.reason}")
            return False
        except LinkDown as exc:
            if not self._closing.is_set():
                self._command_fault(COMMAND_NOT_DELIVERED, f"{type} not delivered to the {self.kind}: {exc.reason}")
            return False
        self._command_ok()
        return True

    def _command_fault(self, code: int, text: str) -> None:
        self._log.warning("command failed", code=code, text=text)
        with self._lock:
            self.health.faults[code] = text
            self._put(FaultRaised(code, "E", text, device=self.name))

    def _command_ok(self) -> None:
        with self._lock:
            for code in HOST_FAULTS:
                if self.health.faults.pop(code, None) is not None:
                    self._put(FaultCleared(code, device=self.name))

    def _state_command(self, type: str, *fields: str, before: Callable[[], None] | None = None) -> bool:
        """A command that sets the device's state; it is sent again after a reboot or a link loss."""
        with self._cmd_lock:
            with self._lock:
                if before is not None:
                    before()
                self._desired = (type, *fields)
            ok = self._command(type, *fields)
            with self._lock:
                if self._desired == (type, *fields):
                    self._desired_failed = not ok
            return ok

    def _resync(self) -> None:
        """Send the state the table last asked for again (worker thread)."""
        with self._cmd_lock:
            with self._lock:
                desired = self._desired
                command = self.resync_command(desired) if desired is not None else None
            if command is None or self._closing.is_set() or self._session is None:
                return
            self._log.info("sending the device its state again", command=command[0])
            ok = self._command(*command)
            with self._lock:
                if self._desired == desired:
                    self._desired_failed = not ok

    # -- worker -----------------------------------------------------------------

    def _post(self, job: Callable[[], None]) -> None:
        if not self._closing.is_set():
            self._work.put(job)

    def _work_loop(self) -> None:
        while True:
            job = self._work.get()
            if job is None or self._closing.is_set():
                return
            try:
                job()
            except Exception:  # noqa: BLE001 - the worker must outlive one failed job
                self._log.exception("driver job failed")

    def _reconnect(self) -> None:
        """The transport failed (unplugged, closed by the peer): open it again until it works."""
        interval = self.reconnect_interval or 1.0
        while not self._closing.wait(interval):
            try:
                session = self._new_session()
            except DeviceFault as exc:
                self._log.info("reconnect failed", error=str(exc))
                continue
            with self._lock:
                old, closing = self._session, self._closing.is_set()
                if not closing:
                    self._session = session
            if closing:
                session.close()
                return
            if old is not None:
                old.close()
            self._log.info("reconnected", where=self.where())
            self._resync()
            return

    # -- link callbacks (session threads: quick, never send) ---------------------

    def _on_link(self, up: bool, reason: str) -> None:
        with self._lock:
            self.health.link_up = up
            if up:
                if self._lost:
                    self._lost = False
                    self._put(LinkRestored(device=self.name))
                    if self._desired_failed:
                        self._post(self._resync)
                return
            if not self._lost and self._opened:
                self._lost = True
                self._lost_at = self._taken
                self._put(LinkLost(reason, device=self.name))
        if not up and self.reconnect_interval and reason.startswith(("transport", "link reader failed")):
            self._post(self._reconnect)

    def _on_frame(self, frame: Frame) -> NakReason | None:
        if frame.type == PON:
            self._on_pon(frame)
            return None
        with self._lock:
            try:
                events = self._take(frame)
            except Refuse as refused:
                self._log.warning(
                    "device message refused", type=frame.type, seq=f"{frame.seq:02X}",
                    fields=list(frame.fields), nak=str(refused.reason), why=refused.why,
                )
                return refused.reason
            except Exception:  # noqa: BLE001 - a driver bug must not take the link down
                self._log.exception("device message could not be handled", frame=repr(frame))
                return NakReason.FMT
            self._taken += 1
            self._last_taken = (frame.seq, frame.type, frame.fields)
            for event in events:
                self._put(event)
        return None

    def _take(self, frame: Frame) -> list[DeviceEvent]:
        if frame.type == "PWR":
            return self._on_pwr(frame)
        if self._replayed is not None:
            replayed, self._replayed = self._replayed, None
            if (frame.type, frame.fields) == replayed:
                self._log.info("replayed event already taken before the power loss", type=frame.type)
                return []
        handler = self._handlers.get(frame.type)
        if handler is None:
            raise Refuse(NakReason.UNK, f"{frame.type} is not a message of a {self.kind}")
        return handler(frame)

    def _on_pon(self, frame: Frame) -> None:
        if len(frame.fields) != 3:
            self._log.warning("malformed PON", fields=list(frame.fields))
            return
        state, mask, _uptime = frame.fields
        with self._lock:
            self.device_state = state
            try:
                self.faultmask = int(mask, 16)
            except ValueError:
                self._log.warning("malformed PON faultmask", faultmask=mask)

    # -- common device messages ---------------------------------------------------

    def _on_idn(self, frame: Frame) -> list[DeviceEvent]:
        model, serial_no, firmware, protocol, firmware_hash = parse.fields(frame, 5)
        if protocol != PROTOCOL:
            self._log.warning("device speaks another protocol", protocol=protocol)
        self.identity = {
            "model": model, "serial": serial_no, "firmware": firmware,
            "protocol": protocol, "firmware_hash": firmware_hash,
        }
        self._identified.set()
        return []

    def _on_sts(self, frame: Frame) -> list[DeviceEvent]:
        self.status = frame.fields
        return []

    def _on_slr(self, frame: Frame) -> list[DeviceEvent]:
        (codes,) = parse.fields(frame, 1)
        self.self_test = [parse.integer(c, "fault code", 100, 999) for c in codes.split(",")] if codes else []
        return []

    def _on_flt(self, frame: Frame) -> list[DeviceEvent]:
        values = parse.fields(frame, 3, 4)
        code = parse.integer(values[0], "fault code", 100, 999)
        severity = parse.choice(values[1], "severity", SEVERITIES)
        text = values[2]
        card = parse.card_code(values[3]).card if len(values) == 4 and values[3] else None
        if self.health.faults.get(code) == text and card is None:
            return []  # the same fault reported again (a resend after a link loss)
        self.health.faults[code] = text
        self.on_fault(code, card)
        return [FaultRaised(code, severity, text, card, self.fault_source(code, card), device=self.name)]  # type: ignore[arg-type]

    def _on_flc(self, frame: Frame) -> list[DeviceEvent]:
        (code_s,) = parse.fields(frame, 1)
        code = parse.integer(code_s, "fault code", 100, 999)
        if self.health.faults.pop(code, None) is None:
            return []
        return [FaultCleared(code, device=self.name)]

    def _on_dor(self, frame: Frame) -> list[DeviceEvent]:
        door, state = parse.fields(frame, 2)
        self.doors[door] = parse.choice(state, "door state", ("OPEN", "CLOSED"))
        self._log.info("door", door=door, state=state)
        return []

    def _on_pwr(self, frame: Frame) -> list[DeviceEvent]:
        boot_s, acked_s, state_before = parse.fields(frame, 3)
        boot = parse.integer(boot_s, "boot#")
        if acked_s and not (len(acked_s) == 2 and all(c in "0123456789ABCDEF" for c in acked_s)):
            raise parse.fmt(f"last_acked_seq {acked_s!r} is not 2 hex digits")
        acked = int(acked_s, 16) if acked_s else None
        last = self._last_taken
        if last is not None and last[1] != "PWR" and acked != last[0]:
            # The host took a frame whose ACK the outage lost: its replay comes first.
            self._replayed = (last[1], last[2])
        self.boot = boot
        self.power_losses += 1
        self._log.warning("device power loss", boot=boot, last_acked=acked_s, state_before=state_before,
                          replay_expected=self._replayed is not None)
        events: list[DeviceEvent] = []
        if self._lost_at != self._taken:  # the heartbeat did not see the outage: report it now
            reason = f"device power loss (boot {boot}, state before {state_before or '?'})"
            events = [LinkLost(reason, device=self.name), LinkRestored(device=self.name)]
            self._lost_at = self._taken
        if self._desired is not None:
            self._post(self._resync)
        return events
