"""The served table's benchmarks in ``tablesim bench``: bet intake and a
card's way to the console, each through a real ``tablesim serve`` process.

``SIZES`` holds each measurement's arguments (a test makes them small).
"""

from __future__ import annotations

from typing import Any, Callable

from tablesim.games.gamespec import GameSpec, load
from tablesim.games.registry import names, spec

#: keyword arguments of each measurement
SIZES: dict[str, dict[str, Any]] = {"bet_intake": {}, "card_to_console": {}, "ws_fanout": {}}


def setup(bench: str) -> tuple[GameSpec, Any]:
    """The first registered game that sets ``bench`` up, and its setup."""
    for game in names():
        game_spec = spec(game)
        target = game_spec.service_benches.get(bench)
        if target is not None:
            return game_spec, load(target)
    raise RuntimeError(f"no game sets up {bench}")


#: measured only when asked for by name (``--only``): hundreds of clients on the machine
ON_REQUEST = ("ws_fanout",)


def measure_service(out: dict[str, Any], want: Callable[[str], bool],
                    progress: Callable[[str], None] | None = None, asked: tuple[str, ...] = ()) -> None:
    """Add ``bet_intake`` (with its ``single_bets``), ``card_to_console`` and,
    when asked for, ``ws_fanout`` to ``out``."""
    from tablesim.harness.bench import console_bench, fanout_bench, intake_bench

    items = [("bet_intake", "bet_intake", intake_bench.bet_intake),
             ("card_to_console", "card_to_console", console_bench.card_to_console),
             ("ws_fanout", "ws_fanout", fanout_bench.ws_fanout)]
    for section, key, fn in items:
        if not want(section) or (section in ON_REQUEST and section not in asked):
            continue
        if progress:
            progress(key.replace("_", " "))
        try:
            out[key] = fn(**SIZES.get(key, {}))
        except (ImportError, OSError, RuntimeError) as exc:
            out[key] = {"error": f"{type(exc).__name__}: {exc}"}
