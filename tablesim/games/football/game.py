"""The football card game's table: its settings and the table on given
devices (the ``settings``, ``config_settings`` and ``table`` parts of its spec;
its devices are all its ``device_kinds``, its diagram its procedure's)."""

from __future__ import annotations

import random
from typing import Any

from tablecore.validate import Reader
from tablesim.engine.limits import Limits
from tablesim.games.football.draw import SecureDraw, SeededDraw
from tablesim.games.football.profile import BETS, FootballProfile, load_profile
from tablesim.games.football.profile import FootballSettings, default_limits
from tablesim.games.football.spec import DECKS
from tablesim.games.football.table import FootballTable


def settings(profile: FootballProfile, options: dict[str, Any]) -> FootballSettings:
    return FootballSettings(decks=options["decks"])


def config_settings(profile: FootballProfile, reader: Reader, limits: Reader | None) -> FootballSettings:
    decks = DECKS.read(reader)
    return FootballSettings(decks=decks, limits=Limits.parse(limits, BETS) if limits is not None else default_limits())


def table(devices: dict, settings: FootballSettings, *, profile: str | None, table_id: str,
          seed: int | None = None) -> FootballTable:
    """A table on real (serial) or emulated devices. The draw comes from
    ``secrets`` unless a ``seed`` is given (a demo on emulators), which only
    mock mode allows."""
    seeded = seed is not None
    draws = SeededDraw(random.Random(seed)) if seeded else SecureDraw()
    return FootballTable(load_profile(profile), settings, display=devices["display"], shoe=devices["shoe"],
                         draws=draws, mode="mock" if seeded else "live", table_id=table_id)

