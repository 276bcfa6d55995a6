"""Table settings of a Wheel of Fortune table (not rules: how it is run).

The layout is a property of the physical wheel: a table may override the
profile's default layout with its own wheel's (checked exactly like the
profile's), and the spin timeout is how long the sensor waits for a spin
to finish before it reports an invalid spin.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tablesim.engine.limits import Limit, Limits
from tablecore.money import parse_amount
from tablesim.games.wheel.profile import WheelProfile, check_layout
from tablecore.validate import Reader

DEFAULT_SPIN_SECONDS = 60.0


def default_limits(spots: tuple[str, ...]) -> Limits:
    return Limits({s: Limit(parse_amount(1), parse_amount(10000)) for s in spots})


@dataclass(frozen=True)
class WheelSettings:
    layout: tuple[str, ...] | None = None  # None: the profile's default layout
    limits: Limits = field(default_factory=Limits)
    spin_seconds: float = DEFAULT_SPIN_SECONDS  # sent to the sensor with ARM

    @staticmethod
    def for_profile(profile: WheelProfile, **kwargs) -> "WheelSettings":
        kwargs.setdefault("limits", default_limits(profile.spots))
        return WheelSettings(**kwargs)


def read_layout_override(reader: Reader, profile: WheelProfile, key: str = "layout") -> tuple[str, ...] | None:
    """A table's own wheel layout (``table: {layout: [...]}``), or None."""
    if not reader.has(key):
        return None
    return check_layout(reader, key, profile.symbols, profile.segments)
