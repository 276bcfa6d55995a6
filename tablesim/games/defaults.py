"""The stand-ins for the parts a game may leave out of its ``GameSpec``,
where the three built-in games agree (see ``gamespec.DEFAULTS``).

A new game names only what is its own (its profile, settings, table,
dealer, scripts, simulator and analysis); a table on mock devices, a
configured table's settings, a console and the plain rendering of an
analysis come from here until the game needs its own.
"""

from __future__ import annotations

import json
import random
from typing import TYPE_CHECKING, Any, Callable

from tablecore.validate import Reader

if TYPE_CHECKING:
    from tablesim.games.gamespec import GameSpec


def mock(spec: "GameSpec") -> Callable[..., Any]:
    """``mock(options, *, profile, seed, seeded)``: the game's table on mock
    devices from the device registry, every one drawing from the session's
    generator (``random.Random(seed)``), which the simulated players share:
    a seed replays the whole session."""
    from tablesim.games.rig import MockRig, mock_device

    def build(options: dict[str, Any], *, profile: str | None, seed: int, seeded: bool) -> MockRig:
        rng = random.Random(seed)
        rules = spec.load_profile(profile)
        settings = spec.part("settings")(rules, options)
        devices = {kind: mock_device(kind, rng=rng) for kind in spec.part("devices")(settings)}
        table = spec.part("table")(devices, settings, profile=profile, table_id=spec.table_id("MOCK"),
                                   seed=seed if seeded else None)
        return MockRig(table, seed, rng)

    return build


def config_settings(spec: "GameSpec") -> Callable[..., Any]:
    """``config_settings(profile, reader, limits)``: the settings of a game
    whose configured table takes only its options (``spec.options``) and
    keeps its default limits; a ``[limits]`` table is one located line."""

    def read(profile: Any, reader: Reader, limits: Reader | None) -> Any:
        if limits is not None:
            raise limits.fail(None, f"the {spec.name} table takes no limits of its own (its defaults apply)")
        return spec.part("settings")(profile, spec.read_options(reader))

    return read


def console(spec: "GameSpec") -> Callable[..., Any]:
    """The console of a game with no adapter of its own: boxes laid out from
    the table's ``POSITIONS``, its bets, the engine's buttons."""
    from tablesim.games.console import GameAdapter

    class Console(GameAdapter):
        title = spec.title

        def positions(self) -> list[str]:
            return list(self.table.POSITIONS)

        def layout(self) -> dict[str, Any]:
            return {"kind": "boxes", "positions": self.positions(), "bets": list(self.table.book.bet_names)}

    Console.__name__ = Console.__qualname__ = f"{spec.name.capitalize()}Console"
    return Console


def render_analysis(spec: "GameSpec") -> Callable[[dict], str]:
    """``render_analysis(data)``: the analysis as plain indented JSON (a game
    with no table of its own to print)."""
    return lambda data: json.dumps(data, indent=2, sort_keys=False, default=str) + "\n"


def simulation_exact(spec: "GameSpec") -> Callable[..., dict]:
    """``simulation_exact(**options)``: no exact figures to set the simulation against."""
    return lambda profile=None, **options: {}
