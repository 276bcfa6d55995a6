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
    a seed replays the whole session. Each device takes the game's options
    its mock backend knows (``decks`` for a shoe or a shuffler, ``segments``
    for a wheel); a shoe and a shuffler of one table deal from one pack, the
    rig's ``source`` (a recovered round's cards are taken out of it)."""
    from tablesim.games.rig import MockRig, mock_device

    def build(options: dict[str, Any], *, profile: str | None, seed: int, seeded: bool) -> MockRig:
        rng = random.Random(seed)
        rules = spec.load_profile(profile)
        settings = spec.part("settings")(rules, options)
        devices: dict[str, Any] = {}
        source = None
        for kind in spec.part("devices")(settings):
            given = device_options(kind, options)
            if source is not None and kind in CARD_DEVICES:
                given["source"] = source
            devices[kind] = mock_device(kind, rng=rng, **given)
            if kind in CARD_DEVICES:
                source = devices[kind].source
        table = spec.part("table")(devices, settings, profile=profile, table_id=spec.table_id("MOCK"),
                                   seed=seed if seeded else None)
        return MockRig(table, seed, rng, source=source)

    return build


#: the device kinds that deal cards from a pack (one pack a table)
CARD_DEVICES = ("shoe", "shuffler")


def device_options(kind: str, options: dict[str, Any]) -> dict[str, Any]:
    """The game's options that a mock ``kind`` device takes as its own
    settings (asked of the device registry, one option at a time)."""
    from drivers.registry import device_settings
    from tablecore.errors import ConfigError

    taken: dict[str, Any] = {}
    for name, value in options.items():
        try:
            taken.update(device_settings(kind, "mock", Reader({name: value}, f"devices.{kind}")))
        except ConfigError:
            continue  # an option of the game's own (e.g. how it deals), not the device's
    return taken


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
    the table's ``POSITIONS``, its bets, the cards each position holds (a
    round whose ``cards`` maps positions to cards), the engine's buttons and
    one for each of the game's own actions a dealer takes as it is (see
    :func:`own_buttons`). What it sends is what the console's page reads:
    ``layout.positions``, ``layout.bets``, ``layout.bet_labels`` and
    ``view.boxes``."""
    from tablesim.games.console import GameAdapter

    class Console(GameAdapter):
        title = spec.title

        def game_actions(self) -> list:
            return own_buttons(self)

        def positions(self) -> list[str]:
            return list(self.table.POSITIONS)

        def layout(self) -> dict[str, Any]:
            bets = list(self.table.book.bet_names)
            return {"kind": "boxes", "positions": self.positions(), "bets": bets,
                    "bet_labels": {bet: bet.replace("_", " ") for bet in bets}}

        def view(self) -> dict[str, Any]:
            held = getattr(self.table.round, "cards", None)
            cards = held if isinstance(held, dict) else {}
            return {"boxes": {pos: {"cards": [getattr(c, "code", str(c)) for c in cards.get(pos, ())]}
                              for pos in self.positions()}}

    Console.__name__ = Console.__qualname__ = f"{spec.name.capitalize()}Console"
    return Console


#: the actions the engine's console already has (or that are never a button)
ENGINE_ACTIONS = frozenset({"open_round", "close_betting", "place_bet", "withdraw_bet", "void", "pause",
                            "resume", "resolve_incident", "handle"})


def own_buttons(adapter: Any) -> list:
    """A button for each of the game's own actions that a dealer takes as it
    is: one that takes no arguments (``deal``), and one a choice of few
    values (its input record's one required field says ``choices`` in its
    metadata: ``side: str = field(metadata={"choices": ("heads", "tails")})``),
    a button a value (``toss_heads``: the dealer saw the coin land heads).
    Actions that need an operator's reason or a free value stay the API's."""
    import dataclasses

    from tablesim.games.console import Action

    table, out = adapter.table, []
    for name, spec in table.action_specs.items():
        if name in ENGINE_ACTIONS:
            continue
        required = [f for f in dataclasses.fields(spec.record) if f.name != "actor"
                    and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
        label = name.replace("_", " ").capitalize()
        if not required:
            out.append(adapter.button(name, label))
        elif len(required) == 1 and required[0].metadata.get("choices"):
            for value in required[0].metadata["choices"]:
                out.append(Action(f"{name}_{value}", f"{label}: {value}", "dealer",
                                  lambda body, run=spec.run, value=value: run(table, value),
                                  lambda name=name: table.can(name)))
    return out


def render_analysis(spec: "GameSpec") -> Callable[[dict], str]:
    """``render_analysis(data)``: the analysis as plain indented JSON (a game
    with no table of its own to print)."""
    return lambda data: json.dumps(data, indent=2, sort_keys=False, default=str) + "\n"


def simulation_exact(spec: "GameSpec") -> Callable[..., dict]:
    """``simulation_exact(**options)``: no exact figures to set the simulation against."""
    return lambda profile=None, **options: {}
