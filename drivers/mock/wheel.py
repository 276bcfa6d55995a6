"""Mock wheel indicator sensor: spin start, each full turn, the final segment.

It reports what the TDL/1 wheel sensor reports (device-link.md, "Wheel
indicator sensor"): ``SPN`` -> :class:`SpinStarted`, ``REV`` ->
:class:`Revolution` for each full turn, then ``RES`` -> :class:`SpinResult`
(segment, turns, direction) or ``INV`` -> :class:`InvalidSpin` (turns,
reason). Faults are ``FLT`` -> :class:`FaultRaised`.

Spins come from a :class:`SpinSource`: a script's list (:class:`ScriptedSpins`)
or a seeded generator (:class:`RandomSpins`). The sensor reports a spin's
turns as measured and does not judge them: the table decides "no spin" from
the turn count and its rule profile. (``judge_turns=True`` imitates a sensor
that reports a short spin as ``INV few_turns`` itself.)

One ``arm`` is one spin: after reporting a result or an invalid spin the
sensor is idle again until the table re-arms it (after a "no spin"). A spin
while idle is reported as fault 506, motion while idle.
"""

from __future__ import annotations

from decimal import Decimal

import random
from collections import deque
from dataclasses import dataclass
from typing import Iterable

from drivers.base import WheelSensor
from drivers.events import (
    WHEEL_ENCODER,
    WHEEL_INDEX_SENSOR,
    WHEEL_MOTION_IDLE,
    WHEEL_SENSORS_DISAGREE,
    DeviceEvent,
    FaultRaised,
    InvalidSpin,
    Revolution,
    SpinResult,
    SpinStarted,
)

DIRECTIONS = ("CW", "CCW")
#: the sensor's reasons for an invalid spin (``INV``)
INVALID_REASONS = ("few_turns", "peg", "reversed", "early_motion", "timeout")

#: injectable fault -> (code, severity, text)
WHEEL_FAULTS: dict[str, tuple[int, str, str]] = {
    "index_sensor": (WHEEL_INDEX_SENSOR, "E", "index sensor fault"),
    "encoder": (WHEEL_ENCODER, "E", "encoder fault"),
    "sensors_disagree": (WHEEL_SENSORS_DISAGREE, "E", "position sensors disagree"),
    "motion_while_idle": (WHEEL_MOTION_IDLE, "W", "wheel moved while the sensor was idle"),
}


def exact_turns(turns: object) -> Decimal:
    """A turn count as an exact Decimal (a float by its shortest repr)."""
    if isinstance(turns, Decimal):
        return turns
    if isinstance(turns, (int, float)) and not isinstance(turns, bool):
        return Decimal(repr(turns)) if isinstance(turns, float) else Decimal(turns)
    raise ValueError(f"turns {turns!r} is not a number")


@dataclass(frozen=True)
class Spin:
    """One spin as the sensor sees it: a result (``segment``) or an invalid spin."""

    segment: int | None
    turns: Decimal  # exact; an int or float given here is read by its shortest repr
    direction: str = "CW"
    invalid: str | None = None  # an INVALID_REASONS entry: the sensor reports INV

    def __post_init__(self) -> None:
        if self.direction not in DIRECTIONS:
            raise ValueError(f"direction {self.direction!r} is not CW or CCW")
        if self.invalid is None and self.segment is None:
            raise ValueError("a valid spin needs a segment")
        if self.invalid is not None and self.invalid not in INVALID_REASONS:
            raise ValueError(f"unknown invalid-spin reason {self.invalid!r}")
        object.__setattr__(self, "turns", exact_turns(self.turns))
        if self.turns < 0:
            raise ValueError("turns cannot be negative")


@dataclass(frozen=True)
class WheelFault:
    """A fault to inject.

    ``after``: an error fault fires when the sensor is about to report the
    round's ``after``-th spin (0: before the first), instead of that spin.
    ``motion_while_idle`` fires while the sensor is idle (betting open); with
    a ``segment`` the sensor also reports that unarmed spin's result.
    """

    kind: str
    after: int = 0
    segment: int | None = None
    turns: Decimal = Decimal(4)

    def __post_init__(self) -> None:
        if self.kind not in WHEEL_FAULTS:
            raise ValueError(f"unknown wheel fault {self.kind!r} (faults: {', '.join(WHEEL_FAULTS)})")

    @property
    def code(self) -> int:
        return WHEEL_FAULTS[self.kind][0]


class SpinSource:
    def next_spin(self) -> Spin | None:
        """The dealer's next spin, or None when there is none (a script ran out)."""
        raise NotImplementedError


class ScriptedSpins(SpinSource):
    """Exactly the spins a script says the sensor reports, in order."""

    def __init__(self, spins: Iterable[Spin] = ()) -> None:
        self._spins: deque[Spin] = deque(spins)

    def feed(self, spins: Iterable[Spin]) -> None:
        self._spins.extend(spins)

    def clear(self) -> None:
        self._spins.clear()

    def next_spin(self) -> Spin | None:
        return self._spins.popleft() if self._spins else None

    def remaining(self) -> int:
        return len(self._spins)

    def left(self) -> list[Spin]:
        return list(self._spins)


class RandomSpins(SpinSource):
    """Seeded, realistic spins: most turn 3 to 8 times, a few are short or invalid.

    Every segment is equally likely (the wheel's segments are equal, Art. 1(2)).
    """

    def __init__(
        self,
        rng: random.Random,
        segments: int = 52,
        *,
        short_rate: float = 0.06,
        peg_rate: float = 0.01,
        reversed_rate: float = 0.005,
    ) -> None:
        self.rng = rng
        self.segments = segments
        self.short_rate = short_rate
        self.peg_rate = peg_rate
        self.reversed_rate = reversed_rate

    def next_spin(self) -> Spin:
        rng = self.rng
        direction = rng.choice(DIRECTIONS)
        x = rng.random()
        if x < self.peg_rate:
            return Spin(None, round(rng.uniform(3.0, 8.0), 2), direction, "peg")
        x -= self.peg_rate
        if x < self.reversed_rate:
            return Spin(None, round(rng.uniform(0.5, 3.0), 2), direction, "reversed")
        x -= self.reversed_rate
        if x < self.short_rate:
            turns = round(rng.uniform(0.3, 2.95), 2)  # a weak spin: the table calls no spin
        else:
            turns = max(3.0, round(rng.triangular(3.0, 8.5, 5.0), 2))
        return Spin(rng.randrange(self.segments), turns, direction)


class MockWheelSensor(WheelSensor):
    def __init__(
        self,
        source: SpinSource,
        faults: Iterable[WheelFault] = (),
        name: str | None = None,
        *,
        judge_turns: bool = False,
    ) -> None:
        super().__init__(name)
        self.source = source
        self.faults: list[WheelFault] = list(faults)
        self.queue: deque[DeviceEvent] = deque()
        self.judge_turns = judge_turns
        self.armed = False
        self.round_id = ""
        self.min_turns = 3
        self.max_seconds = 60.0
        self.spins_this_round = 0

    # --- commands (ARM / DRM) ------------------------------------------------

    def arm(self, round_id: str, min_turns: int, max_seconds: float) -> None:
        if round_id != self.round_id:
            self.spins_this_round = 0
        self.round_id = round_id
        self.min_turns = min_turns
        self.max_seconds = max_seconds
        self.armed = True

    def disarm(self) -> None:
        self.armed = False

    # --- fault injection -------------------------------------------------------

    def inject(self, fault: WheelFault) -> None:
        self.faults.append(fault)

    def clear_faults(self) -> None:
        self.health.faults.clear()

    def reset(self) -> None:
        """Forget queued reports and pending faults (a new scripted round)."""
        self.queue.clear()
        self.faults = []
        self.health.faults.clear()
        self.armed = False

    def _take(self, *, idle: bool) -> WheelFault | None:
        for f in self.faults:
            if idle and f.kind == "motion_while_idle":
                self.faults.remove(f)
                return f
            if not idle and f.kind != "motion_while_idle" and f.after == self.spins_this_round:
                self.faults.remove(f)
                return f
        return None

    def _fault(self, kind: str) -> FaultRaised:
        code, severity, text = WHEEL_FAULTS[kind]
        self.health.faults[code] = text
        return FaultRaised(code, severity, text, device=self.name)  # type: ignore[arg-type]

    # --- reports ---------------------------------------------------------------

    def next_event(self, timeout: float | None = 0.0) -> DeviceEvent | None:
        if self.queue:
            return self.queue.popleft()
        if not self.armed:
            fault = self._take(idle=True)
            if fault is None:
                return None
            self.queue.append(self._fault(fault.kind))
            if fault.segment is not None:
                # The wheel was spun with the sensor idle: it reports the spin,
                # stamped with no round. The table must not take it as a result.
                self._report(Spin(fault.segment, fault.turns), round_id="")
            return self.queue.popleft()
        fault = self._take(idle=False)
        if fault is not None:
            self.armed = False
            return self._fault(fault.kind)
        spin = self.source.next_spin()
        if spin is None:
            return None
        self.spins_this_round += 1
        self.armed = False  # one ARM, one spin
        self._report(spin, round_id=self.round_id)
        return self.queue.popleft()

    def _report(self, spin: Spin, *, round_id: str) -> None:
        self.queue.append(SpinStarted(round_id, spin.direction, device=self.name))  # type: ignore[arg-type]
        for n in range(1, int(spin.turns) + 1):
            self.queue.append(Revolution(round_id, n, device=self.name))
        if spin.invalid is not None:
            self.queue.append(InvalidSpin(round_id, spin.turns, spin.invalid, device=self.name))
        elif self.judge_turns and int(spin.turns) < self.min_turns:
            self.queue.append(InvalidSpin(round_id, spin.turns, "few_turns", device=self.name))
        else:
            self.queue.append(
                SpinResult(round_id, spin.segment, spin.turns, spin.direction, device=self.name)  # type: ignore[arg-type]
            )
