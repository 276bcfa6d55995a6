"""Scripted Wheel of Fortune rounds (spec/scripted-rounds.md, wheel).

A round lists the players' bets and the spins the wheel indicator sensor
reports, in order; the table decides which spins count. A script must say
exactly what happened: the spins end with the one spin that counts (every
earlier spin a no-spin), or, with an error ``faults:`` entry, the round is
void after exactly ``after`` spins.

Fields beyond the spec's (all optional, documented in docs/games/wheel.md):
``table: {profile, layout}``; per spin ``direction`` (CW/CCW) and
``invalid`` (the sensor reports an invalid spin: peg, reversed, ...);
per round ``faults``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from drivers.mock.wheel import (
    DIRECTIONS,
    INVALID_REASONS,
    WHEEL_FAULTS,
    MockWheelSensor,
    ScriptedSpins,
    Spin,
    WheelFault,
)
from tablecore.errors import IllegalAction, InputError
from tablesim.games.dealer import Hands, Players
from tablesim.games.wheel import dealer
from tablesim.games.wheel.profile import WheelProfile, load_profile
from tablesim.games.wheel.profile import WheelSettings, read_layout_override
from tablesim.games.wheel.settle import spin_counts
from tablesim.games.wheel.table import WheelTable
from tablesim.profiles import script_profile
from tablecore.validate import Reader
from tablesim.games.scriptparse import script_limits
from tablesim.games.scripted import ScriptedSession
from tablesim.games.rig import mock_device

BET_KEYS = ("player", "spot", "amount")
SPIN_KEYS = ("segment", "turns", "direction", "invalid")
FAULT_KEYS = ("fault", "after", "segment", "turns")
VOIDING = tuple(k for k, (_, severity, _) in WHEEL_FAULTS.items() if severity in ("E", "C"))


@dataclass
class WheelRound:
    bets: list[tuple[str, str, Decimal]]
    spins: list[Spin]
    faults: list[WheelFault] = field(default_factory=list)


def _name(value: object) -> str | None:
    """Player names and spots: strings, or whole numbers taken as their text."""
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


def _item(r: Reader, key: str, i: int, raw: object, allowed: tuple[str, ...]) -> Reader:
    """The ``i``-th entry of the list ``key``; a misspelt field is named first."""
    item = Reader(raw, f"{r.at(key)}[{i}]", file=r.file, error=InputError)
    for name in item.data:
        if name not in allowed:
            raise item.fail(str(name), f"unknown key (keys: {', '.join(allowed)})")
    return item


def _turns(s: Reader, key: str = "turns") -> Decimal:
    value = s.raw(key)
    if isinstance(value, bool) or not isinstance(value, (int, Decimal)):
        raise s.fail(key, f"expected a number of turns, got {value!r}")
    turns = Decimal(value)
    if not turns.is_finite():
        raise s.fail(key, f"{value} is not a number of turns")
    if turns < 0:
        raise s.fail(key, f"{value} is negative: turns are counted from 0")
    if turns > 1000:
        raise s.fail(key, f"{value} turns is not a wheel spin")
    return turns


class ScriptedPlayers(Players):
    """The script's bets; a refusal is the script's error, located at the bet."""

    def __init__(self, spec: WheelRound) -> None:
        self.spec = spec
        self.at = 0

    def bets(self, table: WheelTable):
        for self.at, bet in enumerate(self.spec.bets):
            yield bet

    def refused(self, action: str, position: str, what: str, exc: IllegalAction) -> None:
        raise InputError(exc.reason, where=f"bets[{self.at}]") from None


class ScriptSpins(Hands):
    """The script's spins, one sensor report at a time: a round that needs
    another spin than the script gives is the script's error."""

    def __init__(self, sensor: MockWheelSensor, spins: int) -> None:
        self.sensor, self.spins = sensor, spins

    def take(self, table: WheelTable, states: tuple) -> bool:
        while table.state in states:
            event = self.sensor.next_event(0)
            if event is None:
                raise InputError(f"ran out of spins after {self.spins}: the round needs another spin", where="spins")
            table.handle(event)
        return True


class WheelScriptSession(ScriptedSession):
    dealer = staticmethod(dealer.play_round)
    FEED, ITEM = "spins", "spin"

    def __init__(self, table: Reader) -> None:
        self.profile: WheelProfile = script_profile(table, load_profile)
        layout = read_layout_override(table, self.profile)
        self.settings = WheelSettings.for_profile(self.profile, layout=layout)
        self.settings = WheelSettings.for_profile(
            self.profile, layout=layout, limits=script_limits(table, self.settings.limits))
        self.source = ScriptedSpins()
        self.sensor = mock_device("wheel", source=self.source)
        self.table = WheelTable(self.profile, self.settings, sensor=self.sensor, table_id="SCRIPT")

    # --- parsing ---------------------------------------------------------------

    def parse_round(self, r: Reader) -> WheelRound:
        bets = self._bets(r)
        spins = self._spins(r)
        faults = self._faults(r)
        self._check_story(r, spins, faults)
        return WheelRound(bets, spins, faults)

    def _bets(self, r: Reader) -> list[tuple[str, str, Decimal]]:
        out = []
        spots = self.profile.spots
        for i, raw in enumerate(r.list("bets")):
            b = _item(r, "bets", i, raw, BET_KEYS)
            player = _name(b.raw("player"))
            if player is None or not player.strip():
                raise b.fail("player", f"expected a player name, got {b.raw('player')!r}")
            spot = _name(b.raw("spot"))
            if spot not in spots:
                raise b.fail("spot", f"unknown spot {b.raw('spot')!r} (spots: {', '.join(spots)})")
            amount = b.raw("amount")
            b.reject_unknown()
            try:
                value = self.table.book.check(player, spot, amount)
            except IllegalAction as exc:
                raise b.fail("amount", exc.reason) from None
            out.append((player, spot, value))
        return out

    def _spins(self, r: Reader) -> list[Spin]:
        out = []
        last = len(self.table.layout) - 1
        for i, raw in enumerate(r.list("spins")):
            s = _item(r, "spins", i, raw, SPIN_KEYS)
            direction = s.str("direction", "CW", choices=DIRECTIONS)
            if s.has("invalid"):
                reason = s.str("invalid", choices=INVALID_REASONS)
                if s.has("segment"):
                    raise s.fail("segment", "an invalid spin has no result segment")
                turns = _turns(s)
                s.reject_unknown()
                out.append(Spin(None, turns, direction, reason))
                continue
            segment = s.int("segment", lo=0, hi=last)
            turns = _turns(s)
            s.reject_unknown()
            out.append(Spin(segment, turns, direction))
        return out

    def _faults(self, r: Reader) -> list[WheelFault]:
        out = []
        last = len(self.table.layout) - 1
        for i, raw in enumerate(r.list("faults", [])):
            f = _item(r, "faults", i, raw, FAULT_KEYS)
            kind = f.str("fault", choices=WHEEL_FAULTS)
            if kind == "motion_while_idle":
                if f.has("after"):
                    raise f.fail("after", "motion while idle happens while betting is open, before any spin")
                segment = f.int("segment", lo=0, hi=last) if f.has("segment") else None
                turns = _turns(f) if f.has("turns") else Decimal(4)
                f.reject_unknown()
                out.append(WheelFault(kind, 0, segment, turns))
            else:
                after = f.int("after", 0, lo=0, hi=1000)
                f.reject_unknown()
                out.append(WheelFault(kind, after))
        return out

    def _check_story(self, r: Reader, spins: list[Spin], faults: list[WheelFault]) -> None:
        """The spins must tell a complete round: no spin missing, none left over."""
        counted = next((i for i, s in enumerate(spins) if self._counts(s)), None)
        voiding = [(i, f) for i, f in enumerate(faults) if f.kind in VOIDING]
        if voiding:
            i, fault = min(voiding, key=lambda item: item[1].after)
            n = fault.after
            if counted is not None and counted < n:
                raise r.fail(
                    f"faults[{i}].after",
                    f"the fault after spin {n} never happens: spin {counted + 1} already counts and settles the round",
                )
            if len(spins) > n:
                raise r.fail(f"spins[{n}]", f"never spun: the {fault.kind} fault before spin {n + 1} voids the round")
            if len(spins) < n:
                raise r.fail(f"faults[{i}].after", f"fires after spin {n}, but the round has only {len(spins)} spin(s)")
            return
        if not spins:
            raise r.fail("spins", "no spins: the round needs a spin that counts")
        if counted is None:
            minimum = self.profile.min_turns
            raise r.fail(
                "spins",
                f"no valid spin: all {len(spins)} spin(s) are no-spins (fewer than {minimum} full turns, "
                f"or reported invalid), so the round never settles; end with a spin that counts",
            )
        if counted < len(spins) - 1:
            spin = spins[counted]
            raise r.fail(
                f"spins[{counted + 1}]",
                f"left unused: spin {counted + 1} ({spin.turns:g} turns) already counts",
            )

    def _counts(self, spin: Spin) -> bool:
        return spin.invalid is None and spin_counts(self.profile, spin.turns)

    # --- playing ---------------------------------------------------------------

    def feed_of(self, spec: WheelRound) -> list:
        return list(spec.spins)

    def arm_devices(self, spec: WheelRound) -> None:
        self.sensor.reset()
        for fault in spec.faults:
            self.sensor.inject(fault)

    def players(self, spec: WheelRound) -> Players:
        return ScriptedPlayers(spec)

    def hands(self, spec: WheelRound) -> Hands:
        return ScriptSpins(self.sensor, len(spec.spins))

    def left_text(self) -> str:
        return ", ".join(f"{s.turns:g} turns" for s in self.source.left())


def script_session(table: Reader) -> WheelScriptSession:
    return WheelScriptSession(table)


__all__ = ["WheelScriptSession", "WheelRound", "script_session"]
