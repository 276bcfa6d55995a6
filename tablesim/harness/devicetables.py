"""Tables on real or emulated devices, for any game: ``tablesim run`` and
``tablesim serve`` with ``--emulated`` or ``--config FILE``, and a replay.

``--emulated`` starts the emulators the game's table needs on ptys in this
process and opens them with the serial drivers, exactly as a table PC opens
its USB-serial adapters. ``--config`` opens the devices a table
configuration names, through the device registry. Either way the table is
built by the game's ``table`` part; the devices (and the emulators) are
closed by the ``ExitStack`` given, in reverse order.
"""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

from drivers.base import Device, DrawDisplay
from drivers.registry import open_device
from tablecore.errors import ConfigError, InputError
from tablesim.games import registry
from tablesim.harness.tableconfig import OperatorsConfig, TableConfig, load_table_config, required_devices

#: how long a round of `tablesim run` waits for a device before it is voided (device_timeout)
DEVICE_TIMEOUT = 30.0


@dataclass
class DeviceTable:
    table: Any
    devices: dict[str, Device]
    description: str  # for the console: "emulated devices over the serial drivers (shoe on /dev/pts/3)"
    config: TableConfig | None = None

    @property
    def operators(self) -> OperatorsConfig | None:
        return self.config.operators if self.config is not None else None


def close_all(devices: dict[str, Device]) -> None:
    for device in reversed(list(devices.values())):
        device.close()


def reset_rounds(devices: dict[str, Device]) -> None:
    """A table starting on devices that may have served another program
    (a check run, a table before it): each forgets the round it was armed
    for, so the first round's cards are not taken as that round's."""
    for device in devices.values():
        device.reset_round()


def check_table_id(table_id: str) -> str:
    """The table id of ``tablesim run --config`` on a configuration's devices:
    its rounds (``<id>-CHK-000001``) are never a live journal's, whose round
    ids are ``<id>-`` and digits."""
    return f"{table_id[:28]}-CHK"


def default_settings(game: str, profile: str | None, options: dict[str, Any]) -> Any:
    """The table settings of an emulated table (``options``: as given on the command line)."""
    spec = registry.spec(game)
    return spec.part("settings")(spec.load_profile(profile), spec.cli_options(options))


def game_table(game: str, devices: dict[str, Device], settings: Any, *, profile: str | None,
               table_id: str | None = None, seed: int | None = None) -> Any:
    """``game``'s table on ``devices`` (``table_id``: default the game's emulated table's)."""
    spec = registry.spec(game)
    table = spec.part("table")(devices, settings, profile=profile, table_id=table_id or spec.table_id("EMU"), seed=seed)
    _teach_display(table, devices)
    return table


def _teach_display(table: Any, devices: dict[str, Device]) -> None:
    """A draw display learns the game's combinations, so a read-back of
    another draw's numbers is reported as that draw, not as "0"."""
    display = devices.get("display")
    draws = getattr(getattr(table, "profile", None), "draws", None)
    if isinstance(display, DrawDisplay) and draws:
        display.learn_draws({n: (tuple(d.upper), tuple(d.lower)) for n, d in draws.items()})


def start_emulators(stack: ExitStack, game: str, settings: Any, *, seed: int | None, time_scale: float,
                    faults: tuple[str, ...] | list[str] = (), timing: Any = None) -> dict[str, str]:
    """The emulators of the devices ``game``'s table needs, on ptys until the
    stack closes: kind -> the url a serial driver opens."""
    from drivers.emulators.launcher import running_emulators

    kinds = required_devices(game, settings)
    emulator_options = {"shoe": {"decks": getattr(settings, "decks", 1)}} if "shoe" in kinds else {}
    try:  # a contextmanager: a bad fault spec is raised when it is entered
        return stack.enter_context(
            running_emulators(kinds, seed, time_scale, list(faults), options=emulator_options, timing=timing)
        )
    except ValueError as exc:
        raise InputError(str(exc), where="--fault") from None


def open_serial(stack: ExitStack, urls: dict[str, str], **objects: Any) -> dict[str, Device]:
    """Open each url with the serial driver of its kind (closed by the stack)."""
    devices: dict[str, Device] = {}
    stack.callback(close_all, devices)
    for kind, url in urls.items():
        devices[kind] = open_device(kind, "serial", {"url": url, **objects})
    return devices


def emulated_table(
    stack: ExitStack,
    game: str,
    *,
    seed: int | None = None,
    time_scale: float = 1.0,
    faults: tuple[str, ...] | list[str] = (),
    profile: str | None = None,
    timing: Any = None,
    **options: Any,
) -> DeviceTable:
    """The game's emulators on ptys, opened with the serial drivers, and a
    table on them. ``seed``: reproducible emulators (and a seeded draw where
    the game draws, which only a mock or emulated table allows). ``timing``:
    the link timing (tests). ``options``: the game's options as given."""
    given = registry.check_options(game, options)
    settings = default_settings(game, profile, given)
    urls = start_emulators(stack, game, settings, seed=seed, time_scale=time_scale, faults=faults, timing=timing)
    devices = open_serial(stack, urls, **({"timing": timing} if timing is not None else {}))
    table = game_table(game, devices, settings, profile=profile, seed=seed)
    where = ", ".join(f"{kind} on {url}" for kind, url in urls.items())
    return DeviceTable(table, devices, f"emulated devices over the serial drivers ({where})")


def configured_table(stack: ExitStack, config: TableConfig | str, *, game: str | None = None) -> DeviceTable:
    """The table a configuration (loaded, or a path or name) describes, its
    devices opened (all or none)."""
    if not isinstance(config, TableConfig):
        config = load_table_config(config)
    if game and game != config.game:
        raise ConfigError(f"the table runs {config.game}, not {game}", where=f"{config.path}: table.game")
    devices: dict[str, Device] = {}
    stack.callback(close_all, devices)  # all or none: a device that fails closes those opened
    for kind in config.devices:
        devices[kind] = config.open_device(kind)  # a failure is one line naming the file and key
    reset_rounds(devices)
    table = game_table(config.game, devices, config.settings, profile=config.profile, table_id=config.table_id)
    backends = ", ".join(f"{k} {d.backend}" for k, d in config.devices.items())
    return DeviceTable(table, devices, f"table {config.table_id} from {config.path} ({backends})", config)


def configured_emulated_table(stack: ExitStack, config: TableConfig | str, *, seed: int | None = None,
                              time_scale: float = 1.0, faults: tuple[str, ...] | list[str] = ()) -> DeviceTable:
    """The table a configuration describes with each device on its emulator (``--config FILE
    --emulated``, as ``tablesim run`` has it): named ``<id>-EMU``, so its journal, tokens and
    round ids are never the live table's."""
    from tablesim.harness.emulated_config import emulated_devices

    if not isinstance(config, TableConfig):
        config = load_table_config(config)
    devices, where = emulated_devices(stack, config, seed=seed, time_scale=time_scale, faults=faults)
    table = game_table(config.game, devices, config.settings, profile=config.profile,
                       table_id=f"{config.table_id[:28]}-EMU", seed=seed)
    return DeviceTable(table, devices, f"table {table.table_id} from {config.path}, emulated ({where})")


__all__ = ["DEVICE_TIMEOUT", "DeviceTable", "check_table_id", "configured_emulated_table", "configured_table",
           "reset_rounds", "default_settings", "emulated_table", "game_table", "open_serial", "start_emulators"]
