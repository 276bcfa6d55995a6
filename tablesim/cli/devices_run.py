"""``tablesim run --config FILE`` and ``--emulated``: a table on real or
emulated devices, through the real drivers.

``--emulated`` starts the emulators the game needs on ptys in this process
and opens them with the serial drivers, exactly as a table PC opens its
USB-serial adapters: the laptop demo of the real thing.
"""

from __future__ import annotations

import random
from contextlib import ExitStack
from typing import Any

from rich.console import Console

from drivers.base import Device
from drivers.registry import open_device
from tablesim.engine.runopts import RunOptions
from tablesim.core.errors import ConfigError, InputError
from tablesim.games.registry import game_module
from tablesim.harness.tableconfig import load_table_config, required_devices

#: how long a round waits for a device before it is voided (device_timeout)
DEVICE_TIMEOUT = 30.0
EMULATED_TABLE_IDS = {"fortune3": "F3-EMU", "football": "FB-EMU", "wheel": "WHEEL-EMU"}


def default_settings(options: RunOptions) -> Any:
    if options.game == "fortune3":
        from tablesim.games.fortune3.settings import Fortune3Settings

        return Fortune3Settings(dealing=options.dealing or "shoe")
    if options.game == "football":
        from tablesim.games.football.settings import FootballSettings

        return FootballSettings(decks=options.decks or 1)
    from tablesim.games.wheel.profile import load_profile
    from tablesim.games.wheel.settings import WheelSettings

    return WheelSettings.for_profile(load_profile(options.profile))


def _close_all(devices: dict[str, Device]) -> None:
    for device in devices.values():
        device.close()


def emulated_table(options: RunOptions, settings: Any, devices: dict[str, Device]) -> Any:
    """The game's table on the devices of ``--emulated`` (also what a replay of it builds)."""
    module = game_module(options.game)
    seeded = options.seed is not None
    # football: a seeded draw is drawn from --seed (reproducible), as in mock mode
    draw_rng = {"rng": random.Random(options.seed)} if seeded and options.game == "football" else {}
    table = module.table_for_devices(
        devices, settings, profile=options.profile, table_id=EMULATED_TABLE_IDS[options.game],
        seeded=seeded, **draw_rng,
    )
    table.device_timeout = DEVICE_TIMEOUT
    return table


def _recorder(stack: ExitStack, record: str | None, header: dict[str, Any]) -> Any:
    """``--record FILE``: every driver's transport tapped until the run ends (None: no recording)."""
    if not record:
        return None
    from tablesim.harness.recording import Recorder

    recorder = Recorder(record, header)
    stack.callback(recorder.close)  # registered first: closed after the devices
    stack.enter_context(recorder.installed())
    return recorder


def run_emulated(options: RunOptions, console: Console, *, time_scale: float, faults: tuple[str, ...],
                 record: str | None = None) -> int:
    from drivers.emulators.launcher import running_emulators

    module = game_module(options.game)
    settings = default_settings(options)
    kinds = required_devices(options.game, settings)
    emulator_options = {"shoe": {"decks": getattr(settings, "decks", 1)}} if "shoe" in kinds else {}
    emulators = running_emulators(kinds, options.seed, time_scale, list(faults), options=emulator_options)
    with ExitStack() as stack:
        try:  # a contextmanager: a bad fault spec is raised when it is entered
            urls = stack.enter_context(emulators)
        except ValueError as exc:
            raise InputError(str(exc), where="--fault") from None
        recorder = _recorder(stack, record, {
            "mode": "emulated", "game": options.game, "seed": options.seed, "rounds": options.rounds,
            "dealing": options.dealing, "decks": options.decks, "profile": options.profile,
            "time_scale": time_scale, "faults": list(faults), "devices": list(urls),
        })
        devices: dict[str, Device] = {}
        stack.callback(_close_all, devices)
        for kind, url in urls.items():
            devices[kind] = open_device(kind, "serial", {"url": url})
        table = emulated_table(options, settings, devices)
        if recorder is not None:
            table.bus.subscribe(recorder.on_table_event)
        where = ", ".join(f"{kind} on {url}" for kind, url in urls.items())
        return module.run_table(table, options, console, f"emulated devices over the serial drivers ({where})")


def run_configured(path: str, options: RunOptions, console: Console, *, record: str | None = None) -> int:
    config = load_table_config(path)
    if options.game and options.game != config.game:
        raise ConfigError(f"the table runs {config.game}, not {options.game}", where=f"{config.path}: table.game")
    module = game_module(config.game)
    with ExitStack() as stack:
        recorder = _recorder(stack, record, {
            "mode": "config", "config": str(config.path), "game": config.game, "seed": options.seed,
            "rounds": options.rounds, "dealing": None, "decks": None, "profile": config.profile,
            "time_scale": None, "faults": [], "devices": list(config.devices),
        })
        devices = config.open_devices()
        stack.callback(_close_all, devices)
        table = module.table_for_devices(devices, config.settings, profile=config.profile, table_id=config.table_id)
        if recorder is not None:
            table.bus.subscribe(recorder.on_table_event)
        if any(d.backend != "mock" for d in config.devices.values()):
            table.device_timeout = DEVICE_TIMEOUT
        backends = ", ".join(f"{k} {d.backend}" for k, d in config.devices.items())
        run_options = RunOptions(config.game, options.rounds, options.seed, config.profile, None, None,
                                 options.quiet, options.delay, options.journal, options.studio or config.studio_url)
        return module.run_table(table, run_options, console, f"table {config.table_id} from {config.path} ({backends})")
