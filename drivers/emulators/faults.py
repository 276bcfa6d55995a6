"""Fault injection specs for the emulators: ``kind[@key=value[,key=value]...]``.

Examples: ``jam@hand=3``, ``misread@card=5``, ``silent@after=2s``,
``silent@after=0.5s,for=1s``, ``crc@frame=4``, ``drop@frame=6``,
``readback``, ``short-spin@spin=1``, ``peg@spin=2``, ``disagree``,
``power@card=4``, ``power@card=4,for=0.5s``.

- The position key says when the fault fires: the N-th frame, card, hand,
  show, spin, shuffle or event the emulator produces **since it started**
  (1-based). Without one, a fault fires at the first (``readback`` is
  ``readback@show=1``). ``disarmed@card=N`` fires the first time the shoe is
  idle after N cards were dealt (``disarmed``: at the first idle moment);
  ``idle-motion@spin=N`` likewise after N spins.
- Durations (``after``, ``for``) are wall-clock seconds, written ``2s``,
  ``250ms`` or a plain number of seconds; they are not scaled by
  ``time_scale``. ``silent`` without ``for`` lasts until the emulator stops.
- Each spec fires once. Give a spec several times to fire it several times.

The table of kinds, the devices they apply to and their keys is
:data:`FAULTS`; docs/protocol.md ("Emulators") documents each effect.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

#: fault kind -> (devices it applies to, its position keys, the default key)
FAULTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # link level, every device
    "crc": (("shoe", "shuffler", "display", "wheel"), ("frame",)),
    "drop": (("shoe", "shuffler", "display", "wheel"), ("frame",)),
    "silent": (("shoe", "shuffler", "display", "wheel"), ("after", "frame")),
    "power": (("shoe", "shuffler", "display", "wheel"), ("card", "hand", "show", "spin", "event")),
    # shoe reader
    "misread": (("shoe", "shuffler"), ("card", "hand")),
    "disarmed": (("shoe",), ("card",)),
    "exposed": (("shoe",), ("card",)),
    # shuffler
    "jam": (("shuffler",), ("hand",)),
    "count": (("shuffler",), ("shuffle",)),
    "short-hand": (("shuffler",), ("hand",)),  # a hand of one card fewer than asked
    "long-hand": (("shuffler",), ("hand",)),  # a hand of one card more
    # draw display
    "readback": (("display",), ("show",)),
    "segment": (("display",), ("show",)),
    # wheel sensor
    "short-spin": (("wheel",), ("spin",)),
    "peg": (("wheel",), ("spin",)),
    "disagree": (("wheel",), ("spin",)),
    "idle-motion": (("wheel",), ("spin",)),
}

#: which position keys exist on which device (the counters it keeps)
DEVICE_KEYS = {
    "shoe": ("frame", "event", "card"),
    "shuffler": ("frame", "event", "hand", "shuffle"),
    "display": ("frame", "event", "show"),
    "wheel": ("frame", "event", "spin"),
}

#: faults whose position counts what happened before (0: at the first idle moment)
_FROM_ZERO = ("disarmed", "idle-motion")

_SPEC = re.compile(r"([a-z][a-z-]*)(?:@(.+))?")
_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|s)?")


@dataclass(frozen=True)
class FaultSpec:
    kind: str
    key: str  # the position key ("frame", "card", ...) or "after" for a time
    at: float  # the position (an int) or, for "after", seconds
    duration: float | None = None  # "for": how long silence or a power loss lasts
    text: str = ""

    def __str__(self) -> str:
        return self.text or self.kind


def _duration(value: str, spec: str) -> float:
    match = _DURATION.fullmatch(value)
    if not match:
        raise ValueError(f"fault {spec!r}: {value!r} is not a duration (e.g. 2s, 250ms, 1.5)")
    seconds = float(match[1]) / (1000 if match[2] == "ms" else 1)
    if not math.isfinite(seconds):
        raise ValueError(f"fault {spec!r}: {value!r} is not a duration")
    return seconds


def parse_fault(text: str, device: str | None = None) -> FaultSpec:
    """Parse one spec; ValueError with a one-line reason if it is not valid (for ``device``)."""
    spec = text.strip()
    match = _SPEC.fullmatch(spec)
    if not match:
        raise ValueError(f"fault {text!r} is not kind[@key=value,...] (e.g. jam@hand=3)")
    kind, params = match[1], match[2]
    if kind not in FAULTS:
        raise ValueError(f"unknown fault {kind!r} (faults: {', '.join(FAULTS)})")
    devices, keys = FAULTS[kind]
    if device is not None and device not in devices:
        raise ValueError(f"fault {kind!r} does not apply to the {device} (it applies to: {', '.join(devices)})")
    if device is not None:
        keys = tuple(k for k in keys if k in DEVICE_KEYS[device] or k == "after")
    key, at, duration = keys[0], 1.0, None
    if kind in _FROM_ZERO:
        at = 0.0
    seen: set[str] = set()
    for part in (params.split(",") if params else []):
        name, eq, value = part.partition("=")
        name, value = name.strip(), value.strip()
        if not eq or not name or not value:
            raise ValueError(f"fault {text!r}: {part!r} is not key=value")
        if name in seen:
            raise ValueError(f"fault {text!r}: {name} given twice")
        seen.add(name)
        if name == "for":
            if kind not in ("silent", "power"):
                raise ValueError(f"fault {text!r}: only silent and power take a duration (for=)")
            duration = _duration(value, text)
        elif name == "after":
            if "after" not in keys:
                raise ValueError(f"fault {text!r}: {kind} takes no after= (keys: {', '.join(keys)})")
            key, at = "after", _duration(value, text)
        elif name in keys:
            if not value.isdigit():
                raise ValueError(f"fault {text!r}: {name} must be a whole number, got {value!r}")
            key, at = name, float(int(value))
            if at < 1 and kind not in _FROM_ZERO:
                raise ValueError(f"fault {text!r}: {name} counts from 1")
        else:
            raise ValueError(f"fault {text!r}: unknown key {name!r} (keys: {', '.join((*keys, 'for'))})"
                             if kind in ("silent", "power") else
                             f"fault {text!r}: unknown key {name!r} (keys: {', '.join(keys)})")
    if kind == "power" and duration is None:
        duration = 0.2
    return FaultSpec(kind, key, at, duration, spec)


class FaultPlan:
    """The faults still to fire. Not thread-safe: the emulator holds its lock."""

    def __init__(self, specs: list[FaultSpec] | tuple[FaultSpec, ...] = ()) -> None:
        self.specs = list(specs)

    def take(self, kind: str, key: str, n: float) -> FaultSpec | None:
        """The spec of ``kind`` due at position ``n`` of ``key`` (removed: it fires once)."""
        for spec in self.specs:
            if spec.kind == kind and spec.key == key and spec.at == n:
                self.specs.remove(spec)
                return spec
        return None

    def take_due(self, kind: str, key: str, n: float) -> FaultSpec | None:
        """The first spec of ``kind`` whose position is ``n`` or earlier."""
        for spec in self.specs:
            if spec.kind == kind and spec.key == key and spec.at <= n:
                self.specs.remove(spec)
                return spec
        return None

    def of(self, kind: str) -> list[FaultSpec]:
        return [s for s in self.specs if s.kind == kind]

    def __bool__(self) -> bool:
        return bool(self.specs)
