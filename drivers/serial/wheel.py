"""Wheel indicator sensor (ADDR 04) over TDL/1: ``ARM``/``DRM`` in,
``SPN``/``REV``/``RES``/``INV`` and faults out.

One ``ARM``, one spin: the reports of a spin are taken for the round the
sensor is armed for, and after its ``RES`` or ``INV`` the sensor is idle
until armed again. Reports with an empty round-id are motion while idle
(after ``FLT|506``): they are delivered stamped with no round, and the
table records them as an incident, never as a result. Reports for any other
round, or out of order, are refused and never delivered.
"""

from __future__ import annotations

from typing import Any

from drivers.base import WheelSensor
from drivers.events import DeviceEvent, InvalidSpin, Revolution, SpinResult, SpinStarted
from drivers.tdl import DeviceAddr, Frame, NakReason
from drivers.serial import parse
from drivers.serial.link_device import Handler, LinkDevice
from drivers.serial.parse import Refuse

DIRECTIONS = ("CW", "CCW")
#: INV reasons on the wire, as the events carry them
INVALID_REASONS = ("few_turns", "peg", "reversed", "early_motion", "timeout")


class _Spin:
    def __init__(self, round_id: str, direction: str) -> None:
        self.round_id = round_id
        self.direction = direction
        self.turns = 0
        self.end: tuple[str, ...] | None = None  # RES/INV fields once it ended


class SerialWheel(LinkDevice, WheelSensor):
    ADDR = DeviceAddr.WHEEL
    KEEPS_ROUND = True

    def __init__(self, url: str | None = None, **kwargs: Any) -> None:
        super().__init__(url, **kwargs)
        self.armed = False
        self.round_id = ""
        self.min_turns = 3
        self.max_seconds = 60.0
        self._spin: _Spin | None = None  # the armed round's spin
        self._stray: _Spin | None = None  # motion while idle

    def device_handlers(self) -> dict[str, Handler]:
        return {"SPN": self._on_spn, "REV": self._on_rev, "RES": self._on_end, "INV": self._on_end}

    # -- commands ---------------------------------------------------------------------

    def arm(self, round_id: str, min_turns: int, max_seconds: float) -> None:
        def before() -> None:
            self.armed, self.round_id = True, round_id
            self.min_turns, self.max_seconds = min_turns, max_seconds
            self._spin = None

        seconds = f"{float(max_seconds):.3f}".rstrip("0").rstrip(".")
        self._state_command("ARM", round_id, str(int(min_turns)), seconds, before=before)

    def disarm(self) -> None:
        def before() -> None:
            self.armed = False

        self._state_command("DRM", before=before)

    # -- device messages --------------------------------------------------------------

    def _spin_for(self, round_id: str, type: str) -> _Spin | None:
        if round_id == "":
            return self._stray
        if round_id != self.round_id:
            raise parse.sta(f"{type} for round {round_id!r}, the sensor was armed for {self.round_id!r}")
        return self._spin

    def _on_spn(self, frame: Frame) -> list[DeviceEvent]:
        round_id, direction = parse.fields(frame, 2)
        parse.choice(direction, "direction", DIRECTIONS)
        spin = self._spin_for(round_id, "SPN")
        if spin is not None and spin.end is None and spin.direction == direction and spin.turns == 0:
            return []  # the same start reported again
        if round_id == "":
            self._stray = _Spin("", direction)
        else:
            if not self.armed:
                raise parse.sta("spin started while the sensor is not armed")
            if spin is not None:
                raise parse.sta("one ARM, one spin: this round's spin already started")
            self._spin = _Spin(round_id, direction)
        return [SpinStarted(round_id, direction, device=self.name)]  # type: ignore[arg-type]

    def _on_rev(self, frame: Frame) -> list[DeviceEvent]:
        round_id, n_s = parse.fields(frame, 2)
        n = parse.integer(n_s, "turn", 1, 9999)
        spin = self._spin_for(round_id, "REV")
        if spin is None:
            raise parse.sta("a turn of a spin that did not start")
        if spin.end is not None or n <= spin.turns:
            if n <= spin.turns:
                return []  # reported already
            raise parse.sta("a turn after the spin ended")
        if n != spin.turns + 1:
            raise Refuse(NakReason.SEQ, f"turn {n}, expected {spin.turns + 1}")
        spin.turns = n
        return [Revolution(round_id, n, device=self.name)]

    def _on_end(self, frame: Frame) -> list[DeviceEvent]:
        if frame.type == "RES":
            round_id, segment_s, turns_s, direction = parse.fields(frame, 4)
            segment = parse.integer(segment_s, "segment", 0, 999)
            turns = parse.measure(turns_s, "turns")
            parse.choice(direction, "direction", DIRECTIONS)
        else:
            round_id, turns_s, reason = parse.fields(frame, 3)
            turns = parse.measure(turns_s, "turns")
            parse.choice(reason, "reason", INVALID_REASONS)
        spin = self._spin_for(round_id, frame.type)
        if spin is not None and spin.end == (frame.type, *frame.fields):
            return []  # reported already
        if round_id != "" and not self.armed:
            raise parse.sta(f"{frame.type} while the sensor is not armed")
        if spin is None or spin.end is not None:
            if round_id != "" or frame.type == "INV":
                raise parse.sta(f"{frame.type} of a spin that did not start")
            spin = self._stray = _Spin("", direction)  # an idle RES without SPN: still reported as stray
        spin.end = (frame.type, *frame.fields)
        if round_id != "":
            self.armed = False  # one ARM, one spin: the sensor is idle again
        if frame.type == "RES":
            return [SpinResult(round_id, segment, turns, direction, device=self.name)]  # type: ignore[arg-type]
        return [InvalidSpin(round_id, turns, reason, device=self.name)]
