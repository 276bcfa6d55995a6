"""The table engine's shared part: one state machine per table, the round's
bet book, round ids, the event bus, device polling and voiding.

A game subclasses ``GameTable``, declares ``States``/``STEPS`` and the
states in which a void is allowed, and implements event handling and
settlement. Every public action validates first and changes state only when
it is legal, so a refused action leaves the table exactly as it was.
"""

from __future__ import annotations

import enum
from typing import Any, ClassVar, Iterable, Sequence

import structlog

from drivers.base import Device
from drivers.events import DeviceEvent
from tablesim.engine.bets import BetBook
from tablesim.engine.events import EventBus
from tablesim.engine.machine import Step, build_machine, fire, mermaid
from tablesim.engine.result import RoundResult
from tablesim.errors import IllegalAction
from tablesim.log import bind_round


class _RoundModel:
    state: enum.Enum


class GameTable:
    game: ClassVar[str]
    States: ClassVar[type[enum.Enum]]
    STEPS: ClassVar[tuple[Step, ...]]
    INITIAL: ClassVar[enum.Enum]
    FINALS: ClassVar[tuple[enum.Enum, ...]]
    BETTING: ClassVar[enum.Enum]

    def __init__(self, *, table_id: str, book: BetBook, devices: Sequence[Device], bus: EventBus | None = None) -> None:
        self.table_id = table_id
        self.book = book
        self.devices = [d for d in devices if d is not None]
        self.log = structlog.get_logger(f"tablesim.{self.game}")
        self.bus = bus or EventBus(self.log)
        self.round_no = 0
        self.round_id = ""
        self.result: RoundResult | None = None
        # The machine's model is a plain holder, so trigger names never collide
        # with the table's own methods (close_betting the action vs the trigger).
        self.sm = _RoundModel()
        self.machine = build_machine(self.sm, self.States, self.STEPS, self.INITIAL)

    @property
    def state(self) -> enum.Enum:
        return self.sm.state

    # --- the machine -------------------------------------------------------

    @classmethod
    def diagram(cls) -> str:
        return mermaid(cls.States, cls.STEPS, cls.INITIAL, cls.FINALS)

    def fire(self, trigger: str, why_not: str | None = None) -> None:
        before = self.state
        fire(self.sm, trigger, why_not)
        self.emit("state", state=self.state.value, previous=before.value, trigger=trigger)

    def emit(self, kind: str, **data: Any) -> None:
        self.bus.emit(kind, self.round_id, **data)

    def in_state(self, *states: enum.Enum) -> bool:
        return self.state in states

    # --- rounds --------------------------------------------------------------

    def next_round_id(self) -> str:
        self.round_no += 1
        return f"{self.table_id}-{self.round_no:06d}"

    def begin_round(self, round_id: str | None) -> str:
        fire(self.sm, "open_betting", "the current round is not finished")
        before = self.state
        self.round_id = round_id or self.next_round_id()
        bind_round(self.table_id, self.game, self.round_id)
        self.book.clear()
        self.result = None
        self.emit("state", state=self.state.value, previous=before.value, trigger="open_betting")
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

    # --- void ----------------------------------------------------------------

    def void(self, reason: str) -> RoundResult:
        """Void the round: every bet is returned. Allowed before settlement."""
        fire(self.sm, "void", f"a round that is {self.state.value} cannot be voided")
        self.on_void()
        self.result = RoundResult(
            self.game, self.round_id, "void", void_reason=reason, bets=dict(self.book.bets)
        )
        self.emit("state", state=self.state.value, trigger="void", reason=reason)
        self.emit("void", reason=reason, returned=self.book.snapshot())
        self.log.warning("round_void", reason=reason)
        return self.result

    def on_void(self) -> None:
        """Stop the devices for a void (disarm, abort)."""

    # --- devices ---------------------------------------------------------------

    def handle(self, event: DeviceEvent) -> None:
        raise NotImplementedError

    def poll(self) -> int:
        """Handle every event the devices have queued now; returns how many."""
        count = 0
        for device in self.devices:
            while (event := device.next_event(0)) is not None:
                self.handle(event)
                count += 1
        return count

    def pump(self, states: Iterable[enum.Enum], timeout: float = 0.0) -> bool:
        """Handle device events while the table is in one of ``states``.

        Returns False when no device had anything to say (a stalled dealing:
        the shoe or the script ran out of cards).
        """
        wanted = tuple(states)
        while self.state in wanted:
            got = False
            for device in self.devices:
                event = device.next_event(timeout)
                if event is not None:
                    self.handle(event)
                    got = True
                    break
            if not got:
                return False
        return True
