"""``tablesim run`` on each kind of devices: ``--mock`` (the game's mock
rig), ``--emulated`` (the game's emulators on ptys, opened with the real
serial drivers: the laptop demo of the real thing) and ``--config FILE``
(the devices of a table configuration). Every game the same way: the game's
parts come from the registry."""

from __future__ import annotations

import random
import secrets
from contextlib import ExitStack
from typing import Any

from rich.console import Console

from drivers.base import Device
from tablesim.cli.session import run_session
from tablecore.errors import ConfigError, InputError
from tablesim.games import registry
from tablesim.games.rig import mock_rig
from tablesim.harness.devicetables import (
    DEVICE_TIMEOUT,
    check_table_id,
    close_all,
    default_settings,
    game_table,
    open_serial,
    reset_rounds,
    start_emulators,
)
from tablesim.harness.runopts import RunOptions
from tablesim.harness.tableconfig import load_table_config


def run_mock(options: RunOptions, console: Console) -> int:
    rig = mock_rig(options.game, seed=options.seed, profile=options.profile, options=options.options)
    plan = registry.spec(options.game).part("session")(rig.table, rig.rng, f"{rig.devices}, seed {rig.seed}", rig)
    return run_session(rig.table, options, console, plan, simulated_floor=True)


def run_table(table: Any, options: RunOptions, console: Console, devices: str, *, simulated_floor: bool = False) -> int:
    """A table on real, emulated or replayed devices, with simulated players.
    ``simulated_floor``: the devices are software (emulated, replayed), so the
    floor's part is simulated too (a failed emulated shuffler is 'replaced' by
    the session); on real devices only a person may do it, and the run stops."""
    seed = options.seed if options.seed is not None else secrets.randbelow(2**32)
    plan = registry.spec(table.game).part("session")(table, random.Random(seed), f"{devices}, players' seed {seed}")
    return run_session(table, options, console, plan, simulated_floor=simulated_floor)


def emulated_table(options: RunOptions, settings: Any, devices: dict[str, Device]) -> Any:
    """The game's table on the devices of ``--emulated`` (also what a replay of it builds)."""
    table = game_table(options.game, devices, settings, profile=options.profile, seed=options.seed)
    table.device_timeout = DEVICE_TIMEOUT
    return table


def _recorder(stack: ExitStack, record: str | None, header: dict[str, Any]) -> Any:
    """``--record FILE``: a recorder for the drivers opened after it (None: no recording)."""
    if not record:
        return None
    from tablesim.harness.recording import Recorder

    recorder = Recorder(record, header)
    stack.callback(recorder.close)  # registered first: closed after the devices
    return recorder


def _header(mode: str, options: RunOptions, **more: Any) -> dict[str, Any]:
    """A recording's header: the run's options, each game option by name (None: not given)."""
    game_options = {name: options.options.get(name) for name in registry.all_options()}
    return {"mode": mode, "game": options.game, "seed": options.seed, "rounds": options.rounds,
            **game_options, "profile": options.profile, **more}


def run_emulated(options: RunOptions, console: Console, *, time_scale: float, faults: tuple[str, ...],
                 record: str | None = None) -> int:
    settings = default_settings(options.game, options.profile, options.options)
    with ExitStack() as stack:
        urls = start_emulators(stack, options.game, settings, seed=options.seed, time_scale=time_scale, faults=faults)
        recorder = _recorder(stack, record, _header("emulated", options, time_scale=time_scale,
                                                    faults=list(faults), devices=list(urls)))
        devices = open_serial(stack, urls, **(recorder.settings() if recorder is not None else {}))
        table = emulated_table(options, settings, devices)
        if recorder is not None:
            table.bus.subscribe(recorder.on_table_event)
        where = ", ".join(f"{kind} on {url}" for kind, url in urls.items())
        code = run_table(table, options, console, f"emulated devices over the serial drivers ({where})",
                             simulated_floor=True)
        for spec in urls.unfired():  # said, never silently dropped
            console.print(f"[yellow]fault {spec} did not fire[/]: the run ended before it was due (positions "
                          "count from the emulator's start, across rounds)")
        return code


def run_configured(path: str, options: RunOptions, console: Console, *, record: str | None = None,
                   emulated: dict[str, Any] | None = None) -> int:
    config = load_table_config(path)
    if config.studio_signing_key is not None:
        from tablesim.studio.attach import use_signing_key

        use_signing_key(config.table_id, config.studio_signing_key)
    if options.game and options.game != config.game:
        raise ConfigError(f"the table runs {config.game}, not {options.game}", where=f"{config.path}: table.game")
    if emulated is not None:
        if record:
            raise InputError("--record applies to --emulated without --config, and to --config on real devices")
        return _run_config_emulated(config, options, console, **emulated)
    # On a configuration's devices (not mocks) a run is a check with simulated
    # players: its own table id, so its rounds and journal are never the live table's.
    checking = any(d.backend != "mock" for d in config.devices.values())
    table_id = check_table_id(config.table_id) if checking else config.table_id
    run_options = RunOptions(config.game, options.rounds, options.seed, config.profile, {},
                             options.quiet, options.delay, options.journal, options.studio or config.studio_url,
                             key_file=None if checking else config.key_file, json=options.json,
                             metrics_port=options.metrics_port)
    with ExitStack() as stack:
        recorder = _recorder(stack, record, _header("config", run_options, config=str(config.path), time_scale=None,
                                                    faults=[], devices=list(config.devices), table_id=table_id,
                                                    reset_at_start=True))
        taps = {}
        if recorder is not None:  # each serial or USB device's transport tapped
            from tablesim.harness.recording import TAPPED_BACKENDS

            taps = {k: recorder.settings() for k, d in config.devices.items() if d.backend in TAPPED_BACKENDS}
        devices = config.open_devices(**taps)
        stack.callback(close_all, devices)
        reset_rounds(devices)  # whatever round a program before left them in
        table = game_table(config.game, devices, config.settings, profile=config.profile, table_id=table_id)
        if recorder is not None:
            table.bus.subscribe(recorder.on_table_event)
        if checking:
            table.device_timeout = DEVICE_TIMEOUT
        backends = ", ".join(f"{k} {d.backend}" for k, d in config.devices.items())
        return run_table(table, run_options, console, f"table {table_id} from {config.path} ({backends})")


def _run_config_emulated(config: Any, options: RunOptions, console: Console, *, time_scale: float,
                         faults: tuple[str, ...]) -> int:
    """``run --config FILE --emulated``: the configuration's table, each device on its emulator.
    The table is named ``<id>-EMU`` so its journal and round ids are never the live table's."""
    from tablesim.harness.emulated_config import emulated_devices

    table_id = f"{config.table_id[:28]}-EMU"
    run_options = RunOptions(config.game, options.rounds, options.seed, config.profile, {},
                             options.quiet, options.delay, options.journal, options.studio or config.studio_url,
                             json=options.json, metrics_port=options.metrics_port)
    with ExitStack() as stack:
        devices, where = emulated_devices(stack, config, seed=options.seed, time_scale=time_scale, faults=faults)
        # --seed seeds the emulators, the players and (a demo, in mock mode) the draw, as --emulated does
        table = game_table(config.game, devices, config.settings, profile=config.profile, table_id=table_id,
                           seed=options.seed)
        table.device_timeout = DEVICE_TIMEOUT
        return run_table(table, run_options, console, f"table {table_id} from {config.path}, emulated ({where})",
                         simulated_floor=True)
