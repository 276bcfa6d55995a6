"""Device emulators: protocol-level stand-ins for the four TDL/1 devices.

They speak the real bytes through the same link layer as the drivers, on a
pty, a TCP port or the emulated USB backend, with seeded randomness,
timing scaled by ``time_scale`` and fault injection
(:mod:`drivers.emulators.faults`). ``tablesim emulate KIND`` runs one;
:func:`drivers.emulators.launcher.running_emulators` runs a table's worth
in-process.
"""

from __future__ import annotations

from typing import Any

from drivers.emulators.base import Emulator
from drivers.emulators.display import DisplayEmulator
from drivers.emulators.faults import FAULTS, FaultSpec, parse_fault
from drivers.emulators.shoe import ShoeEmulator
from drivers.emulators.shuffler import ShufflerEmulator
from drivers.emulators.wheel import WheelEmulator

EMULATORS: dict[str, type[Emulator]] = {
    "shuffler": ShufflerEmulator,
    "shoe": ShoeEmulator,
    "display": DisplayEmulator,
    "wheel": WheelEmulator,
}
KINDS = tuple(EMULATORS)


def make_emulator(kind: str, **kwargs: Any) -> Emulator:
    """An emulator of ``kind``; ``decks`` is dropped for devices without cards."""
    try:
        cls = EMULATORS[kind]
    except KeyError:
        raise ValueError(f"no emulator for {kind!r} (kinds: {', '.join(KINDS)})") from None
    if kind not in ("shoe", "shuffler"):
        kwargs.pop("decks", None)
    elif kwargs.get("decks") is None:
        kwargs.pop("decks", None)
    return cls(**kwargs)


__all__ = [
    "EMULATORS",
    "FAULTS",
    "KINDS",
    "DisplayEmulator",
    "Emulator",
    "FaultSpec",
    "ShoeEmulator",
    "ShufflerEmulator",
    "WheelEmulator",
    "make_emulator",
    "parse_fault",
]
