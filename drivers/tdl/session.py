"""The TDL/1 reliable link over a byte transport (pyserial interface).

One session per device connection, on either end: ``role="host"`` on the
table PC, ``role="device"`` in an emulator (or firmware written after it).

Threads: one reader (decodes, answers, delivers) and one heartbeat thread
(the host sends PNG; the device watches for the host's silence). ``send``
runs in the caller's thread: stop-and-wait, one frame in flight per session,
callers are serialised.

Callbacks (``on_frame``, ``on_link``) run on the session's threads and must
return quickly. They must not call ``send``: the reader that would have to
process the answer is the thread running the callback. ``send`` refuses with
RuntimeError there; hand such work to a thread of your own.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Literal, ParamSpec, Protocol, TypeVar

import structlog

from drivers.tdl.decoder import StreamDecoder
from drivers.tdl.errors import FrameError, LinkDown, Nak, NakReason
from drivers.tdl.frame import ACK, ANSWER_TYPES, NAK, PNG, PON, Frame, encode
from tablecore import threadnames

log = structlog.get_logger(__name__)

Role = Literal["host", "device"]
OnFrame = Callable[[Frame], NakReason | str | None]
OnLink = Callable[[bool, str], None]
PonFields = Callable[[], Sequence[str]]

_P = ParamSpec("_P")
_R = TypeVar("_R")

# Frames the owner may not send: the session produces them itself.
_RESERVED_TYPES = ANSWER_TYPES | {PNG}


class Transport(Protocol):
    """What ``serial.serial_for_url`` returns, as far as the session uses it."""

    timeout: float | None

    def write(self, data: bytes, /) -> int | None: ...

    def read(self, size: int = 1, /) -> bytes: ...

    def close(self) -> None: ...


class _Pending:
    """The one frame in flight, waiting for its answer (ACK, NAK or PON)."""

    def __init__(self, seq: int) -> None:
        self.seq = seq
        self.answered = threading.Event()
        self.answer: Frame | None = None


class LinkSession:
    """The reliable TDL/1 link for one device address over one transport.

    Timing defaults are the protocol's; tests scale them down. The session
    owns the transport: it sets its read ``timeout`` to ``read_poll`` (so the
    reader notices ``close``) and closes it in ``close``.
    """

    def __init__(
        self,
        transport: Transport,
        *,
        role: Role,
        addr: int,
        on_frame: OnFrame | None = None,
        on_link: OnLink | None = None,
        pon_fields: PonFields | None = None,
        ack_timeout: float = 0.2,
        max_resends: int = 3,
        heartbeat_interval: float | None = 1.0,
        heartbeat_misses: int = 3,
        max_gap: float = 0.1,
        read_poll: float = 0.05,
        initial_seq: int = 0,
        name: str | None = None,
    ) -> None:
        if role not in ("host", "device"):
            raise ValueError(f"role must be 'host' or 'device', not {role!r}")
        if not 0 <= addr <= 0xFF or not 0 <= initial_seq <= 0xFF:
            raise ValueError("addr and initial_seq must be 0-255")
        self.role: Role = role
        self.addr = addr
        self.name = name or f"{role}-{addr:02X}"
        self.ack_timeout = ack_timeout
        self.max_resends = max_resends
        self.heartbeat_interval = heartbeat_interval
        self.heartbeat_misses = heartbeat_misses
        self.read_poll = read_poll
        self._transport = transport
        self._on_frame = on_frame
        self._on_link = on_link
        self._pon_fields = pon_fields or self._default_pon_fields
        self._decoder = StreamDecoder(max_gap=max_gap)
        self._log = log.bind(link=self.name, role=role, addr=f"{addr:02X}")

        self._next_seq = initial_seq
        self._tx_lock = threading.Lock()  # one frame in flight
        self._write_lock = threading.Lock()  # frames from different threads never interleave
        self._pending_lock = threading.Lock()
        self._pending: _Pending | None = None
        self._link_lock = threading.Lock()  # state change + callback, in order
        self._link_up: bool | None = None  # None: never known
        self._callback = threading.local()

        # Receiver state: the last frame taken from the peer and our answer to it.
        self._last_rx: Frame | None = None
        self._last_answer = b""
        self._started_at = time.monotonic()
        self._last_heard = self._started_at

        self._stop = threading.Event()
        self._broken: str | None = None  # why the transport failed, if it did
        self._threads: list[threading.Thread] = []
        self._reader: threading.Thread | None = None
        self._closed = False
        self._close_lock = threading.Lock()

    # -- owner API ---------------------------------------------------------

    def bind_log(self, **context: str) -> None:
        """Add ``context`` (a table's round: table, game, round_id) to every line this link logs."""
        self._log = self._log.bind(**context)

    def start(self) -> None:
        """Start the reader and heartbeat threads."""
        if self._threads or self._closed:
            raise RuntimeError(f"{self.name}: start() called twice or after close()")
        self._transport.timeout = self.read_poll
        self._started_at = self._last_heard = time.monotonic()
        self._reader = threadnames.thread(self._read_loop, f"tdl-{self.name}-reader")
        self._threads.append(self._reader)
        if self.heartbeat_interval is not None:
            beat = self._ping_loop if self.role == "host" else self._watch_loop
            self._threads.append(threadnames.thread(beat, f"tdl-{self.name}-heartbeat"))
        for thread in self._threads:
            thread.start()

    @property
    def link_up(self) -> bool:
        return bool(self._link_up)

    @property
    def closed(self) -> bool:
        return self._closed

    def send(self, type: str, *fields: str) -> int:
        """Send one frame and wait until the peer ACKs it; return its SEQ.

        Raises Nak (the peer refused it, or stayed busy), LinkDown (no answer
        after ``max_resends`` resends, transport failure, session closed) and
        FrameError (the frame itself is invalid; nothing was sent).
        """
        if type in _RESERVED_TYPES:
            raise ValueError(f"{type} frames belong to the link layer")
        if self._closed:
            raise LinkDown("session closed")
        if not self._threads:
            raise RuntimeError(f"{self.name}: send() before start()")
        if threading.current_thread() is self._reader or getattr(self._callback, "active", False):
            raise RuntimeError(
                f"{self.name}: send() from a session callback would deadlock; hand the work to another thread"
            )
        answer = self._transact(type, tuple(fields), resends=self.max_resends)
        if answer is None:
            reason = f"no answer to {type} after {self.max_resends} resends"
            self._set_link(False, reason)
            raise LinkDown(reason)
        if answer.type == NAK:
            raise Nak(answer.fields[0] if answer.fields else "", type, answer.seq)
        return answer.seq

    def close(self) -> None:
        """Stop and join the session's threads, then close the transport. Idempotent."""
        with self._close_lock:
            if self._closed:
                return
            self._closed = True
        self._stop.set()
        self._wake_pending()
        cancel_read = getattr(self._transport, "cancel_read", None)
        if cancel_read is not None:
            try:
                cancel_read()
            except Exception:  # noqa: BLE001 - the port may already be gone; we close it anyway
                pass
        for thread in self._threads:
            if thread is not threading.current_thread():
                thread.join()
        try:
            self._transport.close()
        except Exception as exc:  # noqa: BLE001 - closing must not fail the owner's shutdown
            self._log.warning("transport close failed", error=repr(exc))
        self._log.debug("closed")

    def __enter__(self) -> LinkSession:
        if not self._threads:
            self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- sending -----------------------------------------------------------

    def _transact(self, type: str, fields: tuple[str, ...], *, resends: int) -> Frame | None:
        """Send a new frame, resending on silence; its answer, or None if none came."""
        with self._tx_lock:
            self._check_usable()
            raw = encode(Frame(self.addr, self._next_seq, type, fields))  # FrameError: no SEQ used
            seq, self._next_seq = self._next_seq, (self._next_seq + 1) % 0x100
            pending = _Pending(seq)
            with self._pending_lock:
                self._pending = pending
            try:
                for attempt in range(resends + 1):
                    if attempt:
                        self._log.info("resend", type=type, seq=f"{seq:02X}", attempt=attempt)
                    self._write(raw, drain=True)
                    pending.answered.wait(self.ack_timeout)
                    self._check_usable()
                    answer = pending.answer
                    if answer is None:
                        continue
                    reason = answer.fields[0] if answer.type == NAK and answer.fields else None
                    if reason not in (NakReason.CRC, NakReason.BSY) or attempt == resends:
                        return answer
                    # CRC: it was damaged on the way, resend now. BSY: give the peer a moment.
                    if reason == NakReason.BSY:
                        self._stop.wait(self.ack_timeout)
                        self._check_usable()
                    with self._pending_lock:
                        pending.answer = None
                        pending.answered.clear()
                return None
            finally:
                with self._pending_lock:
                    self._pending = None

    def _check_usable(self) -> None:
        if self._stop.is_set():
            raise LinkDown("session closed")
        if self._broken is not None:
            raise LinkDown(self._broken)

    def _write(self, raw: bytes, *, drain: bool = False) -> None:
        with self._write_lock:
            try:
                self._transport.write(raw)
                # The answer timeout runs from when the frame has left the port:
                # at 9600 baud a full frame alone takes longer than 200 ms.
                flush = getattr(self._transport, "flush", None)
                if drain and flush is not None:
                    flush()
            except Exception as exc:
                if self._stop.is_set():
                    # close() took the port away between a resend's check and its
                    # write: that is the session closing, not a failing transport
                    raise LinkDown("session closed") from exc
                self._fail(f"transport write failed: {exc!r}")
                raise LinkDown(self._broken or "transport failed") from exc

    def _wake_pending(self) -> None:
        with self._pending_lock:
            if self._pending is not None:
                self._pending.answered.set()

    # -- receiving (reader thread) -----------------------------------------

    def _read_loop(self) -> None:
        while not self._stop.is_set():
            try:
                # read(n) waits for all n bytes, so ask for what is there (or 1).
                data = self._transport.read(1)
                waiting = getattr(self._transport, "in_waiting", 0) if data else 0
                if waiting:
                    data += self._transport.read(waiting)
            except Exception as exc:  # noqa: BLE001 - any read failure ends this transport
                if not self._stop.is_set():
                    self._fail(f"transport read failed: {exc!r}")
                return
            try:
                for item in self._decoder.feed(data):
                    self._handle(item)
            except LinkDown:
                return  # an answer could not be written; _write has recorded why
            except Exception as exc:
                # A deaf session that looks alive is the worst outcome: fail loudly.
                self._log.exception("link reader failed")
                self._fail(f"link reader failed: {exc!r}")
                return

    def _handle(self, item: Frame | FrameError) -> None:
        if isinstance(item, FrameError):
            self._on_bad_frame(item)
            return
        frame = item
        if frame.addr != self.addr:
            # A probe greets every address at once (PNG): on a point-to-point
            # line that is routine, not worth a warning; any other frame is.
            level = self._log.debug if frame.type == PNG else self._log.warning
            level("frame for another address ignored", frame=repr(frame))
            return
        self._last_heard = time.monotonic()
        self._set_link(True)
        if frame.type in ANSWER_TYPES:
            self._on_answer(frame)
        elif frame.type == PNG and self.role == "host":
            self._write(encode(Frame(self.addr, frame.seq, NAK, (NakReason.UNK,))))
        else:
            self._on_message(frame)

    def _on_bad_frame(self, error: FrameError) -> None:
        self._log.warning("bad frame", error=str(error))
        # NAK only what we can address: the SEQ must have been readable, and
        # answers are never answered.
        if error.seq is None or error.addr != self.addr or error.type in ANSWER_TYPES:
            return
        self._write(encode(Frame(self.addr, error.seq, NAK, (error.reason,))))

    def _on_answer(self, frame: Frame) -> None:
        with self._pending_lock:
            pending = self._pending
            matched = pending is not None and pending.seq == frame.seq and pending.answer is None
            if matched:
                pending.answer = frame  # type: ignore[union-attr]
                pending.answered.set()  # type: ignore[union-attr]
        if not matched:
            self._log.debug("late or unexpected answer", frame=repr(frame))
        elif frame.type == PON and self._on_frame is not None:
            self._deliver(frame)  # the device's state and faults, for the owner

    def _on_message(self, frame: Frame) -> None:
        last = self._last_rx
        if last == frame:
            # Our answer was lost and the peer resent: answer again, deliver once.
            # (A peer that restarted and reused the SEQ sends different content.)
            self._log.info("duplicate answered again", type=frame.type, seq=f"{frame.seq:02X}")
            self._write(self._last_answer)
            return
        if last is not None and frame.seq != (last.seq + 1) % 0x100:
            # Legitimate after the peer restarted or gave up on a frame; worth a trace.
            self._log.warning("peer SEQ out of order", expected=f"{(last.seq + 1) % 0x100:02X}", got=f"{frame.seq:02X}")
        answer = self._pong(frame) if frame.type == PNG else self._verdict(frame)
        try:
            raw = encode(answer)
        except FrameError:  # only PON fields come from outside the session
            self._log.exception("pon_fields gave an invalid PON; answering NAK|BSY")
            answer = Frame(self.addr, frame.seq, NAK, (NakReason.BSY,))
            raw = encode(answer)
        self._write(raw)
        if not (answer.type == NAK and answer.fields == (NakReason.BSY,)):
            # BSY decides nothing: a resend must reach the owner again.
            self._last_rx, self._last_answer = frame, raw

    def _verdict(self, frame: Frame) -> Frame:
        reason = self._deliver(frame)
        if reason is None:
            return Frame(self.addr, frame.seq, ACK)
        return Frame(self.addr, frame.seq, NAK, (reason,))

    def _deliver(self, frame: Frame) -> NakReason | None:
        """Give ``frame`` to the owner; the NAK reason it chose, if any."""
        if self._on_frame is None:
            return None
        try:
            reason = self._in_callback(self._on_frame, frame)
            return None if reason is None else NakReason(reason)
        except Exception:
            # An owner that failed has not taken the frame: BSY makes the sender try again.
            self._log.exception("on_frame failed; answering NAK|BSY", frame=repr(frame))
            return NakReason.BSY

    def _pong(self, ping: Frame) -> Frame:
        try:
            return Frame(self.addr, ping.seq, PON, tuple(self._pon_fields()))
        except Exception:
            self._log.exception("pon_fields failed; answering NAK|BSY")
            return Frame(self.addr, ping.seq, NAK, (NakReason.BSY,))

    def _default_pon_fields(self) -> tuple[str, str, str]:
        return ("IDLE", "0", str(int(time.monotonic() - self._started_at)))

    # -- heartbeat ---------------------------------------------------------

    def _ping_loop(self) -> None:
        """Host: PNG every interval (the first at once); N misses in a row = link down."""
        assert self.heartbeat_interval is not None
        interval, misses = self.heartbeat_interval, 0
        due = time.monotonic()
        while not self._stop.wait(max(0.0, due - time.monotonic())):
            try:
                answer = self._transact(PNG, (), resends=0)  # a heartbeat is never resent
            except LinkDown:
                return  # closed or transport failed
            if answer is not None or time.monotonic() - self._last_heard < interval:
                # Any frame heard within the interval proves the peer is there:
                # a busy peer's late PON must not count toward link down.
                misses = 0
            else:
                misses += 1
                self._log.info("heartbeat missed", misses=misses)
                if misses >= self.heartbeat_misses:
                    self._set_link(False, f"{misses} heartbeats missed")
            due = max(due + interval, time.monotonic())  # late beats are not made up

    def _watch_loop(self) -> None:
        """Device: the host is gone when nothing came from it for N intervals."""
        assert self.heartbeat_interval is not None
        limit = self.heartbeat_interval * self.heartbeat_misses
        while not self._stop.wait(self.heartbeat_interval):
            silent = time.monotonic() - self._last_heard
            if silent > limit:
                self._set_link(False, f"no heartbeat from the host for {silent:.1f} s")

    # -- link state ----------------------------------------------------------

    def _set_link(self, up: bool, reason: str = "") -> None:
        with self._link_lock:  # held through the callback so owners see changes in order
            if self._link_up is up:
                return
            if up:
                reason = "established" if self._link_up is None else "restored"
            self._link_up = up
            (self._log.info if up else self._log.warning)("link up" if up else "link down", reason=reason)
            if self._on_link is not None:
                try:
                    self._in_callback(self._on_link, up, reason)
                except Exception:
                    self._log.exception("on_link failed")

    def _fail(self, reason: str) -> None:
        """The transport is unusable: the session stays down until it is recreated."""
        if self._broken is None:
            self._broken = reason
        self._set_link(False, reason)
        self._wake_pending()

    def _in_callback(self, callback: Callable[_P, _R], *args: _P.args, **kwargs: _P.kwargs) -> _R:
        self._callback.active = True
        try:
            return callback(*args, **kwargs)
        finally:
            self._callback.active = False
