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
def command(kind: str, use_pty: bool, tcp: int | None, seed: int | None, time_scale: float,
            decks: int | None, faults: tuple[str, ...]) -> None:
    if use_pty and tcp is not None:
        raise InputError("choose one of --pty and --tcp")
    if decks is not None and kind not in ("shoe", "shuffler"):
        raise InputError(f"--decks applies to the shoe and the shuffler, not the {kind}")
    try:
        specs = [parse_fault(text, kind) for text in faults]
    except ValueError as exc:
        raise InputError(str(exc), where="--fault") from None
    emulator = make_emulator(kind, seed=seed, time_scale=time_scale, faults=specs, decks=decks)
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
command.help = f"Run a TDL/1 device emulator (KIND: {', '.join(KINDS)})."
