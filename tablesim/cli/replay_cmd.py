"""``tablesim replay FILE``: play a recording (``tablesim run ... --record FILE``)
back through the real serial drivers and the same table code, and check the
run does exactly what the recorded one did (docs/protocol.md, "Record and
replay")."""

from __future__ import annotations

import io
import json
import sys
from contextlib import ExitStack
from typing import Any

import click
from tablesim.cli.display import make_console

from drivers.base import Device
from drivers.registry import open_device
from tablecore.errors import DeviceFault, InputError
from tablesim.games import registry
from tablesim.harness.runopts import RunOptions
from tablesim.harness.recording import Recording, Replayer, ReplayMismatch, compare_results

#: where the drivers' placeholder port points; the replayer (their transport_wrapper) swaps it for the recording
PLACEHOLDER_URL = "loop://"


def _options(header: dict[str, Any]) -> RunOptions:
    try:
        game_options = {name: header[name] for name in registry.all_options() if header.get(name) is not None}
        return RunOptions(header["game"], int(header["rounds"]), header.get("seed"), header.get("profile"),
                          game_options, False, 0.0, "none")
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(f"the recording's header lacks the run's options ({exc})") from None


def _open(kinds: list[str], devices: dict[str, Device], replayer: Replayer) -> None:
    for kind in kinds:
        devices[kind] = open_device(kind, "serial", {"url": PLACEHOLDER_URL, **replayer.settings()})
        replayer.watch(devices[kind])


def _build(header: dict[str, Any], options: RunOptions, devices: dict[str, Device], replayer: Replayer):
    """The table the recorded run used, on drivers that read the recording; (table, description)."""
    from tablesim.cli.devices_run import emulated_table
    from tablesim.harness.devicetables import DEVICE_TIMEOUT, default_settings, game_table, reset_rounds
    from tablesim.harness.tableconfig import load_table_config, required_devices
    from tablesim.journal.keys import TABLE_ID

    mode = header.get("mode")
    if mode == "emulated":
        settings = default_settings(options.game, options.profile, options.options)
        _open(list(header.get("devices") or required_devices(options.game, settings)), devices, replayer)
        return emulated_table(options, settings, devices)
    if mode == "config":
        config = load_table_config(header["config"])
        for kind, device in config.devices.items():
            if device.backend == "mock":  # no frames: the mock device itself, as configured
                devices[kind] = device.open()
            else:
                _open([kind], devices, replayer)
        if header.get("reset_at_start"):  # the recorded run reset the devices' rounds (RST)
            reset_rounds(devices)
        table_id = header.get("table_id") or config.table_id
        if not isinstance(table_id, str) or not TABLE_ID.fullmatch(table_id):
            raise InputError(f"the recording's table_id {table_id!r} is not a table id")
        table = game_table(config.game, devices, config.settings, profile=config.profile, table_id=table_id)
        table.device_timeout = DEVICE_TIMEOUT
        return table
    raise InputError(f"the recording's mode {mode!r} cannot be replayed (emulated, config)")


@click.command("replay")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="One JSON result per round instead of the round lines.")
def command(file: str, as_json: bool) -> None:
    """Replay a recording made with `tablesim run ... --record FILE`.

    The recorded device bytes are fed to the real serial drivers and every
    frame the host writes is checked against the recording; the table runs
    with the recorded options (seed, rounds, ...). Exit 0 when every frame
    and every round's result matched, 1 on the first difference."""
    recording = Recording.load(file)
    header = recording.header
    options = _options(header)
    console = make_console(file=io.StringIO(), highlight=False) if as_json else make_console(highlight=False, soft_wrap=True)
    replayer = Replayer(recording)
    results: list[dict[str, Any]] = []

    def on_event(event: Any) -> None:
        if event.kind == "result":
            results.append({"round_id": event.round_id, "result": dict(event.data)})
            if as_json:
                click.echo(json.dumps({"round_id": event.round_id, **event.data}))

    from tablesim.cli.devices_run import run_table

    failure: str | None = None
    with ExitStack() as stack:
        devices: dict[str, Device] = {}
        stack.callback(lambda: [d.close() for d in devices.values()])
        try:
            table = _build(header, options, devices, replayer)
            table.bus.subscribe(on_event)
            kinds = ", ".join(devices)
            run_table(table, options, console, f"replay of {file} ({kinds} over the serial drivers)",
                      simulated_floor=True)
            replayer.wait_finished()
            replayer.check()
            failure = replayer.leftover()
        except ReplayMismatch as exc:
            failure = str(exc)
        except DeviceFault:
            if replayer.failure is None:
                raise
            failure = replayer.failure
    if failure is None:
        failure = compare_results(recording.results, results)
    if failure is not None:
        click.echo(f"tablesim: error: replay mismatch: {failure}", err=True)
        sys.exit(1)
    if not as_json:
        console.print(f"replay of {file}: {len(recording.frames)} frame(s) and {len(results)} round result(s) "
                      "matched the recording")
    sys.exit(0)
