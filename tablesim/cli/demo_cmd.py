"""``tablesim studio demo``: a whole studio on this machine in one command.

It starts ``nats-server`` (from PATH), makes the studio's stream on it
(``studio init``), then one mock table per game that plays by itself
(``serve --mock --autoplay --studio``, registered keys), the reference
wallet with demo players, the platform and the floor, each as a process
of its own (``tablesim.cli.children``) on local ports, with its state and
its log in one folder. It prints each address and stops everything on
Ctrl-C or SIGTERM; a child that stops on its own is named, the others are
stopped, and the status is 1."""

from __future__ import annotations

import json
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

import click

from tablecore.errors import InputError
from tablesim.cli.options import FiniteFloat

#: pure waiting for the children to be ready (a loaded machine starts a Python process slowly)
START_WAIT = 180.0


def _stages() -> list[list[str]]:
    """The order they stop in: every process of ours together (each stops
    cleanly on its own: the tables publish what is left, the platform's
    intents are on disk), then the bus they need for that."""
    from tablesim.cli.demo_files import TABLES

    return [["platform", "floor", *(tid for _, tid, _ in TABLES), "wallet"], ["nats-server"]]


class _Stopped(Exception):
    pass


def _stop(signum, frame) -> None:
    raise _Stopped()


@click.command("demo")
@click.option("--port-base", type=click.IntRange(1024, 65535 - 7), default=None, metavar="N",
              help="Listen on N (NATS), N+1 (wallet), N+2 (platform), N+3 (floor), N+4.. (the tables); "
                   "default: free ports.")
@click.option("--dir", "folder", type=click.Path(file_okay=False), default=None,
              help="Keep the studio's state and logs here (kept across runs); default: a new temporary folder, "
                   "removed after a clean stop.")
@click.option("--bet-seconds", type=FiniteFloat(1, 3600), default=15.0, show_default=True,
              help="The tables' bet timer.")
@click.option("--pace", type=FiniteFloat(0, 60), default=0.5, show_default=True,
              help="The mock dealers' pace: seconds between two cards.")
@click.option("--json", "as_json", is_flag=True,
              help="Once everything is up, print one JSON object with every address and token (and each "
                   "service's /metrics) instead of the lines; the rest goes to standard error.")
def command(port_base: int | None, folder: str | None, bet_seconds: float, pace: float, as_json: bool) -> None:
    """Start a studio on this machine: NATS, a table per game playing by
    itself, the reference wallet with demo players, the platform and the
    floor; print their addresses; stop them all with Ctrl-C."""
    from tablesim.cli import demo_files
    from tablesim.cli.children import Children

    nats = shutil.which("nats-server")
    if nats is None:
        raise InputError("nats-server is not on PATH: install it (e.g. `apt install nats-server`) and run again")
    ports = demo_files.ports(port_base)  # (a busy port is one line before anything is made)
    where, temporary = _folder(folder)
    files = demo_files.prepare(where, bet_seconds)
    children = Children(_env(files))
    code = _run(children, nats, files, ports, bet_seconds, pace, as_json)
    if temporary and code == 0:
        shutil.rmtree(where, ignore_errors=True)
    if code:
        sys.exit(code)


def _folder(folder: str | None) -> tuple[Path, bool]:
    if folder is None:
        return Path(tempfile.mkdtemp(prefix="tablesim-demo-")), True
    path = Path(folder)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot make the folder: {exc.strerror}", where=f"--dir {folder}") from None
    return path.resolve(), False


def _env(files) -> dict[str, str]:
    import os

    return {**os.environ, "XDG_DATA_HOME": str(files.data), "PYTHONUNBUFFERED": "1", "COLUMNS": "200"}


def _run(children, nats: str, files, ports: dict[str, int], bet_seconds: float, pace: float,
         as_json: bool = False) -> int:
    """Start, print, watch, stop: the exit status."""
    from tablesim.cli.children import ChildDied

    previous = signal.signal(signal.SIGTERM, _stop)
    previous_int = signal.getsignal(signal.SIGINT)
    code = 0
    try:
        _start(children, nats, files, ports, bet_seconds, pace)
        if as_json:
            click.echo(json.dumps(addresses(files, ports), indent=1))
        else:
            _print_addresses(files, ports)
        while True:
            children.check()
            time.sleep(0.2)
    except (KeyboardInterrupt, _Stopped):
        pass
    except ChildDied as died:
        child = died.child
        click.echo(f"tablesim: studio demo: {child.name} stopped by itself (exit status {child.proc.returncode}); "
                   f"its log: {child.log}; stopping the others", err=True)
        code = 1
    except TimeoutError as late:
        click.echo(f"tablesim: studio demo: not ready after {START_WAIT:g} s: {late}; the logs are in "
                   f"{files.dir}; stopping everything", err=True)
        code = 1
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # (a second Ctrl-C does not cut the stop short)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        try:
            children.stop(_stages())
        finally:
            signal.signal(signal.SIGINT, previous_int)
            signal.signal(signal.SIGTERM, previous)
    click.echo("studio demo: stopped" + (f" (the logs are in {files.dir})" if code else ""), err=as_json)
    return code


def _start(children, nats: str, files, ports: dict[str, int], bet_seconds: float, pace: float) -> None:
    """The bus first (and the studio's stream on it), then everything else at once."""
    from tablesim.cli import demo_children
    from tablesim.cli.studio_cmd import _run_on_bus
    from tablesim.studio.setup import Wanted, init

    broker = demo_children.nats_child(nats, files, ports["nats"])
    children.start(broker)
    children.wait_ready([broker], START_WAIT)
    url = demo_children.role(files, "admin")  # (the operator's role makes the stream)
    lines = _run_on_bus(url, lambda: init(url, Wanted(1, None, None)))
    (files.dir / "studio-init.log").write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    rest = demo_children.others(files, ports, bet_seconds, pace)
    children.start(*rest)
    children.wait_ready(rest, START_WAIT)


def _print_addresses(files, ports: dict[str, int]) -> None:
    from tablesim.cli.demo_files import PLAYERS, TABLES, launch_token

    local = "http://127.0.0.1"
    lobby = f"{local}:{ports['platform']}/"
    click.echo(f"studio demo in {files.dir} (each process's log there)")
    click.echo(f"lobby: {lobby}#token={launch_token(files)}")
    # (a launch link opens one session within minutes, as an operator's lobby hands them out)
    click.echo(f"another launch link: tablesim wallet token --player {PLAYERS[0]} --db {files.ledger} "
               f"--link {lobby}")
    click.echo(f"floor: {local}:{ports['floor']}/")
    for game, tid, _ in TABLES:
        click.echo(f"console {tid}: {local}:{ports[tid]}/#token={files.tokens[tid][1]}")
    click.echo(f"wallet: {local}:{ports['wallet']}/wallet/v1 (players {', '.join(PLAYERS)}: another's launch "
               f"link with --player {PLAYERS[1]})")
    click.echo(f"nats: nats://127.0.0.1:{ports['nats']} (closed by role: each role's URL file is in "
               f"{files.dir / 'bus'}, e.g. --nats @{files.dir / 'bus' / 'admin.url'})")
    click.echo("stop with Ctrl-C")


def addresses(files, ports: dict[str, int]) -> dict:
    """What ``--json`` prints: every address and token of the running studio, and each service's metrics."""
    from tablesim.cli.demo_files import PLAYERS, TABLES, launch_token

    local = "http://127.0.0.1"
    lobby = f"{local}:{ports['platform']}/"
    token = launch_token(files)
    return {
        "dir": str(files.dir),
        "lobby": {"url": lobby, "launch_token": token, "link": f"{lobby}#token={token}", "player": PLAYERS[0]},
        "another_launch_link": ["tablesim", "wallet", "token", "--player", PLAYERS[0], "--db", str(files.ledger),
                                "--link", lobby],
        "floor": {"url": f"{local}:{ports['floor']}/", "metrics": f"{local}:{ports['floor']}/metrics"},
        "tables": {tid: {"game": game, "console": f"{local}:{ports[tid]}/", "dealer_token": files.tokens[tid][1],
                         "link": f"{local}:{ports[tid]}/#token={files.tokens[tid][1]}",
                         "metrics": f"{local}:{ports[tid]}/metrics"} for game, tid, _ in TABLES},
        "platform": {"url": lobby, "metrics": f"{local}:{ports['platform']}/metrics"},
        "wallet": {"url": f"{local}:{ports['wallet']}/wallet/v1", "metrics": f"{local}:{ports['wallet']}/metrics",
                   "players": list(PLAYERS)},
        "nats": {"url": f"nats://127.0.0.1:{ports['nats']}", "role_urls": str(files.dir / "bus")},
    }
