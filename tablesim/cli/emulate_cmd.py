"""``tablesim emulate KIND``: run one device emulator until Ctrl-C or SIGTERM.

It prints one line saying where a driver connects, e.g.
``shoe emulator listening on /dev/pts/7`` (``--pty``, the default) or
``shoe emulator listening on 127.0.0.1:7002`` (``--tcp 7002``; a driver
opens ``socket://127.0.0.1:7002``).
"""

from __future__ import annotations

import signal
import sys
import threading

import click

from drivers.emulators import KINDS, make_emulator
from drivers.emulators.faults import parse_fault
from tablesim.cli.options import FiniteFloat
from drivers.emulators.server import EmulatorServer
from tablecore.errors import InputError


@click.command("emulate")
@click.argument("kind", type=click.Choice(KINDS))
@click.option("--pty", "use_pty", is_flag=True, help="Listen on a new pty and print its path (the default).")
@click.option("--tcp", type=click.IntRange(0, 65535), default=None, metavar="PORT",
              help="Listen on 127.0.0.1:PORT instead (0: any free port).")
@click.option("--seed", type=click.IntRange(min=0), default=None, help="Seed of the device's randomness.")
@click.option("--time-scale", type=FiniteFloat(0, 1000), default=1.0, show_default=True,
              help="Device timing factor: 1 real time, 0 as fast as possible.")
@click.option("--decks", type=click.IntRange(1, 8), default=None, help="shoe, shuffler: decks in the pack.")
@click.option("--fault", "faults", multiple=True, metavar="SPEC",
              help="Inject a fault, e.g. jam@hand=3, misread@card=5, silent@after=2s (repeatable).")
@click.option("--config", "config_path", default=None, metavar="FILE",
              help="Play the KIND device of this table configuration: a line device (backend = \"line\") "
                   "from its own description.")
@click.option("--every", type=FiniteFloat(0.01, 3600), default=10.0, show_default=True,
              help="--config: a device without an arm command deals a card or spins this often (device seconds).")
def command(kind: str, use_pty: bool, tcp: int | None, seed: int | None, time_scale: float,
            decks: int | None, faults: tuple[str, ...], config_path: str | None, every: float) -> None:
    if use_pty and tcp is not None:
        raise InputError("choose one of --pty and --tcp")
    if decks is not None and kind not in ("shoe", "shuffler"):
        raise InputError(f"--decks applies to the shoe and the shuffler, not the {kind}")
    if config_path is not None:
        emulator = _line_emulator(config_path, kind, seed=seed, time_scale=time_scale, faults=faults,
                                  decks=decks, every=every)
    else:
        try:
            specs = [parse_fault(text, kind) for text in faults]
        except ValueError as exc:
            raise InputError(str(exc), where="--fault") from None
        emulator = make_emulator(kind, seed=seed, time_scale=time_scale, faults=specs, decks=decks)
    _serve(emulator, kind, tcp)


def _line_emulator(config_path: str, kind: str, **options) -> object:
    """The emulator of a configuration's line device (its description checked as on load)."""
    from drivers.lineproto.emulator import LineEmulator
    from tablecore.errors import ConfigError
    from tablesim.harness.tableconfig import load_table_config

    config = load_table_config(config_path)
    device = config.devices.get(kind)
    if device is None or device.backend != "line":
        raise ConfigError(f"no line device {kind!r} here (line devices: "
                          f"{', '.join(k for k, d in config.devices.items() if d.backend == 'line') or 'none'})",
                          where=f"{config.path}: devices")
    try:
        return LineEmulator(device.options["spec"], **{**options, "decks": options["decks"] or 1})
    except ValueError as exc:
        where = "--fault" if "fault" in str(exc) else f"{config.path}: devices.{kind}"
        raise InputError(f"cannot emulate it: {exc}", where=where) from None


def _serve(emulator: object, kind: str, tcp: int | None) -> None:
    stop = threading.Event()

    def on_signal(signum: int, frame: object) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        server = EmulatorServer(emulator, pty=tcp is None, tcp=tcp)
        try:
            server.start()
        except OSError as exc:
            raise InputError(f"cannot listen: {exc.strerror or exc}", where=f"--tcp {tcp}") from None
        try:
            click.echo(f"{kind} emulator listening on {server.where}")
            sys.stdout.flush()
            while not stop.wait(0.2):
                pass
        finally:
            server.stop()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


# (the device kinds are the emulators' own list)
command.help = (f"Run a device emulator (KIND: {', '.join(KINDS)}): TDL/1, or with --config FILE the line "
                "device of that configuration.")
