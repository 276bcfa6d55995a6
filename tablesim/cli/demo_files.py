"""What ``tablesim studio demo`` writes before it starts anything, all in its
folder: the ports, the wallet's secret, players and ledger, each table's operator tokens and signing key, the
keys file that registers them, and the platform's tables file."""

from __future__ import annotations

import json
import os
import secrets
import socket
from dataclasses import dataclass
from pathlib import Path

from tablecore.errors import InputError
from tablesim.games import registry


def _tables() -> tuple[tuple[str, str, str], ...]:
    """A table for each registered game: (game, table id, what a remote
    bet's position is at the platform, as the game says)."""
    specs = [registry.spec(game) for game in registry.names()]
    return tuple((s.name, s.table_id("DEMO"), s.remote_view().position) for s in specs)


#: the demo's tables: (game, table id, what a remote bet's position is at the platform)
TABLES = _tables()
#: the demo's players in the reference wallet, each with this opening balance
PLAYERS = ("demo1", "demo2", "demo3", "demo4")
BALANCE = "10000.00"
CURRENCY = "MOP"
#: the services, in the order of their ports from --port-base (the tables after them)
SERVICES = ("nats", "wallet", "platform", "floor")


def ports(base: int | None) -> dict[str, int]:
    """A port for each service and table: from ``base`` on (each checked
    free, else one line), or free ones the system gives."""
    names = [*SERVICES, *(tid for _, tid, _ in TABLES)]
    held: list[socket.socket] = []
    out: dict[str, int] = {}
    try:
        for i, name in enumerate(names):
            s = socket.socket()
            held.append(s)
            try:
                s.bind(("127.0.0.1", 0 if base is None else base + i))
            except OSError as exc:
                raise InputError(f"port {base + i} (for {name}) is not free: {exc.strerror}",
                                 where="--port-base") from None
            out[name] = s.getsockname()[1]
    finally:  # (held until every port is chosen, so no two are the same)
        for s in held:
            s.close()
    return out


@dataclass(frozen=True)
class DemoFiles:
    dir: Path
    data: Path  # the children's data directory (XDG_DATA_HOME): journals, keys
    secret: Path
    players: Path
    ledger: Path
    keys: Path
    tables: Path
    tokens: dict[str, tuple[Path, str]]  # table id -> (its operator tokens file, its dealer's token)


def prepare(folder: Path, bet_seconds: float) -> DemoFiles:
    """Every file the children need (those of an earlier run in the folder are kept);
    the tables file tells the players' page the bet timer the tables run."""
    data = folder / "data"
    home = data / "tablesim"
    home.mkdir(parents=True, exist_ok=True)
    secret = folder / "wallet.secret"
    if not secret.exists():
        from tablesim.wallet.signing import create_secret

        create_secret(secret)
    players = _write(folder / "players.toml", f'[currencies]\n{CURRENCY} = "0.01"\n' + "".join(
        f'\n[[players]]\nid = "{p}"\ncurrency = "{CURRENCY}"\nbalance = "{BALANCE}"\n' for p in PLAYERS))
    tables = _write(folder / "tables.toml", "".join(
        f'[tables.{tid}]\ncurrency = "{CURRENCY}"\nunit = "1"\nposition = "{position}"\ngame = "{game}"\n'
        f'bet_seconds = {min(600, max(1, round(bet_seconds)))}\n\n'
        for game, tid, position in TABLES))
    keys = home / "studio-keys.json"
    tokens = {tid: _operator_tokens(home / f"{tid}.demo-tokens.json") for _, tid, _ in TABLES}
    for _, tid, _ in TABLES:
        _register_key(home / f"{tid}.sign.key", tid, keys)
    ledger = folder / "wallet.db"
    _load_players(ledger, players)
    return DemoFiles(folder, data, secret, players, ledger, keys, tables, tokens)


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def _operator_tokens(path: Path) -> tuple[Path, str]:
    """The table's dealer and supervisor (a file of their tokens, mode 0600, kept across runs)."""
    if not path.exists():
        doc = {"operators": [{"name": "demo-dealer", "role": "dealer", "token": secrets.token_urlsafe(24)},
                             {"name": "demo-supervisor", "role": "supervisor", "token": secrets.token_urlsafe(24)}]}
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as fh:
            json.dump(doc, fh)
    doc = json.loads(path.read_text(encoding="utf-8"))
    dealer = next(op["token"] for op in doc["operators"] if op["role"] == "dealer")
    return path, dealer


def _register_key(key_path: Path, table_id: str, keys: Path) -> None:
    """The table's signing key (made now, where the table looks for it) registered in the keys file."""
    from tablesim.studio.signing import create_signing_key, public_hex
    from tablesim.studio.trust import register

    register(keys, table_id, public_hex(create_signing_key(key_path)))


def _load_players(ledger_path: Path, players: Path) -> None:
    from tablesim.wallet.ledger import Ledger
    from tablesim.wallet.players import load_players

    ledger = Ledger(ledger_path)
    try:
        ledger.load(load_players(players), where=str(players))
    finally:
        ledger.close()


def launch_token(files: DemoFiles, player: str = PLAYERS[0]) -> str:
    """A fresh launch token of ``player`` (it opens one session, within the
    wallet's few minutes: a lobby hands one out as a player opens the game)."""
    from tablesim.wallet.ledger import Ledger

    ledger = Ledger(files.ledger)
    try:
        return ledger.issue_token(player)
    finally:
        ledger.close()
