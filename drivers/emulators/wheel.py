"""Wheel indicator sensor emulator (ADDR 04): a dealer spins when armed.

After ``ARM|round-id|min-turns|max-seconds`` the dealer spins the wheel
(``spin_delay`` device seconds later): ``SPN``, one ``REV`` per full turn
(each turn a little slower), then ``RES|round-id|segment|turns|dir`` or,
for a spin the sensor does not accept, ``INV|round-id|turns|reason``. One
``ARM``, one spin: the sensor is idle again after it. A ``DRM`` during a
spin stops its reports. Spins are seeded: 3 to 8.5 turns (never fewer
than ``min-turns``), every segment equally likely.

Faults: ``short-spin@spin=N`` (fewer turns than ``min-turns``:
``INV few_turns``), ``peg@spin=N`` (the pointer rests on a peg:
``INV peg``), ``disagree@spin=N`` (``FLT|503|E`` instead of the result;
cleared by the next ``ARM``), ``idle-motion@spin=N`` (after N spins, the
wheel is moved while the sensor is idle: ``FLT|506|W`` and the spin
reported with an empty round-id), ``power@spin=N`` and the link faults.
"""

from __future__ import annotations

import math
from typing import Any

from drivers.events import WHEEL_MOTION_IDLE, WHEEL_SENSORS_DISAGREE
from drivers.emulators.base import Emulator
from drivers.tdl import DeviceAddr, Frame, NakReason
from drivers.serial import parse

SPIN_DELAY = 3.0  # from ARM ("no more bets") to the dealer's spin
TURN_TIME = 1.2  # the first turn; each later one takes 15 % longer
SETTLE_TIME = 2.0  # from the last full turn to the wheel at rest
DIRECTIONS = ("CW", "CCW")


class WheelEmulator(Emulator):
    KIND = "wheel"
    ADDR = DeviceAddr.WHEEL
    MODEL = "TDL-WHEEL-EMU"

    def __init__(self, *, segments: int = 52, spin_delay: float = SPIN_DELAY, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.segments = segments
        self.spin_delay = spin_delay
        self.armed = False
        self.round_id = ""
        self.min_turns = 3
        self.max_seconds = 60.0
        self._gen = 0

    def device_handlers(self) -> dict:
        return {"ARM": self._on_arm, "DRM": self._on_drm}

    def status_fields(self) -> tuple[str, ...]:
        return (str(self.count["spin"]),)

    def _on_arm(self, frame: Frame) -> NakReason | None:
        round_id, min_s, max_s = parse.fields(frame, 3)
        if not round_id:
            raise parse.fmt("ARM needs a round-id")
        min_turns = parse.integer(min_s, "min-turns", 1, 50)
        max_seconds = parse.measure(max_s, "max-seconds")
        if self.state == "SPINNING":
            raise parse.sta("the wheel is spinning")
        self.clear_fault(WHEEL_SENSORS_DISAGREE)
        self.clear_fault(WHEEL_MOTION_IDLE)
        self.armed, self.round_id = True, round_id
        self.min_turns, self.max_seconds = min_turns, max_seconds
        self.state = "ARMED"
        self._gen += 1
        gen = self._gen
        self.after(self.spin_delay, lambda: self._spin(gen))
        return None

    def _on_drm(self, frame: Frame) -> NakReason | None:
        parse.fields(frame, 0)
        self.armed = False
        self.state = "IDLE"
        self._gen += 1
        self._maybe_idle_motion()
        return None

    def reset(self) -> None:
        self.armed, self.state = False, "IDLE"
        self._gen += 1

    def on_power_loss(self) -> None:
        self.reset()

    # -- spins ---------------------------------------------------------------------

    def _turn_times(self, turns: float) -> list[float]:
        """When each full turn completes, from the spin's start (device seconds)."""
        times, t = [], 0.0
        for k in range(math.floor(turns)):
            t += TURN_TIME * (1.15**k)
            times.append(t)
        return times

    def _spin(self, gen: int) -> None:
        if gen != self._gen or not self.armed:
            return
        self.count["spin"] += 1
        n = self.count["spin"]
        rng = self.rng
        direction = rng.choice(DIRECTIONS)
        segment = rng.randrange(self.segments)
        turns = max(float(self.min_turns), round(rng.triangular(3.0, 8.5, 5.0), 2))
        end: tuple[str, ...]
        if self.plan.take("short-spin", "spin", n) is not None:
            turns = round(rng.uniform(1.0, max(1.0, self.min_turns - 0.05)), 2)
            end = ("INV", self.round_id, f"{turns:.2f}", "few_turns")
        elif self.plan.take("peg", "spin", n) is not None:
            end = ("INV", self.round_id, f"{turns:.2f}", "peg")
        elif self.plan.take("disagree", "spin", n) is not None:
            end = ("FLT", str(WHEEL_SENSORS_DISAGREE), "E", "position sensors disagree")
        else:
            end = ("RES", self.round_id, str(segment), f"{turns:.2f}", direction)
        if end[0] != "FLT" and end[0] != "INV" and math.floor(turns) < self.min_turns:
            end = ("INV", self.round_id, f"{turns:.2f}", "few_turns")
        self.state = "SPINNING"
        round_id = self.round_id
        self.emit("SPN", round_id, direction, counter="spin")
        times = self._turn_times(turns)
        for k, t in enumerate(times, start=1):
            self.after(t, lambda k=k: self._rev(gen, round_id, k))
        self.after((times[-1] if times else TURN_TIME) + SETTLE_TIME, lambda: self._end(gen, end))

    def _rev(self, gen: int, round_id: str, k: int) -> None:
        if gen == self._gen:
            self.emit("REV", round_id, str(k))

    def _end(self, gen: int, end: tuple[str, ...]) -> None:
        if gen != self._gen:
            return
        self.armed = False
        self.state = "IDLE"
        if end[0] == "FLT":
            self._log.info("fault: sensors disagree")
            self.raise_fault(WHEEL_SENSORS_DISAGREE, end[2], end[3])
        else:
            self.emit(*end)

    def _maybe_idle_motion(self) -> None:
        """A due ``idle-motion`` fault moves the wheel as the sensor goes idle
        (so before the host can arm it again: the fault always fires in a run
        that reaches its position)."""
        spec = self.plan.take_due("idle-motion", "spin", self.count["spin"])
        if spec is None:
            return
        if self.armed:
            self.plan.specs.append(spec)
            return
        self._log.info("fault: the wheel moved while the sensor was idle")
        self.raise_fault(WHEEL_MOTION_IDLE, "W", "wheel moved while the sensor was idle")
        direction = self.rng.choice(DIRECTIONS)
        turns = round(self.rng.uniform(3.0, 6.0), 2)
        self.emit("SPN", "", direction)
        for k in range(1, math.floor(turns) + 1):
            self.emit("REV", "", str(k))
        self.emit("RES", "", str(self.rng.randrange(self.segments)), f"{turns:.2f}", direction)
