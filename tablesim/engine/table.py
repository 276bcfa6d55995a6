"""The table engine's shared part: one state machine per table, the round's
bet book, round ids, the event bus, device polling, voiding, pausing,
incidents, and the journal.

A game subclasses ``GameTable``, declares ``States``/``STEPS``, lists its
public actions in ``ACTIONS`` and implements event handling and settlement.
Every action validates first and changes state only when it is legal, so a
refused action leaves the table exactly as it was.

With a journal attached, each action (and each device event, through
``handle``) is one journal transaction: its input record and every outcome
it causes commit together. Replaying a round's inputs rebuilds the round
exactly, which is how a table recovers after a power loss.
"""

from __future__ import annotations

import enum
import functools
import time
from contextlib import contextmanager
from typing import Any, Callable, ClassVar, Iterable, Iterator, Sequence

import structlog

from drivers.base import Device
from drivers.events import DeviceEvent, LinkLost, LinkRestored
from tablesim.core.codec import encode
from tablesim.engine.bets import BetBook
from tablesim.engine.events import EventBus, TableEvent
from tablesim.engine.machine import RoundMachine, Step, mermaid
from tablesim.engine.result import RoundResult
from tablesim.core.errors import IllegalAction
from tablesim.log import bind_round

#: actions allowed while the table is paused or holds an open incident
ALWAYS_ALLOWED = frozenset({"handle", "pause", "resume", "void", "resolve_incident"})


class _RoundModel:
    state: enum.Enum


class _MutedDevice:
    """Stands in for a device while a round is replayed: commands do nothing;
    it reports again what the device reported inside a replayed action."""

    def __init__(self, device: Device, pending: list | None = None) -> None:
        self._device = device
        self._pending = pending if pending is not None else []

    def next_event(self, timeout: float | None = 0.0) -> DeviceEvent | None:
        if self._pending and self._pending[0].device == self._device.name:
            return self._pending.pop(0)
        return None

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._device, name)
        if callable(attr):
            return lambda *a, **k: None
        return attr


def _journaled(name: str, fn: Callable) -> Callable:
    @functools.wraps(fn)
    def wrapper(self: "GameTable", *args: Any, **kwargs: Any) -> Any:
        if name == "open_round" and not args and kwargs.get("round_id") is None:
            # Peek, don't draw: a refused open_round must not use up an id
            # (begin_round advances round_no from the id it opens).
            kwargs["round_id"] = f"{self.table_id}-{self.round_no + 1:06d}"
        if self._acting:
            if name == "handle" and self.journal is not None and not self.replaying:
                # A device event taken inside another action (a poll): journaled
                # too, marked nested, so that the replay hands it back there.
                self.journal.append(self.table_id, self.round_id, "input", name,
                                    {"args": encode(list(args)), "kwargs": encode(kwargs), "nested": True},
                                    args[0].device)
            return fn(self, *args, **kwargs)
        if name not in ALWAYS_ALLOWED and not self.replaying:  # journaled inputs were accepted
            if self.paused:
                raise IllegalAction(name.replace("_", " "), "the table is paused")
            if self.incident is not None and self.incident.get("blocking"):
                raise IllegalAction(name.replace("_", " "), f"incident {self.incident['id']} must be resolved first")
        self._acting = True
        try:
            if self.journal is None or self.replaying:
                return fn(self, *args, **kwargs)
            actor = kwargs.get("actor") or (args[0].device if name == "handle" and args else self.actor_for(name))
            with self.journal.transaction():
                rid = kwargs.get("round_id") if name == "open_round" else self.round_id
                self.journal.append(
                    self.table_id, rid, "input", name, {"args": encode(list(args)), "kwargs": encode(kwargs)}, actor
                )
                return fn(self, *args, **kwargs)
        finally:
            self._acting = False

    wrapper.__journaled__ = True  # type: ignore[attr-defined]
    return wrapper


class GameTable:
    game: ClassVar[str]
    States: ClassVar[type[enum.Enum]]
    STEPS: ClassVar[tuple[Step, ...]]
    INITIAL: ClassVar[enum.Enum]
    FINALS: ClassVar[tuple[enum.Enum, ...]]
    BETTING: ClassVar[enum.Enum]
    #: the game's public actions: journaled, replayable, refused while paused
    ACTIONS: ClassVar[tuple[str, ...]] = ()
    BASE_ACTIONS: ClassVar[tuple[str, ...]] = (
        "place_bet",
        "withdraw_bet",
        "void",
        "handle",
        "pause",
        "resume",
        "resolve_incident",
    )

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name in ("open_round", *cls.ACTIONS, *cls.BASE_ACTIONS):
            fn = cls.__dict__.get(name)
            if fn is not None and not getattr(fn, "__journaled__", False):
                setattr(cls, name, _journaled(name, fn))

    def __init__(self, *, table_id: str, book: BetBook, devices: Sequence[Device], bus: EventBus | None = None) -> None:
        self.table_id = table_id
        self.book = book
        self.devices = [d for d in devices if d is not None]
        # bind() resolves structlog's lazy proxy once; per-call resolution was
        # the largest single cost of a round.
        self.log = structlog.get_logger(f"tablesim.{self.game}").bind()
        self.bus = bus or EventBus(self.log)
        self.round_no = 0
        self.round_id = ""
        self.result: RoundResult | None = None
        self.journal = None
        self.replaying = False
        self.paused = False
        self.incident: dict[str, Any] | None = None
        self.incident_no = 0
        self._acting = False
        # The machine's model is a plain holder, so trigger names never collide
        # with the table's own methods (close_betting the action vs the trigger).
        self.sm = _RoundModel()
        self.machine = RoundMachine(self.sm, self.States, self.STEPS, self.INITIAL)

    @property
    def state(self) -> enum.Enum:
        return self.sm.state

    def actor_for(self, action: str) -> str:
        return "player" if action in ("place_bet", "withdraw_bet") else "dealer"

    # --- the machine -------------------------------------------------------

    @classmethod
    def diagram(cls) -> str:
        return mermaid(cls.States, cls.STEPS, cls.INITIAL, cls.FINALS)

    def fire(self, trigger: str, why_not: str | None = None) -> None:
        before = self.state
        self.machine.fire(trigger, why_not)
        self.emit("state", state=self.state.value, previous=before.value, trigger=trigger)
        if self.state in self.FINALS and self.result is not None:
            self.emit("result", **self.result.as_json())

    def emit(self, kind: str, **data: Any) -> None:
        """Publish a table event. The kinds ``result`` (the round's final
        result), ``bet``, ``bet_withdrawn`` and ``void`` are the engine's own:
        the journal's checks count them, so a game must not reuse them."""
        bus = self.bus
        if bus.active:
            bus.emit(kind, self.round_id, **data)
        else:
            bus.seq += 1

    @property
    def observed(self) -> bool:
        """Whether anyone listens to events: hot paths skip building them if not."""
        return self.bus.active

    def in_state(self, *states: enum.Enum) -> bool:
        return self.state in states

    # --- journal -------------------------------------------------------------

    def attach_journal(self, journal) -> None:
        if self.journal is None:
            self.bus.subscribe(self._to_journal)
        self.journal = journal

    def _to_journal(self, event: TableEvent) -> None:
        if self.journal is not None and not self.replaying:
            self.journal.append(self.table_id, event.round_id, "event", event.kind, encode(event.data), "table")

    @contextmanager
    def replay(self) -> Iterator[None]:
        """Rebuild state from journaled inputs: nothing is written, no device commanded."""
        saved = {k: v for k, v in vars(self).items() if isinstance(v, Device)}
        saved_list = self.devices
        self.replay_pending: list = []
        for k, v in saved.items():
            setattr(self, k, _MutedDevice(v, self.replay_pending))
        self.devices = [_MutedDevice(d, self.replay_pending) for d in saved_list]  # type: ignore[misc]
        self.replaying = True
        try:
            yield
        finally:
            self.replaying = False
            for k, v in saved.items():
                setattr(self, k, v)
            self.devices = saved_list

    def recovery_policy(self) -> tuple[str, str]:
        """After replaying an interrupted round: ("resume" | "void", why)."""
        if self.state is self.BETTING:
            return "resume", "betting was open: the bets stand and betting goes on"
        return "resume", f"every input up to {self.state.value} was recorded"

    def resume_devices(self) -> None:
        """Bring the devices back to what the recovered state expects."""

    # --- rounds --------------------------------------------------------------

    def next_round_id(self) -> str:
        self.round_no += 1
        return f"{self.table_id}-{self.round_no:06d}"

    def begin_round(self, round_id: str | None, trigger: str = "open_betting") -> str:
        """Start a new round with ``trigger`` (betting opens, or a game's first
        step such as football's draw)."""
        if not self.machine.allowed(trigger):
            raise IllegalAction(trigger.replace("_", " "), f"the current round is not finished (it is {self.state.value})")
        self.round_id = round_id or self.next_round_id()
        if self.round_id.startswith(f"{self.table_id}-"):
            tail = self.round_id.rsplit("-", 1)[-1]
            if tail.isdigit():
                self.round_no = max(self.round_no, int(tail))
        bind_round(self.table_id, self.game, self.round_id)
        self.book.clear()
        self.result = None
        self.incident = None
        self.fire(trigger)
        return self.round_id

    # --- bets ----------------------------------------------------------------

    def require_betting(self, action: str) -> None:
        if self.state is not self.BETTING:
            raise IllegalAction(action, f"betting is closed (the round is {self.state.value})")

    def place_bet(self, position: str, bet: str, amount: object) -> None:
        self.require_betting("bet")
        value = self.book.place(str(position), bet, amount)
        self.emit("bet", position=str(position), bet=bet, amount=str(value))

    def withdraw_bet(self, position: str, bet: str) -> None:
        self.require_betting("withdraw")
        value = self.book.withdraw(str(position), bet)
        self.emit("bet_withdrawn", position=str(position), bet=bet, amount=str(value))

    # --- void, pause, incidents ------------------------------------------------

    def void(self, reason: str, *, actor: str | None = None, why: str | None = None) -> RoundResult:
        """Void the round: every bet is returned. Allowed before settlement."""
        if not self.machine.allowed("void"):
            raise IllegalAction("void", f"a round that is {self.state.value} cannot be voided")
        self.result = RoundResult(self.game, self.round_id, "void", void_reason=reason, bets=dict(self.book.bets))
        self.incident = None
        self.on_void()
        self.emit("void", reason=reason, returned=self.book.snapshot(), actor=actor, why=why)
        self.fire("void")
        self.log.info("round_void", reason=reason)
        return self.result

    def on_void(self) -> None:
        """Stop the devices for a void (disarm, abort)."""

    def pause(self, *, actor: str, why: str) -> None:
        if self.paused:
            raise IllegalAction("pause", "the table is already paused")
        self.paused = True
        self.emit("paused", actor=actor, why=why)

    def resume(self, *, actor: str, why: str) -> None:
        if not self.paused:
            raise IllegalAction("resume", "the table is not paused")
        self.paused = False
        self.emit("resumed", actor=actor, why=why)

    def open_incident(self, code: int, text: str, *, blocking: bool, card: str | None = None) -> None:
        """Record an incident. A blocking one (the round waits for a
        supervisor) is never displaced by a later non-blocking one, which is
        recorded and shown but leaves the open incident in place."""
        self.incident_no += 1
        incident = {"id": self.incident_no, "code": code, "text": text, "blocking": blocking, "card": card}
        if blocking or self.incident is None or not self.incident.get("blocking"):
            self.incident = incident
        self.emit("incident", **incident)

    def resolve_incident(self, decision: str, *, actor: str, why: str, card: str | None = None) -> None:
        """A supervisor confirms (naming the card where one is needed) or rejects."""
        if self.incident is None:
            raise IllegalAction("resolve incident", "there is no open incident")
        if decision not in ("confirm", "reject"):
            raise IllegalAction("resolve incident", f"unknown decision {decision!r} (confirm or reject)")
        incident = self.incident
        self.check_resolution(incident, decision, card)
        self.incident = None
        self.emit("incident_resolved", id=incident["id"], decision=decision, card=card, actor=actor, why=why)
        if incident["code"] == self.LINK_INCIDENT:
            if decision == "reject" and self.machine.allowed("void"):
                self.void("device_link_lost", actor=actor, why=why)
            return  # confirm: the supervisor goes on without waiting for the link
        self.on_incident_resolved(incident, decision, card)

    def check_resolution(self, incident: dict[str, Any], decision: str, card: str | None) -> None:
        """Refuse a resolution the game cannot apply (before anything changes)."""

    def on_incident_resolved(self, incident: dict[str, Any], decision: str, card: str | None) -> None:
        """Apply a resolved incident (the game decides what confirm/reject mean)."""

    # --- devices ---------------------------------------------------------------

    def handle(self, event: DeviceEvent) -> None:
        raise NotImplementedError

    LINK_INCIDENT = 100

    def stale_card(self, event: DeviceEvent) -> bool:
        """Whether the reader read this card for another round (one still in
        flight when that round ended): it is then never dealt."""
        rid = getattr(event, "round_id", "")
        return bool(rid) and rid != self.round_id

    def on_other_event(self, event: DeviceEvent) -> None:
        """Device reports every game treats alike. A lost link holds the round
        (a blocking incident) until the link is back; the rest is recorded."""
        if isinstance(event, LinkLost):
            self.emit("link", device=event.device, up=False, reason=event.reason)
            if self.state not in self.FINALS and self.state is not self.INITIAL and self.incident is None:
                self.open_incident(self.LINK_INCIDENT, f"link to the {event.device} lost: {event.reason}",
                                   blocking=True, card=None)
                self.incident["device"] = event.device
        elif isinstance(event, LinkRestored):
            self.emit("link", device=event.device, up=True)
            incident = self.incident
            if incident is not None and incident["code"] == self.LINK_INCIDENT and incident.get("device") == event.device:
                self.incident = None
                self.emit("incident_resolved", id=incident["id"], decision="confirm", card=None,
                          actor=event.device, why="link restored")
        else:
            self.emit("device", device=event.device, report=type(event).__name__)

    def poll(self) -> int:
        """Handle every event the devices have queued now; returns how many."""
        count = 0
        for device in self.devices:
            while (event := device.next_event(0)) is not None:
                self.handle(event)
                count += 1
        return count

    #: how long pump() waits for a device by default: 0 for mock devices,
    #: seconds for real or emulated ones (set by whoever builds the table)
    device_timeout: float = 0.0

    def pump(self, states: Iterable[enum.Enum], timeout: float | None = None) -> bool:
        """Handle device events while the table is in one of ``states``.

        ``timeout``: how long to wait for the next event when none is queued
        (0 for mock devices, which answer at once; seconds for real ones).
        Returns False when no device had anything to say in that time (a
        stalled deal: the shoe or the script ran out of cards, a device went
        quiet) or an incident holds the round.
        """
        wanted = tuple(states)
        if timeout is None:
            timeout = self.device_timeout
        while self.state in wanted:
            if self.incident is not None and self.incident.get("blocking"):
                return False
            event = self._next_event(timeout)
            if event is None:
                return False
            self.handle(event)
        return True

    def _next_event(self, timeout: float) -> DeviceEvent | None:
        """The next event of any device, waiting up to ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            for device in self.devices:
                event = device.next_event(0)
                if event is not None:
                    return event
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            if len(self.devices) == 1:
                return self.devices[0].next_event(remaining)
            time.sleep(min(remaining, 0.005))


# The base class's own actions are journaled like the games' actions.
for _name in GameTable.BASE_ACTIONS:
    if _name != "handle" and _name in GameTable.__dict__:
        setattr(GameTable, _name, _journaled(_name, GameTable.__dict__[_name]))


def resolve_unattended(table: GameTable) -> bool:
    """With no supervisor (scripts, mock tables, simulations) a blocking
    incident is rejected, which voids the round by the game's rules."""
    if table.incident is not None and table.incident.get("blocking"):
        table.resolve_incident("reject", actor="unattended", why="no supervisor at an unattended table")
        return True
    return False
