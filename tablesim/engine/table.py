"""The table engine's shared part: one round machine per table, the round's
bet book, round ids, the event bus, device polling, voiding and pausing.

A game subclasses ``GameTable`` and declares its round as a ``Procedure``
(``PROCEDURE``: states, steps, rules; see ``machine.py``), its public
actions with ``@action`` (``actions.py``), how it takes each kind of device
report (its typed hooks, ``DEVICE_HOOKS``: ``on_card``, ``on_fault``...)
and settles. A card game builds on ``cardtable.CardTable``. The machine refuses an illegal action,
with its reason, before anything changes; ``can``/``refusal`` ask the same
rules without acting.

Incidents live in ``incidents.py`` and the journal side (writing, replay)
in ``journaling.py``; both are parts of this class.
"""

from __future__ import annotations

import dataclasses
import enum
from decimal import Decimal
from contextlib import contextmanager
from operator import attrgetter
from typing import Any, ClassVar, Iterable, Iterator, Sequence

import structlog

from drivers.base import Device
from drivers.events import (
    CardRead, DeviceEvent, DrawShown, FaultCleared, FaultRaised, HandDispensed, InvalidSpin, Revolution, ShoeCount,
    ShuffleDone, SpinResult, SpinStarted,
)
from tablecore.errors import IllegalAction
from tablecore.money import parse_amount
from tablesim.engine.actions import ActionSpec, action, actions_of
from tablesim.engine.betbook import BetBook
from tablesim.engine.events import EventBus
from tablesim.engine.incidents import Incident, IncidentHandling
from tablesim.engine.journaling import Journaling
from tablesim.engine.devicewait import DeviceWaiter
from tablecore import betbatch
from tablesim.engine.inputs import PlaceBet, PlaceBets, Pause, Report, Resume, TableInput, Void, WithdrawBet
from tablesim.engine.machine import Check, Procedure, Refused, RoundMachine, mermaid, rule
from tablecore.wording import CORE_WORDS as W
from tablesim.engine.result import RoundResult
from tablesim.log import bind_round
from tablecore.records import (
    BetPlaced, BetWithdrawn, DeviceReport, FaultCleared as FaultClearedRecord, Paused, Result, Resumed,
    StateChanged, TableRecord, Voided,
)

#: each kind of device report and the table's hook that takes it
#: (``hook(self, event)``): a game defines the hooks of the reports it takes;
#: a report with no hook goes to ``on_other_event`` (a link lost or
#: restored, or recorded as it is)
DEVICE_HOOKS: dict[type, str] = {
    CardRead: "on_card",
    HandDispensed: "on_hand",
    ShuffleDone: "on_shuffle_done",
    ShoeCount: "on_shoe_count",
    DrawShown: "on_draw_shown",
    SpinStarted: "on_spin_started",
    Revolution: "on_revolution",
    SpinResult: "on_spin_result",
    InvalidSpin: "on_invalid_spin",
    FaultRaised: "on_fault",
    FaultCleared: "on_fault_cleared",
}


def _device_hooks(cls: type) -> dict[type, Any]:
    """The class's hook per kind of device report (the functions, looked up once)."""
    return {kind: hook for kind, name in DEVICE_HOOKS.items() if callable(hook := getattr(cls, name, None))}


def engine_rules(procedure: Procedure, betting: enum.Enum) -> list:
    """The rules of the engine's own actions (a game may replace one)."""
    closed = W("refusal.betting_closed")
    return [
        rule("place_bet", "bet", states=betting, refused=closed),
        rule("withdraw_bet", "withdraw", states=betting, refused=closed),
        rule("void", "void", trigger="void", refused=W("refusal.cannot_void")),
        rule("pause", "pause"),
        rule("resume", "resume"),
        rule("resolve_incident", "resolve incident"),
    ]


@dataclasses.dataclass(slots=True)
class RoundState:
    """What one round holds besides its bets (a game's ``Round`` derives
    from it, its fields with defaults): a new one at each opening, never a
    dozen attributes reset one by one."""


def _round_fields(cls: type) -> None:
    """Each field of ``cls.Round`` reads as the table's own attribute
    (``table.cards`` is ``table.round.cards``); the round's code sets them on
    ``self.round``."""
    for f in dataclasses.fields(cls.Round):
        if f.name not in cls.__dict__:
            setattr(cls, f.name, property(attrgetter(f"round.{f.name}"), doc=f"this round's {f.name}"))


class GameTable(IncidentHandling, Journaling):
    game: ClassVar[str]
    #: the state of one round (see ``RoundState``): ``self.round``, replaced
    #: when a round opens, before its first step
    Round: ClassVar[type[RoundState]] = RoundState
    PROCEDURE: ClassVar[Procedure]
    BETTING: ClassVar[enum.Enum]
    States: ClassVar[type[enum.Enum]]
    STEPS: ClassVar[tuple]
    INITIAL: ClassVar[enum.Enum]
    FINALS: ClassVar[tuple[enum.Enum, ...]]
    BETWEEN_ROUNDS: ClassVar[tuple[enum.Enum, ...]]  # the initial state and the finals: no round under way
    #: the positions a console lays out, in order, where the game's console does not say
    POSITIONS: ClassVar[tuple[str, ...]] = ()
    #: the public actions of the class, by name, and by input record (filled in per class)
    action_specs: ClassVar[dict[str, ActionSpec]] = {}
    input_specs: ClassVar[dict[type, ActionSpec]] = {}
    #: each action's checks beyond its rule's states, in order: plain methods
    #: taking the action's arguments and raising ``Refused`` (a class's own
    #: entry for an action replaces its bases')
    CHECKS: ClassVar[dict[str, tuple[Check, ...]]] = {}
    #: the checks of every action, the class's and its bases' (filled in per class)
    all_checks: ClassVar[dict[str, tuple[Check, ...]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "PROCEDURE" in cls.__dict__:
            procedure = cls.PROCEDURE.extended(engine_rules(cls.PROCEDURE, cls.BETTING))
            cls.PROCEDURE = procedure
            cls.States, cls.STEPS = procedure.states, procedure.steps
            cls.INITIAL, cls.FINALS = procedure.initial, procedure.finals
            cls.BETWEEN_ROUNDS = procedure.between_rounds
        if "PROCEDURE" in cls.__dict__:
            # An action that only fires its trigger is made from its rule.
            for r in cls.PROCEDURE.rules:
                if r.fires is not None and r.action not in cls.__dict__:
                    setattr(cls, r.action, action(r.fires, name=r.action)(_firing(r.action, r.trigger)))
        if "Round" in cls.__dict__:
            _round_fields(cls)
        cls.device_hooks = _device_hooks(cls)
        if "on_device_event" in cls.__dict__:
            # A device report is a public action (journaled, replayed): a
            # game's own handler is the action ``handle`` itself.
            cls.handle = action(Report, actor="device", always=True, name="handle")(cls.__dict__["on_device_event"])
        cls.action_specs = actions_of(cls)
        cls.input_specs = {spec.record: spec for spec in cls.action_specs.values()}
        checks: dict[str, tuple[Check, ...]] = {}
        for klass in reversed(cls.__mro__):
            checks.update(vars(klass).get("CHECKS", {}))
        cls.all_checks = checks

    def __init__(self, *, table_id: str, book: BetBook, devices: Sequence[Device], bus: EventBus | None = None) -> None:
        self.table_id = table_id
        self.book = book
        self.devices = [d for d in devices if d is not None]
        self.device_pump = DeviceWaiter()
        # bind() resolves structlog's lazy proxy once; per-call resolution was
        # the largest single cost of a round.
        self.log = structlog.get_logger(f"tablesim.{self.game}").bind()
        self.bus = bus or EventBus(self.log)
        self.round_no = 0
        self.round_id = ""
        self.result: RoundResult | None = None
        self.round = self.Round()
        self.journal = None
        self.replaying = False
        self.paused = False
        self.incident: Incident | None = None
        self.incident_no = 0
        self._acting = False
        #: who asks for the actions taken now, when the caller names nobody (``acting``)
        self.acting_as: str | None = None
        self.machine = RoundMachine(self, self.PROCEDURE, self._announce, checks=self.all_checks,
                                    records={name: spec.record for name, spec in self.action_specs.items()})
        self.rules = self.machine.rules
        #: the machine's triggers, bound once (the only way a round changes state)
        self.trigger = self.machine.fire

    # --- the procedure -----------------------------------------------------------

    @property
    def state(self) -> enum.Enum:
        return self.machine.model.state

    @classmethod
    def diagram(cls) -> str:
        return mermaid(cls.PROCEDURE)

    def _announce(self, trigger: str, before: enum.Enum, after: enum.Enum) -> None:
        """Every state change, as it happens: a ``state`` event, and the
        round's result once it reaches a final state."""
        bus = self.bus
        if not bus.active:  # nobody listens (a simulation): count the events, build nothing
            bus.seq += 2 if after in self.FINALS and self.result is not None else 1
            return
        self.emit(StateChanged(state=after.value, previous=before.value, trigger=trigger))
        if after in self.FINALS and self.result is not None:
            self.emit(Result(**self.result.as_json()))

    def can(self, action: str, *args: Any, **kwargs: Any) -> bool:
        """Whether ``action`` (a public action's name) would be accepted now;
        arguments not given are not checked."""
        return self.refusal(action, *args, **kwargs) is None

    def refusal(self, action: str, *args: Any, **kwargs: Any) -> str | None:
        """Why ``action`` would be refused now, in the words the refusal
        itself would use; None if it would be accepted."""
        spec = self.action_specs.get(action)
        if spec is None:
            raise ValueError(f"{action!r} is not an action of the {self.game} table")
        return self.refusal_for(spec, args, kwargs)

    def refusal_for(self, spec: ActionSpec, args: tuple, kwargs: dict) -> str | None:
        if not spec.always and not self.replaying:  # journaled inputs were accepted
            why = self.hold_refusal()
            if why is not None:
                return why
        return self.machine.refusal(spec.name, args, kwargs)

    def hold_refusal(self) -> str | None:
        """Why no action but those that must stay possible is taken now: the
        table is paused, or a blocking incident holds the round (None: neither)."""
        if self.paused:
            return W("refusal.table_paused")
        incident = self.incident
        if incident is not None and incident.blocking:
            return W("refusal.incident_first", id=incident.id)
        return None

    @contextmanager
    def acting(self, actor: str | None) -> Iterator[None]:
        """Take the actions asked meanwhile for ``actor`` (an operator whose
        command the server runs; the bet intake's player): the journal names
        them where the caller names nobody. None: as before (the actions'
        usual actors, unless an outer ``acting`` names someone)."""
        if actor is None:
            yield
            return
        before, self.acting_as = self.acting_as, actor
        try:
            yield
        finally:
            self.acting_as = before

    def asked_by(self, action: str) -> str:
        """Who asks for ``action`` now when its caller names nobody: whoever
        the table acts for (``acting``), else the action's usual actor."""
        return self.acting_as or self.action_specs[action].actor

    def act(self, record: TableInput) -> Any:
        """Take the action ``record`` asks for (``table.act(PlaceBet("3", "ante", amount, actor="ann"))``):
        the same as calling the action with the record's fields."""
        spec = self.input_specs.get(type(record))
        if spec is None:
            raise ValueError(f"{type(record).__name__} is not an input of the {self.game} table")
        args, kwargs = record.arguments()
        return spec.run(self, *args, _record=record, **kwargs)

    def emit(self, record: TableRecord) -> None:
        """Publish a table event (a frozen record of ``tablecore/records.py``
        or of the game's ``machine.py``). The kinds ``result``, ``bet``,
        ``bet_withdrawn`` and ``void`` are the engine's own: the journal's
        checks count them. A hot path asks ``observed`` before building a
        record nobody would hear."""
        bus = self.bus
        if bus.active:
            bus.publish(record, self.round_id)
        else:
            bus.seq += 1

    def heard(self) -> bool:
        """Whether an event about to be emitted would be heard; if not, it is
        counted (its sequence number used) and need not be built: the hot
        paths of a simulation build no record nobody reads."""
        bus = self.bus
        if bus.active:
            return True
        bus.seq += 1
        return False

    @property
    def observed(self) -> bool:
        """Whether anyone listens to events: hot paths skip building them if not."""
        return self.bus.active

    @property
    def between_rounds(self) -> bool:
        """Whether no round is under way (a new one opens from here)."""
        return self.state in self.BETWEEN_ROUNDS

    @property
    def unsettled(self) -> bool:
        """Whether a round is under way and not settled: the states the
        game's ``void`` step leaves from."""
        return self.machine.allowed("void")

    def in_state(self, *states: enum.Enum) -> bool:
        return self.state in states

    def apply(self, record: TableInput) -> Any:
        """Take a journaled input again (a replay): the same action, the same arguments
        (a group of bets: each bet of it, in order)."""
        if type(record) is PlaceBets:
            for bet in record.each():
                self.act(bet)
            return None
        return self.act(record)

    def input_from_journal(self, action: str, data: dict[str, Any], actor: str | None = None) -> TableInput:
        """The input record of a journaled ``action`` (any schema version)."""
        if action == betbatch.NAME:
            return PlaceBets.from_journal(data, actor)
        spec = self.action_specs.get(action)
        if spec is None:
            raise ValueError(f"{action!r} is not an action of the {self.game} table")
        return spec.record.from_journal(data, actor)

    # --- rounds --------------------------------------------------------------

    def peek_round_id(self) -> str:
        """The id the next round would get (nothing is used up)."""
        return f"{self.table_id}-{self.round_no + 1:06d}"

    def next_round_id(self) -> str:
        self.round_no += 1
        return f"{self.table_id}-{self.round_no:06d}"

    def begin_round(self, round_id: str | None, trigger: str = "open_betting") -> str:
        """Start a new round with ``trigger`` (betting opens, or a game's first
        step such as football's draw). The action that calls it is ruled by
        that trigger's sources."""
        self.round_id = round_id or self.next_round_id()
        if self.round_id.startswith(f"{self.table_id}-"):
            tail = self.round_id.rsplit("-", 1)[-1]
            if tail.isdigit():
                self.round_no = max(self.round_no, int(tail))
        bind_round(self.table_id, self.game, self.round_id)
        self.book.clear()
        self.result = None
        self.incident = None
        self.round = self.Round()
        self.trigger[trigger]()
        return self.round_id

    # --- bets ----------------------------------------------------------------

    def check_bet(self, position: str, bet: str, amount: object, player: str | None = None) -> None:
        """The book's say on a bet: the position, the bet's name, the player,
        the amount, the limits."""
        try:
            self.book.check(str(position), bet, amount, player)
        except IllegalAction as exc:
            raise Refused(exc.reason) from None

    def check_withdrawal(self, position: str, bet: str, player: str | None = None) -> None:
        position = str(position)
        if self.book.get(position, bet, self.book.owner(position, player)) is None:
            if player is None:
                raise Refused(W("refusal.no_bet", bet=bet, position=position))
            raise Refused(W("refusal.no_bet_of", bet=bet, position=position, player=player))

    @action(PlaceBet, actor="player")
    def place_bet(self, position: str, bet: str, amount: object, player: str | None = None) -> None:
        """A bet on ``position``; ``player``: whose it is (None: the position's own seat)."""
        position = str(position)
        # The rule (check_bet) checked the position, the bet, the player, the amount and the limits.
        value = amount if type(amount) is Decimal else parse_amount(amount)
        self.book.add(position, bet, value, player)
        if self.batching:
            return  # (a group's bets: the intake publishes one ``bets_placed`` for the group)
        if self.heard():
            self.emit(BetPlaced(position, bet, str(value)) if player is None
                      else BetPlaced(position, bet, str(value), player=player))

    @action(WithdrawBet, actor="player")
    def withdraw_bet(self, position: str, bet: str, player: str | None = None) -> None:
        value = self.book.withdraw(str(position), bet, player)
        if self.heard():
            self.emit(BetWithdrawn(str(position), bet, str(value)) if player is None
                      else BetWithdrawn(str(position), bet, str(value), player=player))

    def cards_out(self) -> Iterable[Any]:
        """The cards out of the pack this round (a game that deals cards says
        which): what a mock shoe must not deal again after a recovery."""
        return ()

    # --- settlement ------------------------------------------------------------

    def stakes_at_risk(self, bets: dict[str, dict[str, Decimal]]) -> dict[str, dict[str, Decimal]]:
        """What was at risk in a settled round, per position and stake name,
        given the bets placed there (position -> bet -> amount): by default
        the bets themselves. A game whose players stake more during the
        round (a Fortune 3 play) adds those stakes, in new dicts: the
        wagered of the run summary and of the studio floor is this."""
        return bets

    def settled_result(self, outcome: dict, results: dict[str, dict[str, Decimal]],
                       players: dict[str, dict[str, dict[str, Decimal]]] | None = None) -> RoundResult:
        """The round's settled result, with its bets and its stakes at risk;
        ``players``: each named player's results, whose stakes are then
        recorded the same way."""
        bets = {p: dict(b) for p, b in self.book.bets.items()}
        players = players or {}
        named = self.book.by_player_first() if players else {}
        return RoundResult(self.game, self.round_id, "settled", outcome=outcome, results=results, bets=bets,
                           players=players, stakes=self.stakes_at_risk(bets),
                           player_stakes={pl: self.stakes_at_risk(named[pl]) for pl in players if pl in named})

    # --- void, pause -----------------------------------------------------------

    @action(Void, always=True)
    def void(self, reason: str, *, actor: str | None = None, why: str | None = None) -> RoundResult:
        """Void the round: every bet is returned. Allowed before settlement
        (the game's ``void`` step says what stops, see ``announce_void``:
        its callbacks are handed the void as asked)."""
        self.result = RoundResult(self.game, self.round_id, "void", void_reason=reason, bets=dict(self.book.bets),
                                  players=self.book.by_player_first() if self.book.named else {})
        self.incident = None
        self.trigger["void"](Void(reason, actor=actor, why=why))
        self.log.info("round_void", reason=reason)
        return self.result

    def announce_void(self, note: Void) -> None:
        """The ``void`` event: why, who, and every bet returned (a callback of
        the game's ``void`` step, after its devices stopped)."""
        reason, actor, why = note.reason, note.actor, note.why
        if self.book.named:
            self.emit(Voided(reason=reason, returned=self.book.snapshot(), actor=actor, why=why,
                      returned_by_player=self.book.players_snapshot()))
        else:
            self.emit(Voided(reason=reason, returned=self.book.snapshot(), actor=actor, why=why))

    def check_pause(self, *, actor: str | None = None, why: str | None = None) -> None:
        if self.paused:
            raise Refused(W("refusal.already_paused"))

    def check_resume(self, *, actor: str | None = None, why: str | None = None) -> None:
        if not self.paused:
            raise Refused(W("refusal.not_paused"))

    CHECKS = {
        "place_bet": (check_bet,),
        "withdraw_bet": (check_withdrawal,),
        "pause": (check_pause,),
        "resume": (check_resume,),
    }

    @action(Pause, always=True)
    def pause(self, *, actor: str, why: str) -> None:
        self.paused = True
        self.emit(Paused(actor=actor, why=why))

    @action(Resume, always=True)
    def resume(self, *, actor: str, why: str) -> None:
        self.paused = False
        self.emit(Resumed(actor=actor, why=why))

    # --- devices ---------------------------------------------------------------

    #: the hook per kind of device report (filled in per class, ``DEVICE_HOOKS``)
    device_hooks: ClassVar[dict[type, Any]] = {}

    def on_device_event(self, event: DeviceEvent) -> None:
        """A device's report, handed to the game's hook for its kind."""
        hook = self.device_hooks.get(type(event))
        if hook is None:
            self.on_other_event(event)
        else:
            hook(self, event)

    # A device report is a public action (journaled, replayed): the dispatch
    # itself, so a report costs one call more than its hook.
    handle = action(Report, actor="device", always=True, name="handle")(on_device_event)

    def on_fault_cleared(self, event: FaultCleared) -> None:
        """A device's fault is over: recorded (every game alike)."""
        self.emit(FaultClearedRecord(device=event.device, code=event.code))

    def stale_card(self, event: DeviceEvent) -> bool:
        """Whether the reader read this card for another round (one still in
        flight when that round ended): it is then never dealt."""
        rid = getattr(event, "round_id", "")
        return bool(rid) and rid != self.round_id

    def on_other_event(self, event: DeviceEvent) -> None:
        """Device reports every game treats alike: a lost or restored link
        (see ``incidents.py``); the rest is recorded."""
        if not self.on_link_event(event):
            self.emit(DeviceReport(device=event.device, report=type(event).__name__))

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
        model = self.machine.model
        handle = self.handle
        devices = self.devices
        next_event = devices[0].next_event if len(devices) == 1 else self._next_event
        while model.state in wanted:
            incident = self.incident
            if incident is not None and incident.blocking:
                return False
            event = next_event(timeout)
            if event is None:
                return False
            handle(event)
        return True

    def _next_event(self, timeout: float) -> DeviceEvent | None:
        """The next event of any device, waiting up to ``timeout`` seconds (see ``devicewait.py``)."""
        return self.device_pump.next_event(self.devices, timeout)


GameTable.device_hooks = _device_hooks(GameTable)


def _firing(name: str, trigger: str):
    """The body of an action that only fires ``trigger`` (a rule's ``fires``)."""

    def fire(self: GameTable) -> None:
        self.trigger[trigger]()

    fire.__name__ = fire.__qualname__ = name
    fire.__doc__ = f"Fire the round's ``{trigger}`` step (the procedure's rule for ``{name}``)."
    return fire


def resolve_unattended(table: GameTable) -> bool:
    """With no supervisor (scripts, mock tables, simulations) a blocking
    incident is rejected, which voids the round by the game's rules."""
    if table.blocked:
        table.resolve_incident("reject", actor="unattended", why="no supervisor at an unattended table")
        return True
    return False
