"""``tablesim devices``: what a table PC can open, serial and USB; with
``--probe``, which TDL/1 device answers on each port (drivers/probe.py)."""

from __future__ import annotations

import json
import sys

import click

from drivers.registry import BAUDRATES
from tablesim.cli.display import make_console
from tablesim.cli.options import FiniteFloat
from tablecore.errors import InputError


def serial_ports() -> tuple[list[dict], str | None]:
    try:
        from serial.tools import list_ports
    except ImportError as exc:  # pragma: no cover - pyserial is a dependency
        return [], f"pyserial is not installed ({exc})"
    ports = []
    for port in sorted(list_ports.comports(), key=lambda p: p.device):
        ports.append({
            "device": port.device,
            "description": port.description,
            "hwid": port.hwid,
            "vid": port.vid,
            "pid": port.pid,
            "serial_number": port.serial_number,
        })
    return ports, None


def usb_devices() -> tuple[list[dict], str | None]:
    try:
        import usb.core
    except ImportError as exc:
        return [], f"pyusb is not installed ({exc})"
    try:
        found = list(usb.core.find(find_all=True))
    except usb.core.NoBackendError:
        return [], "no libusb backend on this machine (install libusb-1.0): USB devices cannot be listed"
    except usb.core.USBError as exc:
        return [], f"USB access failed: {exc}"
    out = []
    for dev in found:
        out.append({"bus": dev.bus, "address": dev.address, "vid": f"{dev.idVendor:04x}", "pid": f"{dev.idProduct:04x}"})
    return out, None


def _usb_id(value: str) -> tuple[int, int, str | None]:
    vid, _, rest = value.partition(":")
    pid, _, serial = rest.partition(":")
    try:
        return int(vid, 16), int(pid, 16), serial or None
    except ValueError:
        raise click.BadParameter(f"{value!r} is not VID:PID[:SERIAL] in hex (e.g. 1209:0001)") from None


def _probe(ports: tuple[str, ...], usb_ids: tuple[str, ...], baudrate: int, timeout: float) -> list:
    from drivers.probe import probe_serial, probe_usb_shoe
    from drivers.usb.shoe import DEFAULT_PID, DEFAULT_VID

    ids = [_usb_id(v) for v in usb_ids]
    everything = not ports and not usb_ids  # nothing named: every serial port and the default USB reader
    targets = list(ports) or ([p["device"] for p in serial_ports()[0]] if everything else [])
    results = [probe_serial(url, baudrate=baudrate, timeout=timeout) for url in targets]
    if everything:
        ids = [(DEFAULT_VID, DEFAULT_PID, None)]
    for vid, pid, serial in ids:
        results.append(probe_usb_shoe(vid, pid, serial_number=serial, timeout=timeout))
    return results


@click.group("devices", invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True)
@click.option("--probe", is_flag=True,
              help="Say hello (TDL/1) on each serial port and USB shoe: which device answers where, or why none.")
@click.option("--port", "ports", multiple=True, metavar="URL",
              help="--probe: this port (a path or any pyserial URL) instead of every serial port (repeatable; "
                   "only what is named is probed).")
@click.option("--usb", "usb_ids", multiple=True, metavar="VID:PID[:SERIAL]",
              help="--probe: the USB shoe reader to look for (repeatable; with neither --port nor --usb: 1209:0001).")
@click.option("--baudrate", type=click.Choice([str(b) for b in BAUDRATES]), default="115200",
              show_default=True, help="--probe: the line speed to try.")
@click.option("--timeout", type=FiniteFloat(0.1, 30), default=1.0, show_default=True,
              help="--probe: seconds a port is given to answer.")
@click.pass_context
def command(ctx: click.Context, as_json: bool, probe: bool, ports: tuple[str, ...], usb_ids: tuple[str, ...],
            baudrate: str, timeout: float) -> None:
    """List serial ports (pyserial) and USB devices (pyusb), or say why not.
    `devices probe`: which device kind, id and firmware answers on each port
    (`--probe` is the same, kept for the scripts that use it); `devices check
    --config FILE`: the driver contract on a table's devices; `devices record`
    and `devices replay`: a table's raw device traffic captured and replayed."""
    if ctx.invoked_subcommand is not None:
        return
    if not probe:
        if ports or usb_ids:
            raise InputError("--port and --usb apply to --probe")
        _list(as_json)
        return
    _report_probe(_probe(ports, usb_ids, int(baudrate), timeout), as_json)


def _report_probe(results: list, as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps({"probed": [r.as_json() for r in results]}, indent=2))
    else:
        for r in results:
            click.echo(r.line())
            for note in r.notes:
                click.echo(f"  note: {note}")
    sys.exit(0 if any(r.found for r in results) else 1)  # 1: no device answered anywhere


def _list(as_json: bool) -> None:
    ports, serial_why = serial_ports()
    usb, usb_why = usb_devices()
    if as_json:
        click.echo(json.dumps({"serial": ports, "serial_error": serial_why, "usb": usb, "usb_error": usb_why}, indent=2))
        return
    click.echo("serial ports:" if ports else f"serial ports: none found{f' ({serial_why})' if serial_why else ''}")
    for p in ports:
        ids = f" [{p['vid']:04x}:{p['pid']:04x}]" if p["vid"] is not None else ""
        click.echo(f"  {p['device']}  {p['description']}{ids}")
    if usb_why:
        click.echo(f"USB devices: cannot list: {usb_why}")
    else:
        click.echo("USB devices:" if usb else "USB devices: none found")
        for d in usb:
            click.echo(f"  bus {d['bus']} address {d['address']}  {d['vid']}:{d['pid']}")


@command.command("check")
@click.option("--config", "config_path", required=True, metavar="FILE",
              help="The table configuration whose devices are checked (a path or a name in config/tables/).")
@click.option("--emulated", is_flag=True, help="Each device on its emulator (over TCP), so every check can run.")
@click.option("--wait", type=FiniteFloat(1, 600), default=10.0, show_default=True,
              help="Seconds a device is given for one round's reports.")
@click.option("--json", "as_json", is_flag=True)
def check_command(config_path: str, emulated: bool, wait: float, as_json: bool) -> None:
    """Run the contract every device backend keeps (typed events in order, arm
    and disarm, silence, reconnection, no card twice, faults named) on each
    device of a configuration; exit 1 if a check fails."""
    from tablesim.cli.devices_check import run_check

    sys.exit(run_check(config_path, emulated=emulated, wait=wait, as_json=as_json))


@command.command("probe")
@click.option("--port", "ports", multiple=True, metavar="URL",
              help="This port (a path or any pyserial URL) instead of every serial port (repeatable; only what "
                   "is named is probed).")
@click.option("--usb", "usb_ids", multiple=True, metavar="VID:PID[:SERIAL]",
              help="The USB shoe reader to look for (repeatable; with neither --port nor --usb: 1209:0001).")
@click.option("--baudrate", type=click.Choice([str(b) for b in BAUDRATES]), default="115200",
              show_default=True, help="The line speed to try.")
@click.option("--timeout", type=FiniteFloat(0.1, 30), default=1.0, show_default=True,
              help="Seconds a port is given to answer.")
@click.option("--json", "as_json", is_flag=True)
def probe_command(ports: tuple[str, ...], usb_ids: tuple[str, ...], baudrate: str, timeout: float,
                  as_json: bool) -> None:
    """Say hello (TDL/1) on each serial port and USB shoe: which device answers
    where, or why none; exit 1 if none answered."""
    _report_probe(_probe(ports, usb_ids, int(baudrate), timeout), as_json)


@command.command("record")
@click.option("--config", "config_path", required=True, metavar="FILE",
              help="The table configuration whose line devices are captured (a path or a name in config/tables/).")
@click.option("--out", required=True, metavar="CAPTURE", help="The capture file to write (JSON Lines).")
@click.option("--emulated", is_flag=True, help="Each device on its emulator (the table runs as <id>-EMU).")
@click.option("--rounds", type=click.IntRange(1, 100000), default=3, show_default=True)
@click.option("--seed", type=click.IntRange(0, 2**32 - 1), default=None,
              help="The players' (and emulators') seed; default: one picked and kept in the capture.")
@click.option("--time-scale", type=FiniteFloat(0, 100), default=0.02, show_default=True,
              help="--emulated: the emulators' timing (1 = as a real device).")
@click.option("--quiet", is_flag=True)
def record_command(config_path: str, out: str, emulated: bool, rounds: int, seed: int | None, time_scale: float,
                   quiet: bool) -> None:
    """Play rounds with simulated players and keep every byte each line device
    sent and received, with its time, in CAPTURE (docs/drivers.md)."""
    from tablesim.cli.devices_capture import record

    sys.exit(record(config_path, out, make_console(), emulated=emulated, rounds=rounds, seed=seed,
                    time_scale=time_scale, quiet=quiet))


@command.command("replay")
@click.argument("capture", metavar="CAPTURE")
@click.option("--speed", type=FiniteFloat(0, 1000), default=0.0, show_default=True,
              help="1: at the capture's own pace; 10: ten times faster; 0: as fast as the table's cues allow.")
@click.option("--quiet", is_flag=True)
def replay_command(capture: str, speed: float, quiet: bool) -> None:
    """Replay CAPTURE as the table's devices: the same rounds, checked against
    the results it recorded; exit 1 at the first that differs."""
    from tablesim.cli.devices_capture import replay

    sys.exit(replay(capture, make_console(), speed=speed, quiet=quiet))
