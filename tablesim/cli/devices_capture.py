"""``tablesim devices record`` and ``tablesim devices replay``: a table's raw
line-device traffic captured while it plays (on its devices, or on their
emulators), and the capture replayed as the devices, round for round
(:mod:`drivers.lineproto.capture`, the format)."""

from __future__ import annotations

import json
import secrets
from contextlib import ExitStack
from typing import Any

from rich.console import Console

from drivers.lineproto.capture import CaptureError, CaptureWriter, read_capture
from tablecore.errors import ConfigError, InputError
from tablesim.cli.devices_run import run_table
from tablesim.harness.devicetables import DEVICE_TIMEOUT, check_table_id, close_all, game_table, reset_rounds
from tablesim.harness.runopts import RunOptions
from tablesim.harness.tableconfig import TableConfig, load_table_config


def _line_only(config: TableConfig) -> None:
    """A capture holds line devices' bytes: any other device is refused, naming it."""
    for kind, device in config.devices.items():
        if device.backend != "line":
            raise ConfigError(f"a capture records line devices; the {kind} is {device.backend} (TDL/1 devices: "
                              "tablesim run --record)", where=f"{config.path}: devices.{kind}.backend")


def record(config_path: str, out: str, console: Console, *, emulated: bool, rounds: int, seed: int | None,
           time_scale: float, quiet: bool) -> int:
    config = load_table_config(config_path)
    _line_only(config)
    seed = seed if seed is not None else secrets.randbelow(2**32)
    table_id = f"{config.table_id[:28]}-EMU" if emulated else check_table_id(config.table_id)
    with ExitStack() as stack:
        try:
            capture = CaptureWriter(out, {"config": str(config.path), "table_id": table_id, "game": config.game,
                                          "seed": seed, "rounds": rounds, "emulated": emulated,
                                          "time_scale": time_scale if emulated else None,
                                          "devices": {k: d.backend for k, d in config.devices.items()}})
        except OSError as exc:
            raise InputError(f"cannot write the capture: {exc}", where=out) from None
        stack.callback(capture.close)  # registered first: closed after the devices
        taps = {kind: {"transport_wrapper": capture.wrapper(kind)} for kind in config.devices}
        if emulated:
            from tablesim.harness.emulated_config import emulated_devices

            devices, where = emulated_devices(stack, config, seed=seed, time_scale=time_scale, taps=taps)
        else:
            devices = {}
            stack.callback(close_all, devices)
            for kind in config.devices:
                devices[kind] = config.open_device(kind, **taps[kind])
            reset_rounds(devices)
            where = ", ".join(f"{k} on {d.settings.get('url')}" for k, d in config.devices.items())
        for kind, device in devices.items():
            device.cues.insert(0, capture.cue(kind))  # type: ignore[attr-defined]
        table = game_table(config.game, devices, config.settings, profile=config.profile, table_id=table_id,
                           seed=seed)
        table.device_timeout = DEVICE_TIMEOUT
        table.bus.subscribe(capture.on_table_event)
        options = RunOptions(config.game, rounds, seed, config.profile, {}, quiet, 0.0, "none")
        return run_table(table, options, console, f"table {table_id} from {config.path}, recorded to {out} "
                         f"({where})", simulated_floor=True)


def _results(items: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(i["round_id"], json.dumps(i["result"], sort_keys=True, default=str)) for i in items if "result" in i]


def replay(path: str, console: Console, *, speed: float, quiet: bool) -> int:
    try:
        header, items = read_capture(path)
    except CaptureError as exc:
        raise InputError(str(exc)) from None
    config = load_table_config(header.get("config", ""))
    _line_only(config)
    if "display" in config.devices:
        raise InputError(f"{path}: a draw display waits for answers to its commands, which a replay does not "
                         "give: captures of shoes and wheels replay")
    recorded = _results(items)
    replayed: list[dict[str, Any]] = []
    with ExitStack() as stack:
        devices: dict[str, Any] = {}
        stack.callback(close_all, devices)
        for kind in config.devices:
            devices[kind] = config.open_device(kind, url=f"replay:{path}?speed={speed:g}")
        table = game_table(config.game, devices, config.settings, profile=config.profile,
                           table_id=header["table_id"], seed=header["seed"])
        table.device_timeout = DEVICE_TIMEOUT
        table.bus.subscribe(lambda e: replayed.append({"round_id": e.round_id, "result": dict(e.data)})
                            if e.kind == "result" else None)
        options = RunOptions(config.game, len(recorded) or int(header.get("rounds") or 1), header["seed"],
                             config.profile, {}, quiet, 0.0, "none")
        code = run_table(table, options, console, f"table {header['table_id']} replayed from {path} "
                         f"(speed {speed:g})", simulated_floor=True)
    got = _results(replayed)
    for n, (want, have) in enumerate(zip(recorded, got), 1):
        if want != have:
            console.print(f"replay mismatch: round {n} ({want[0]}): recorded {want[1]}, replayed {have[1]}")
            return 1
    if len(got) != len(recorded):
        console.print(f"replay mismatch: {len(recorded)} rounds recorded, {len(got)} replayed")
        return 1
    console.print(f"replay: {len(got)} rounds, every result as recorded")
    return code
