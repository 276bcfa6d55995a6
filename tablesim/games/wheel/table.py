"""The Wheel of Fortune table: rules + round machine + the wheel indicator sensor.

Procedure (Despacho 42/2003): players bet on one or more symbols (Art. 3);
the dealer calls "no more bets", after which no bet is accepted, changed or
withdrawn (Art. 2); the dealer spins in either direction (Art. 4(1)); the
spin counts only with at least three full turns, otherwise "no spin" and the
dealer spins again, bets staying (Art. 4(3), 4(4)); the segment at the
indicator decides (Art. 5); winning bets are paid by the pay table (Art. 6).

The table, not the sensor, decides "no spin": a result with fewer full turns
than the profile's minimum is a no-spin even if the sensor called it a
result. A spin reported while betting is open (or between rounds) is an
incident, recorded and never taken as a result. An error fault of the
sensor before settlement voids the round: every bet is returned.

When each action is allowed, and what happens around each state change, is
declared in ``machine.py``; the methods it names are here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from drivers.base import WheelSensor
from drivers.events import (
    WHEEL_MOTION_IDLE,
    WHEEL_SENSORS_DISAGREE,
    DeviceEvent,
    FaultRaised,
    InvalidSpin,
    Revolution,
    SpinResult,
    SpinStarted,
)
from tablecore.errors import InputError
from tablecore.money import fmt, parse_amount
from tablesim.engine.actions import action
from tablesim.engine.inputs import CloseBetting, OpenRound, Void
from tablesim.engine.machine import Refused
from tablecore.wording import CORE_WORDS as C
from tablesim.games.wheel.machine import WORDS as W
from tablesim.games.wheel.machine import ChangeBet, DeclareNoSpin
from tablesim.engine.betbook import BetBook
from tablesim.engine.events import EventBus
from tablesim.engine.table import GameTable, RoundState
from tablesim.games.wheel.machine import AWAITING_SPIN, PROCEDURE, S
from tablesim.games.wheel.profile import WheelProfile
from tablesim.games.wheel.profile import WheelSettings
from tablesim.games.wheel.settle import exact_count, settle, spin_counts, symbol_at
from tablecore.records import (
    BetPlaced, BetWithdrawn, Fault, Instruction, Settlement,
)
from tablesim.games.wheel.machine import (
    NoSpin, Revolution as RevolutionRecord, SpinResult as SpinResultRecord, SpinStarted as SpinStartedRecord,
    StrayRevolution,
)

SENSOR_FAULT = "sensor_fault"


def _measured(spin: dict) -> dict:
    """How a spin's turns were obtained, for its journal record (none: a dealer's call)."""
    if "turns_source" not in spin:
        return {}
    out: dict = {"turns_source": spin["turns_source"]}
    if spin["turns_error"]:
        out["turns_error"] = spin["turns_error"]
    return out


@dataclass(slots=True)
class WheelRoundState(RoundState):
    no_spins: int = 0
    spins: list[dict] = field(default_factory=list)  # every spin of the round, counted or not
    incidents: list[dict] = field(default_factory=list)
    revolutions: int = 0
    direction: str | None = None
    segment: int | None = None
    symbol: str | None = None


class WheelTable(GameTable):
    game = "wheel"
    PROCEDURE = PROCEDURE
    Round = WheelRoundState
    BETTING = S.BETTING_OPEN

    def __init__(
        self,
        profile: WheelProfile,
        settings: WheelSettings,
        *,
        sensor: WheelSensor,
        table_id: str = "WHEEL",
        bus: EventBus | None = None,
    ) -> None:
        if sensor is None:
            raise ValueError("a wheel table needs a wheel indicator sensor")
        layout = settings.layout or profile.layout
        if len(layout) != profile.segments or any(s not in profile.spots for s in layout):
            raise ValueError("the table's layout does not fit the profile (check it with check_layout)")
        self.profile = profile
        self.settings = settings
        self.layout: tuple[str, ...] = tuple(layout)
        self.sensor = sensor
        #: the symbols players bet on (the profile's, read once: asked for every bet)
        self.spots = profile.spots
        # Many players bet on each symbol; a bet's position is its player (Art. 3).
        book = BetBook(self.spots, settings.limits, self._player_ok,
                       lambda position, who: None if who == position else "on the wheel a bet's position is its player")
        super().__init__(table_id=table_id, book=book, devices=[sensor], bus=bus)

    @staticmethod
    def _player_ok(player: str) -> str | None:
        if not player.strip():
            return W("wheel.refusal.needs_player")
        return None

    # --- round flow ------------------------------------------------------------

    @action(OpenRound, opens_round=True)
    def open_round(self, round_id: str | None = None) -> str:
        return self.begin_round(round_id)

    def invite_bets(self) -> None:
        self.sensor.disarm()
        if self.heard():
            self.emit(Instruction(text=C("instruction.place_bets")))

    def _check_spot(self, spot: str) -> None:
        if spot not in self.spots:
            raise Refused(W("wheel.refusal.unknown_spot", spot=repr(spot), spots=", ".join(self.spots)))

    def check_bet_spot(self, position: str, bet: str, amount: object, player: str | None = None) -> None:
        """A bet of a player (position) on the symbol ``bet``, Art. 3."""
        self._check_spot(bet)

    def check_change_spot(self, player: str, spot: str, amount: object) -> None:
        self._check_spot(spot)

    def check_change(self, player: str, spot: str, amount: object) -> None:
        player = str(player)
        if self.book.get(player, spot) is None:
            raise Refused(W("wheel.refusal.no_bet_to_change", player=player, spot=spot))
        try:
            value = parse_amount(amount)
        except InputError as exc:
            raise Refused(C("refusal.bad_amount", problem=exc.message)) from None
        why = self.book.limits.check(spot, value)
        if why:
            raise Refused(why)

    CHECKS = {
        # Art. 3: a bet on one of the wheel's symbols (then the book's say)
        "place_bet": (check_bet_spot, GameTable.check_bet),
        "change_bet": (check_change_spot, check_change),
    }

    @action(ChangeBet, actor="player")
    def change_bet(self, player: str, spot: str, amount: object) -> None:
        """Set an existing bet to a new amount (only while betting is open, Art. 2)."""
        player = str(player)
        old = self.book.get(player, spot)
        value = parse_amount(amount)
        self.book.set_amount(player, spot, value)
        # Recorded as the old bet taken back and the new one placed, so every
        # reader of the event stream (journal, audit) keeps exact totals.
        self.emit(BetWithdrawn(position=player, bet=spot, amount=str(old), change=True))
        self.emit(BetPlaced(position=player, bet=spot, amount=str(value), change=True))

    @action(CloseBetting)
    def close_betting(self) -> None:
        """The dealer calls "no more bets" (Art. 2) and the sensor is armed."""
        # Whatever the sensor reported while betting was open belongs to that
        # time: an incident, never a result of this round.
        self.poll()
        if self.machine.allowed("close_betting"):  # unless a sensor fault voided the round meanwhile
            self.trigger["close_betting"]()

    def arm_sensor(self) -> None:
        if self.heard():
            self.emit(Instruction(text=C("instruction.no_more_bets")))
        self._arm()

    def _arm(self) -> None:
        self.sensor.arm(self.round_id, self.profile.min_turns, self.settings.spin_seconds)
        if self.heard():
            self.emit(
                Instruction(text=W("wheel.instruction.spin", min_turns=self.profile.min_turns),
                min_turns=self.profile.min_turns,
            ))

    @action(DeclareNoSpin)
    def declare_no_spin(self, reason: str = "dealer") -> None:
        """The dealer calls "no spin" (Art. 4(4)) on a spin the sensor did not
        judge (e.g. a spin interrupted by a power loss): bets stay, spin again."""
        self._no_spin(reason, Decimal(self.round.revolutions))

    def stop_sensor(self, note: Void | None = None) -> None:
        self.sensor.disarm()

    def note_void_outcome(self, note: Void) -> None:
        if self.result is not None:
            self.result.outcome = self._outcome_base()

    # --- recovery after a power loss -------------------------------------------

    def recovery_policy(self) -> tuple[str, str]:
        if self.state is S.SPINNING:
            return "resume", "a spin was under way: it is called off as a no-spin and the wheel spun again; bets stay (Art. 4(4))"
        if self.state is S.BETS_CLOSED:
            return "resume", "bets were closed and the wheel not yet spun: the sensor is armed again; bets stay"
        return super().recovery_policy()

    def resume_devices(self) -> None:
        if self.state is S.BETTING_OPEN:
            self.sensor.disarm()
        elif self.state is S.SPINNING:
            self.declare_no_spin("power_loss")  # journaled; re-arms the sensor
        elif self.state is S.BETS_CLOSED:
            self._arm()

    # --- device events ---------------------------------------------------------

    # Each report's hook (the engine hands it over by its kind, ``DEVICE_HOOKS``).

    def _ours(self, round_id: str) -> bool:
        """A spin report that belongs to this round's armed spin."""
        return self.state in AWAITING_SPIN and round_id == self.round_id

    def _incident(self, what: str, code: int = WHEEL_MOTION_IDLE, **data) -> None:
        """Record an irregular report; the round goes on (a non-blocking incident)."""
        # An exact turn count is recorded as its text (JSON has no decimals).
        data = {k: (str(v) if isinstance(v, Decimal) else v) for k, v in data.items()}
        record = {"what": what, "state": self.state.value, "code": code, **data}
        self.round.incidents.append(record)
        self.open_incident(code, what, blocking=False)
        self.log.info("wheel_incident", **record)

    def _stray(self, kind: str, event: DeviceEvent, **data) -> None:
        key = kind.replace(" ", "_")  # (its words: wheel.incident.<kind>.<why>)
        if self.state is S.BETTING_OPEN:
            self._incident(W(f"wheel.incident.{key}.while_open"), **data)
        elif self.state in AWAITING_SPIN:
            self._incident(W(f"wheel.incident.{key}.other_round", round=repr(getattr(event, "round_id", ""))), **data)
        else:
            self._incident(W(f"wheel.incident.{key}.no_round", state=self.state.value), **data)

    def on_spin_started(self, event: SpinStarted) -> None:
        if not self._ours(event.round_id):
            self._stray("spin started", event, direction=event.direction)
            return
        if self.state is S.SPINNING:
            self._incident(W("wheel.incident.started_twice"), direction=event.direction)
            return
        self.trigger["spin_started"]()
        self.round.revolutions = 0
        self.round.direction = event.direction
        if self.heard():
            self.emit(SpinStartedRecord(direction=event.direction))

    def on_revolution(self, event: Revolution) -> None:
        if self.state is S.SPINNING and event.round_id == self.round_id:
            self.round.revolutions = max(self.round.revolutions, event.n)
            if self.heard():
                self.emit(RevolutionRecord(n=event.n))
        else:
            # Part of a stray spin, already recorded by its start or result.
            if self.heard():
                self.emit(StrayRevolution(n=event.n, round=event.round_id))

    def on_spin_result(self, event: SpinResult) -> None:
        if not self._ours(event.round_id):
            self._stray("spin result", event, segment=event.segment, turns=event.turns)
            return
        turns = exact_count(event.turns)
        if not (0 <= event.segment < len(self.layout)) or turns is None:
            self.emit(
                Fault(device=event.device, code=WHEEL_SENSORS_DISAGREE, severity="E",
                text=f"impossible spin report: segment {event.segment}, turns {event.turns}",
            ))
            self.void(SENSOR_FAULT)
            return
        source = event.turns_source if isinstance(event.turns_source, str) else "sensor"
        error = exact_count(event.turns_error)
        if error is None:
            error = Decimal(0)
        # Art. 4(3) asks for three full turns, not for three measured ones: a
        # measurement with a bound (rotor speeds integrated, index passes counted)
        # counts only when its lower end has them (docs/games/wheel.md, "How the
        # turns are measured"); a doubtful spin is spun again, bets staying.
        if not spin_counts(self.profile, max(turns - error, Decimal(0))):
            self._no_spin("few_turns", turns, segment=event.segment, direction=event.direction,
                          source=source, error=error)
            return
        self.round.segment = event.segment
        self.round.symbol = symbol_at(self.layout, event.segment)
        self.round.direction = event.direction
        self.round.spins.append(
            {"segment": event.segment, "symbol": self.round.symbol, "turns": turns,
             "direction": event.direction, "counts": True, "turns_source": source, "turns_error": error}
        )
        self.trigger["spin_counted"]()

    def announce_result(self) -> None:
        spin = self.round.spins[-1]
        if self.heard():
            self.emit(SpinResultRecord(segment=self.round.segment, symbol=self.round.symbol, turns=spin["turns"],
                                       direction=self.round.direction, **_measured(spin)))
        self.trigger["settle"]()

    def on_invalid_spin(self, event: InvalidSpin) -> None:
        if not self._ours(event.round_id):
            self._stray("invalid spin", event, reason=event.reason, turns=event.turns)
            return
        source = event.turns_source if isinstance(event.turns_source, str) else "sensor"
        self._no_spin(event.reason, exact_count(event.turns) or Decimal(0), source=source)

    def _no_spin(self, reason: str, turns: Decimal, *, segment: int | None = None, direction: str | None = None,
                 source: str | None = None, error: Decimal = Decimal(0)) -> None:
        """Art. 4(4): "no spin"; bets stay, the dealer spins again."""
        self.round.no_spins += 1
        self.round.spins.append(
            {"segment": segment, "turns": turns, "direction": direction, "counts": False, "reason": reason,
             **({"turns_source": source, "turns_error": error} if source is not None else {})}
        )
        self.trigger["no_spin"]()

    def spin_again(self) -> None:
        spin = self.round.spins[-1]
        self.emit(NoSpin(reason=spin["reason"], turns=spin["turns"], segment=spin["segment"], count=self.round.no_spins,
                         **_measured(spin)))
        self.emit(Instruction(text=W("wheel.instruction.spin_again")))
        self._arm()

    def on_fault(self, event: FaultRaised) -> None:
        self.emit(Fault(device=event.device, code=event.code, severity=event.severity, text=event.text))
        if event.code == WHEEL_MOTION_IDLE:
            self._incident(W("wheel.incident.moved_idle"), event.code)
            return
        if event.severity in ("E", "C") and self.unsettled:
            self.void(SENSOR_FAULT)

    # --- settlement ------------------------------------------------------------

    def settle_bets(self) -> None:
        results: dict[str, dict[str, Decimal]] = settle(self.profile, self.book.items(), self.round.symbol)
        self.result = self.settled_result(self._outcome(), results)
        self.emit(Settlement(results={p: {k: fmt(v) for k, v in r.items()} for p, r in results.items()}))
        self.trigger["complete"]()

    def _outcome_base(self) -> dict:
        out: dict = {"no_spins": self.round.no_spins}
        if self.round.incidents:
            out["incidents"] = [dict(i) for i in self.round.incidents]
        return out

    def _outcome(self) -> dict:
        return {"segment": self.round.segment, "symbol": self.round.symbol, **self._outcome_base()}
