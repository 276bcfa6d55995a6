"""The table engine's shared part: one round machine per table, the round's
bet book, round ids, the event bus, device polling, voiding and pausing.

A game subclasses ``GameTable`` and declares its round as a ``Procedure``
(``PROCEDURE``: states, steps, rules; see ``machine.py``), its public
actions with ``@action`` (``actions.py``), and how it takes device reports
(``on_device_event``) and settles. The machine refuses an illegal action,
with its reason, before anything changes; ``can``/``refusal`` ask the same
rules without acting.

Incidents live in ``incidents.py`` and the journal side (writing, replay)
in ``journaling.py``; both are parts of this class.
"""

from __future__ import annotations

import enum
from decimal import Decimal
from typing import Any, ClassVar, Iterable, Sequence

import structlog

from drivers.base import Device
from drivers.events import DeviceEvent
from tablecore.errors import IllegalAction
from tablecore.money import parse_amount
from tablesim.engine.actions import ActionSpec, action, actions_of
from tablesim.engine.bets import BetBook
from tablesim.engine.events import EventBus
from tablesim.engine.incidents import Incident, IncidentHandling
from tablesim.engine.journaling import Journaling
from tablesim.engine.pump import DevicePump
from tablesim.engine.machine import Procedure, RoundMachine, mermaid, rule
from tablecore.records import ActionInput, table_record
from tablecore.said import Said
from tablesim.engine.result import RoundResult
from tablesim.log import bind_round


def engine_rules(procedure: Procedure, betting: enum.Enum) -> list:
    """The rules of the engine's own actions (a game may replace one)."""
    closed = Said("betting is closed (the round is {state})", "refusal.betting_closed")
    return [
        rule("place_bet", "bet", states=betting, refused=closed, checks="bet_refusal"),
        rule("withdraw_bet", "withdraw", states=betting, refused=closed, checks="withdraw_refusal"),
        rule("void", "void", trigger="void", refused="a round that is {state} cannot be voided"),
        rule("pause", "pause", checks="_pause_refusal"),
        rule("resume", "resume", checks="_resume_refusal"),
        rule("resolve_incident", "resolve incident", checks="_resolution_refusal"),
    ]


class GameTable(IncidentHandling, Journaling):
    game: ClassVar[str]
    PROCEDURE: ClassVar[Procedure]
    BETTING: ClassVar[enum.Enum]
    States: ClassVar[type[enum.Enum]]
    STEPS: ClassVar[tuple]
    INITIAL: ClassVar[enum.Enum]
    FINALS: ClassVar[tuple[enum.Enum, ...]]
    BETWEEN_ROUNDS: ClassVar[tuple[enum.Enum, ...]]  # the initial state and the finals: no round under way
    #: the public actions of the class, by name (filled in per class)
    action_specs: ClassVar[dict[str, ActionSpec]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "PROCEDURE" in cls.__dict__:
            procedure = cls.PROCEDURE.extended(engine_rules(cls.PROCEDURE, cls.BETTING))
            cls.PROCEDURE = procedure
            cls.States, cls.STEPS = procedure.states, procedure.steps
            cls.INITIAL, cls.FINALS = procedure.initial, procedure.finals
            cls.BETWEEN_ROUNDS = procedure.between_rounds
        if "on_device_event" in cls.__dict__:
            # A device report is a public action (journaled, replayed): the
            # game's handler is the action ``handle`` itself.
            cls.handle = action(actor="device", always=True, name="handle")(cls.__dict__["on_device_event"])
        cls.action_specs = actions_of(cls)

    def __init__(self, *, table_id: str, book: BetBook, devices: Sequence[Device], bus: EventBus | None = None) -> None:
        self.table_id = table_id
        self.book = book
        self.devices = [d for d in devices if d is not None]
        self.device_pump = DevicePump()
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
        self.incident: Incident | None = None
        self.incident_no = 0
        self._acting = False
        self.machine = RoundMachine(self, self.PROCEDURE, self._announce)
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
        self.emit("state", state=after.value, previous=before.value, trigger=trigger)
        if after in self.FINALS and self.result is not None:
            self.emit("result", **self.result.as_json())

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
            if self.paused:
                return "the table is paused"
            if self.blocked:
                return f"incident {self.incident.id} must be resolved first"
        return self.machine.refusal(spec.name, args, kwargs)

    def emit(self, kind: str, **data: Any) -> None:
        """Publish a table event. The kinds ``result`` (the round's final
        result), ``bet``, ``bet_withdrawn`` and ``void`` are the engine's own:
        the journal's checks count them, so a game must not reuse them."""
        bus = self.bus
        if bus.active:
            bus.publish(table_record(kind, data), self.round_id)
        else:
            bus.seq += 1

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

    def apply(self, record: ActionInput) -> Any:
        """Take a journaled input again (a replay): the same action, the same arguments."""
        spec = self.action_specs.get(record.action)
        if spec is None:
            raise ValueError(f"{record.action!r} is not an action of the {self.game} table")
        return getattr(self, record.action)(*record.args, **record.kwargs)

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
        self.trigger[trigger]()
        return self.round_id

    # --- bets ----------------------------------------------------------------

    def bet_refusal(self, position: str, bet: str, amount: object, player: str | None = None) -> str | None:
        """The book's say on a bet: the position, the bet's name, the player,
        the amount, the limits."""
        try:
            self.book.check(str(position), bet, amount, player)
        except IllegalAction as exc:
            return exc.reason
        return None

    def withdraw_refusal(self, position: str, bet: str, player: str | None = None) -> str | None:
        position = str(position)
        if self.book.get(position, bet, self.book.owner(position, player)) is None:
            text = f"no {bet} bet{'' if player is None else ' of ' + str(player)} on {position}"
            if player is None:
                return Said(text, "refusal.no_bet", bet=bet, position=position)
            return Said(text, "refusal.no_bet_of", bet=bet, position=position, player=player)
        return None

    @action(actor="player")
    def place_bet(self, position: str, bet: str, amount: object, player: str | None = None) -> None:
        """A bet on ``position``; ``player``: whose it is (None: the position's own seat)."""
        position = str(position)
        # The rule (bet_refusal) checked the position, the bet, the player, the amount and the limits.
        value = amount if type(amount) is Decimal else parse_amount(amount)
        self.book.add(position, bet, value, player)
        if player is None:
            self.emit("bet", position=position, bet=bet, amount=str(value))
        else:
            self.emit("bet", position=position, bet=bet, amount=str(value), player=player)

    @action(actor="player")
    def withdraw_bet(self, position: str, bet: str, player: str | None = None) -> None:
        value = self.book.withdraw(str(position), bet, player)
        if player is None:
            self.emit("bet_withdrawn", position=str(position), bet=bet, amount=str(value))
        else:
            self.emit("bet_withdrawn", position=str(position), bet=bet, amount=str(value), player=player)

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

    @action(always=True)
    def void(self, reason: str, *, actor: str | None = None, why: str | None = None) -> RoundResult:
        """Void the round: every bet is returned. Allowed before settlement
        (the game's ``void`` step says what stops, see ``announce_void``)."""
        self.result = RoundResult(self.game, self.round_id, "void", void_reason=reason, bets=dict(self.book.bets),
                                  players=self.book.by_player_first() if self.book.named else {})
        self.incident = None
        self._void_note = (reason, actor, why)
        self.trigger["void"]()
        self.log.info("round_void", reason=reason)
        return self.result

    def announce_void(self) -> None:
        """The ``void`` event: why, who, and every bet returned (a callback of
        the game's ``void`` step, after its devices stopped)."""
        reason, actor, why = self._void_note
        if self.book.named:
            self.emit("void", reason=reason, returned=self.book.snapshot(), actor=actor, why=why,
                      returned_by_player=self.book.players_snapshot())
        else:
            self.emit("void", reason=reason, returned=self.book.snapshot(), actor=actor, why=why)

    def _pause_refusal(self) -> str | None:
        return "the table is already paused" if self.paused else None

    def _resume_refusal(self) -> str | None:
        return None if self.paused else "the table is not paused"

    @action(always=True)
    def pause(self, *, actor: str, why: str) -> None:
        self.paused = True
        self.emit("paused", actor=actor, why=why)

    @action(always=True)
    def resume(self, *, actor: str, why: str) -> None:
        self.paused = False
        self.emit("resumed", actor=actor, why=why)

    # --- devices ---------------------------------------------------------------

    @action(actor="device", always=True)
    def handle(self, event: DeviceEvent) -> None:
        """A device's report, handed to the game."""
        self.on_device_event(event)

    def on_device_event(self, event: DeviceEvent) -> None:
        raise NotImplementedError

    def stale_card(self, event: DeviceEvent) -> bool:
        """Whether the reader read this card for another round (one still in
        flight when that round ended): it is then never dealt."""
        rid = getattr(event, "round_id", "")
        return bool(rid) and rid != self.round_id

    def on_other_event(self, event: DeviceEvent) -> None:
        """Device reports every game treats alike: a lost or restored link
        (see ``incidents.py``); the rest is recorded."""
        if not self.on_link_event(event):
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
        """The next event of any device, waiting up to ``timeout`` seconds (see ``pump.py``)."""
        return self.device_pump.next_event(self.devices, timeout)


def resolve_unattended(table: GameTable) -> bool:
    """With no supervisor (scripts, mock tables, simulations) a blocking
    incident is rejected, which voids the round by the game's rules."""
    if table.blocked:
        table.resolve_incident("reject", actor="unattended", why="no supervisor at an unattended table")
        return True
    return False
