"""The Wheel of Fortune's table: its settings and the table on a given
indicator sensor (the ``settings``, ``config_settings`` and ``table``
parts of its spec; its device is its ``device_kinds``, its diagram its
procedure's)."""

from __future__ import annotations

from typing import Any

from tablecore.validate import Reader
from tablesim.engine.limits import Limits
from tablesim.games.wheel.profile import WheelProfile, load_profile
from tablesim.games.wheel.profile import DEFAULT_SPIN_SECONDS, WheelSettings, default_limits, read_layout_override
from tablesim.games.wheel.table import WheelTable


def settings(profile: WheelProfile, options: dict[str, Any]) -> WheelSettings:
    return WheelSettings.for_profile(profile)


def config_settings(profile: WheelProfile, reader: Reader, limits: Reader | None) -> WheelSettings:
    """``spin_seconds`` (how long the sensor waits for a spin to end) and the
    table's own wheel ``layout``."""
    spin = reader.decimal("spin_seconds", DEFAULT_SPIN_SECONDS)
    if spin <= 0:
        raise reader.fail("spin_seconds", f"must be more than 0, got {spin}")
    layout = read_layout_override(reader, profile)
    by_spot = Limits.parse(limits, profile.spots) if limits is not None else default_limits(profile.spots)
    for spot, limit in by_spot.by_bet.items():
        if limit.position_max is not None:
            # a wheel's position is its player: the cap would only repeat the player's own max
            where = spot if limits.has(spot) else "default"
            raise limits.sub(where).fail("position_max", "the wheel has no position_max: a bet's position is its "
                                         "player, so each player's max is the only cap")
    return WheelSettings(layout=layout, limits=by_spot, spin_seconds=float(spin))


def table(devices: dict, settings: WheelSettings, *, profile: str | None, table_id: str,
          seed: int | None = None) -> WheelTable:
    """A table on a real (serial), emulated or mock wheel indicator sensor."""
    return WheelTable(load_profile(profile), settings, sensor=devices["wheel"], table_id=table_id)

