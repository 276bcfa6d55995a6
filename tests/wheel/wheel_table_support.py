"""A wheel table on a scripted mock sensor, for the wheel's tests (no tests here)."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from drivers.mock.wheel import MockWheelSensor, ScriptedSpins
from tablesim.games.wheel.profile import load_profile
from tablesim.games.wheel.profile import WheelSettings, default_limits
from tablesim.games.wheel.table import WheelTable

PROFILE = load_profile()


def make_table(spins=(), faults=()):
    sensor = MockWheelSensor(ScriptedSpins(spins), faults)
    limits = replace(default_limits(PROFILE.spots), unit=Decimal("0.01"))
    table = WheelTable(PROFILE, WheelSettings.for_profile(PROFILE, limits=limits), sensor=sensor, table_id="T")
    events = []
    table.bus.subscribe(events.append)
    return table, sensor, events
