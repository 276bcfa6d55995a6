"""The processes of ``tablesim studio demo``: what each one runs, where it
logs, and how the demo knows it is ready."""

from __future__ import annotations

import sys
from pathlib import Path

from tablesim.cli.children import Child, answers_http, says, speaks_nats
from tablesim.cli.demo_files import TABLES, DemoFiles
from tablesim.games import registry


def _tablesim(*args: object) -> list[str]:
    return [sys.executable, "-m", "tablesim.cli.main", *map(str, args)]


def bus_roles(files: DemoFiles, port: int) -> Path:
    """The demo's bus closed by role, as a studio runs it (``tablesim studio
    credentials``: a user per table, the platform's, the studio's, the
    admin's; new passwords at each start): the folder of the roles' files."""
    from tablesim.studio.credentials import write

    folder = files.dir / "bus"
    write(folder, [tid for _, tid, _ in TABLES], f"nats://127.0.0.1:{port}")
    (folder / "node.conf").write_text("include users.conf\n", encoding="utf-8")
    return folder


def role(files: DemoFiles, name: str) -> str:
    """A role's URL file, as the commands take it."""
    return f"@{files.dir / 'bus' / f'{name}.url'}"


def nats_child(nats: str, files: DemoFiles, port: int) -> Child:
    conf = bus_roles(files, port) / "node.conf"
    argv = [nats, "-js", "-a", "127.0.0.1", "-p", str(port), "-sd", str(files.dir / "nats"), "-c", str(conf)]
    return Child("nats-server", argv, files.dir / "nats-server.log", speaks_nats(port))


def _profile(game: str) -> tuple[str, ...]:
    """The rule profile a table offered to remote players runs, where its game
    names one (e.g. the profile with a shared remote hand)."""
    profile = registry.spec(game).remote_view().profile
    return ("--profile", profile) if profile else ()


def others(files: DemoFiles, ports: dict[str, int], bet_seconds: float, pace: float) -> list[Child]:
    """The tables, the wallet, the platform and the floor (all at once: each waits for what it needs)."""
    local = "http://127.0.0.1"
    out = []
    for game, tid, _ in TABLES:
        argv = _tablesim("serve", "--game", game, "--mock", "--autoplay", "--table-id", tid, "--studio", role(files, tid),
                         "--tokens", files.tokens[tid][0], "--port", ports[tid], "--bet-seconds", f"{bet_seconds:g}",
                         "--pace", f"{pace:g}", *_profile(game))
        out.append(Child(tid, argv, files.dir / f"{tid}.log", answers_http(f"{local}:{ports[tid]}/api/health")))
    wallet = _tablesim("wallet", "serve", "--db", files.ledger, "--secret", files.secret, "--players", files.players,
                       "--port", ports["wallet"])
    out.append(Child("wallet", wallet, files.dir / "wallet.log", says("wallet: ")))
    platform = _tablesim("platform", "serve", "--nats", role(files, "platform"), "--wallet", f"{local}:{ports['wallet']}/wallet/v1",
                         "--secret", files.secret, "--tables", files.tables, "--db", files.dir / "platform.db",
                         "--keys", files.keys, "--port", ports["platform"])
    out.append(Child("platform", platform, files.dir / "platform.log",
                     answers_http(f"{local}:{ports['platform']}/api/health")))
    floor = _tablesim("studio", "serve", "--nats", role(files, "studio"), "--keys", files.keys, "--port", ports["floor"])
    out.append(Child("floor", floor, files.dir / "floor.log", answers_http(f"{local}:{ports['floor']}/")))
    return out
