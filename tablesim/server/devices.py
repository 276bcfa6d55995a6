"""Tables on real or emulated devices for ``tablesim serve --config FILE``
and ``tablesim serve --game G --emulated``.

Both open the devices through the registry (``--emulated``: the serial
drivers on the ptys of in-process emulators, as ``tablesim run --emulated``)
and build the game's table with its ``table_for_devices``. The devices, and
the emulators, are closed by the ``ExitStack`` given, in reverse order.

With these tables there is no mock dealer (``rig``): the dealer's actions
(deal, close betting, no spin) go to the devices, and the runner's pump hands
the table whatever the devices report, as they report it.
"""

from __future__ import annotations

import random
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

from drivers.base import Device
from drivers.registry import open_device
from tablesim.engine.runopts import RunOptions
from tablesim.engine.table import GameTable
from tablesim.core.errors import ConfigError, InputError
from tablesim.games.registry import game_module
from tablesim.harness.tableconfig import OperatorsConfig, TableConfig, load_table_config, required_devices


@dataclass
class DeviceTable:
    table: GameTable
    devices: dict[str, Device]
    description: str  # for the console: "emulated devices over the serial drivers (shoe on /dev/pts/3)"
    config: TableConfig | None = None

    @property
    def operators(self) -> OperatorsConfig | None:
        return self.config.operators if self.config is not None else None


def _close_all(devices: dict[str, Device]) -> None:
    for device in reversed(list(devices.values())):
        device.close()


def emulated_table(
    stack: ExitStack,
    game: str,
    *,
    seed: int | None = None,
    time_scale: float = 1.0,
    faults: tuple[str, ...] | list[str] = (),
    profile: str | None = None,
    dealing: str | None = None,
    decks: int | None = None,
    timing: Any = None,
) -> DeviceTable:
    """The game's emulators on ptys, opened with the serial drivers, and a
    table on them. ``seed``: reproducible emulators (and a seeded football
    draw, which only a mock or emulated table allows). ``timing``: the link
    timing (tests)."""
    from drivers.emulators.launcher import running_emulators
    from tablesim.cli.devices_run import EMULATED_TABLE_IDS, default_settings

    if dealing and game != "fortune3":
        raise InputError(f"--dealing applies to fortune3, not {game}")
    if decks and game != "football":
        raise InputError(f"--decks applies to football, not {game}")
    options = RunOptions(game, seed=seed, profile=profile, dealing=dealing, decks=decks)
    module = game_module(game)
    settings = default_settings(options)
    kinds = required_devices(game, settings)
    emulator_options = {"shoe": {"decks": getattr(settings, "decks", 1)}} if "shoe" in kinds else {}
    try:
        # (a contextmanager: a bad fault spec is raised when it is entered)
        urls = stack.enter_context(
            running_emulators(kinds, seed, time_scale, list(faults), options=emulator_options, timing=timing)
        )
    except ValueError as exc:
        raise InputError(str(exc), where="--fault") from None
    devices: dict[str, Device] = {}
    stack.callback(_close_all, devices)
    extra = {"timing": timing} if timing is not None else {}
    for kind, url in urls.items():
        devices[kind] = open_device(kind, "serial", {"url": url, **extra})
    seeded = seed is not None
    more = {"rng": random.Random(seed)} if game == "football" and seeded else {}
    table = module.table_for_devices(devices, settings, profile=profile, table_id=EMULATED_TABLE_IDS[game],
                                     seeded=seeded, **more)
    where = ", ".join(f"{kind} on {url}" for kind, url in urls.items())
    return DeviceTable(table, devices, f"emulated devices over the serial drivers ({where})")


def configured_table(stack: ExitStack, config: TableConfig | str, *, game: str | None = None) -> DeviceTable:
    """The table a configuration (loaded, or a path or name) describes, its
    devices opened (all or none)."""
    if not isinstance(config, TableConfig):
        config = load_table_config(config)
    if game and game != config.game:
        raise ConfigError(f"the table runs {config.game}, not {game}", where=f"{config.path}: table.game")
    module = game_module(config.game)
    devices: dict[str, Device] = {}
    stack.callback(_close_all, devices)  # all or none: a device that fails closes those opened
    for kind in config.devices:
        devices[kind] = config.open_device(kind)  # a failure is one line naming the file and key
    table = module.table_for_devices(devices, config.settings, profile=config.profile, table_id=config.table_id)
    backends = ", ".join(f"{k} {d.backend}" for k, d in config.devices.items())
    return DeviceTable(table, devices, f"table {config.table_id} from {config.path} ({backends})", config)


__all__ = ["DeviceTable", "configured_table", "emulated_table"]
