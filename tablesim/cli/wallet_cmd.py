"""``tablesim wallet serve|token|secret|check``: the reference operator wallet
and the protocol's conformance kit (docs/wallet.md)."""

from __future__ import annotations

import click


@click.group("wallet")
def wallet() -> None:
    """The operator's wallet: a reference ledger and the protocol's conformance kit (docs/wallet.md)."""


class _Stopped(Exception):
    pass


def _stop(signum, frame):
    raise _Stopped


@wallet.command("serve")
@click.option("--db", "db", required=True, metavar="FILE", help="The ledger (SQLite; created if missing).")
@click.option("--secret", "secret_file", required=True, metavar="FILE", help="The shared secret (mode 0600).")
@click.option("--players", "players_file", required=True, metavar="FILE", help="Players and currencies (TOML/YAML).")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8070, show_default=True)
@click.option("--window", type=click.IntRange(5, 600), default=30, show_default=True,
              help="Replay window: seconds a request's timestamp may be off.")
def serve(db: str, secret_file: str, players_file: str, host: str, port: int, window: int) -> None:
    """Serve the reference wallet's protocol (POST /wallet/v1/<call>) until Ctrl-C."""
    from tablesim.wallet.app import GroupWriter, Wallet, bind
    from tablesim.wallet.app import serve as run
    from tablesim.wallet.ledger import Ledger
    from tablesim.wallet.players import load_players
    from tablesim.wallet.protocol import PREFIX
    from tablesim.wallet.signing import load_secret

    import signal

    secret = load_secret(secret_file)
    roster = load_players(players_file)
    signal.signal(signal.SIGTERM, _stop)
    sock = bind(host, port)
    ledger = Ledger(db)  # the reads', on the event loop's thread
    writer = None
    try:
        count = ledger.load(roster, where=players_file)
        writer = GroupWriter(Ledger(db))  # the writes', on a thread of their own
        listen = f"[{host}]" if ":" in host else host
        click.echo(f"wallet: http://{listen}:{sock.getsockname()[1]}{PREFIX} ({count} players; stop with Ctrl-C)")
        run(Wallet(ledger, secret, window=window, writer=writer), sock)
    except (KeyboardInterrupt, _Stopped):  # uvicorn stopped gracefully, then raised the signal again
        pass
    finally:
        sock.close()
        if writer is not None:
            writer.close()
            writer.ledger.close()
        ledger.close()
    click.echo("wallet: stopped")


@wallet.command("token")
@click.option("--player", required=True, metavar="ID", help="The player the launch token is for.")
@click.option("--db", "db", required=True, metavar="FILE", help="The wallet's ledger.")
@click.option("--players", "players_file", metavar="FILE", help="Load this players file into the ledger first.")
@click.option("--hours", type=click.FloatRange(0.01, 24 * 30), default=24.0, show_default=True,
              help="How long the token is valid.")
def token(player: str, db: str, players_file: str | None, hours: float) -> None:
    """Print a new launch token of a player (what the operator's site hands the game)."""
    from pathlib import Path

    from tablecore.errors import InputError
    from tablesim.wallet.ledger import Ledger
    from tablesim.wallet.players import load_players

    roster = load_players(players_file) if players_file else None
    if roster is None and not Path(db).is_file():
        raise InputError("no such ledger (tablesim wallet serve creates it, or give --players)", where=db)
    ledger = Ledger(db)
    try:
        if roster is not None:
            ledger.load(roster, where=players_file)
        click.echo(ledger.issue_token(player, hours))
    finally:
        ledger.close()


@wallet.command("secret")
@click.argument("path", metavar="FILE")
def secret(path: str) -> None:
    """Write a new random shared secret to a new file (mode 0600); it is not shown."""
    from tablesim.wallet.signing import create_secret

    create_secret(path)
    click.echo(f"wallet: a new secret in {path} (mode 0600); give the same file to both sides")


@wallet.command("check")
@click.argument("url", metavar="URL")
@click.option("--secret", "secret_file", required=True, metavar="FILE", help="The shared secret (mode 0600).")
@click.option("--token", required=True, metavar="TOKEN",
              help="A launch token of a test player (no limits; a balance of at least 100 stakes of 100 units).")
def check(url: str, secret_file: str, token: str) -> None:
    """Run the protocol's conformance cases against the wallet at URL (its
    base, e.g. http://host:8070/wallet/v1): pass/fail per case, exit 1 on
    any failure."""
    import sys

    from tablecore.errors import InputError
    from tablesim.wallet.kit import run
    from tablesim.wallet.signing import load_secret

    if not url.startswith(("http://", "https://")):
        raise InputError(f"{url!r} is not an http:// or https:// URL", where="URL")
    results = run(url, load_secret(secret_file), token)
    width = max(len(r.name) for r in results)
    for r in results:
        click.echo(f"{'pass' if r.ok else 'FAIL'}  {r.name:<{width}}  {r.detail}")
    failed = sum(not r.ok for r in results)
    click.echo(f"{len(results) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
