"""``tablesim wallet serve|token|secret|check|reconcile``: the reference operator wallet
and the protocol's conformance kit (docs/wallet.md)."""

from __future__ import annotations

import click

from tablesim.cli.options import nats_option


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
@click.option("--fault", "fault_specs", multiple=True, metavar="MODE:VALUE",
              help="For fault runs: slow:SECONDS, error:P, drop-after-commit:P (repeatable).")
@click.option("--fault-seed", type=int, default=0, show_default=True, help="Seed of the faults' draws.")
def serve(db: str, secret_file: str, players_file: str, host: str, port: int, window: int,
          fault_specs: tuple[str, ...], fault_seed: int) -> None:
    """Serve the reference wallet's protocol (POST /wallet/v1/<call>) until Ctrl-C."""
    from tablesim.wallet import faults as faulting
    from tablesim.wallet.app import GroupWriter, Wallet, bind
    from tablesim.wallet.app import serve as run
    from tablesim.wallet.ledger import Ledger
    from tablesim.wallet.players import load_players
    from tablesim.wallet.protocol import PREFIX
    from tablesim.wallet.signing import load_secret

    import signal

    faults = faulting.parse(fault_specs, fault_seed)
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
        click.echo(f"wallet: http://{listen}:{sock.getsockname()[1]}{PREFIX} ({count} players; stop with Ctrl-C)"
                   + (f" faults: {faults.shown()}" if faults.any else ""))
        run(Wallet(ledger, secret, window=window, writer=writer), sock, faults=faults)
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
@click.option("--minutes", type=click.FloatRange(0.1, 24 * 60), default=5.0, show_default=True,
              help="How long the token may open a session (it opens one only).")
@click.option("--link", metavar="URL", help="Print the player's launch link on the platform at URL "
              "(URL/#token=TOKEN) instead of the bare token.")
def token(player: str, db: str, players_file: str | None, minutes: float, link: str | None) -> None:
    """Print a new launch token of a player (what the operator's site hands
    the game): it opens one session, within --minutes."""
    from pathlib import Path

    from tablecore.errors import InputError
    from tablesim.wallet.ledger import Ledger
    from tablesim.wallet.players import load_players

    if link is not None and not link.startswith(("http://", "https://")):
        raise InputError(f"{link!r} is not an http:// or https:// URL", where="--link")
    roster = load_players(players_file) if players_file else None
    if roster is None and not Path(db).is_file():
        raise InputError("no such ledger (tablesim wallet serve creates it, or give --players)", where=db)
    ledger = Ledger(db)
    try:
        if roster is not None:
            ledger.load(roster, where=players_file)
        issued = ledger.issue_token(player, minutes)
        click.echo(issued if link is None else f"{link.split('#')[0].rstrip('/')}/#token={issued}")
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


@wallet.command("reconcile")
@nats_option("--nats", "nats_url", required=True,
             help="The studio's NATS; a cluster's nodes comma-separated or the option repeated.")
@click.option("--wallet", "wallet_url", required=True, metavar="URL", help="The wallet's base URL (.../wallet/v1).")
@click.option("--secret", "secret_file", required=True, metavar="FILE", help="The shared secret (mode 0600).")
@click.option("--keys", "keys_file", metavar="FILE",
              help="The tables' registered public keys (default: the studio's, tablesim studio register-key).")
@click.option("--since", metavar="TIME", help="Only rounds with a record or a transaction since TIME "
              "(UTC, e.g. 2026-12-01T18:00:00Z).")
@click.option("--grace", type=click.FloatRange(0, 86400), default=60.0, show_default=True,
              help="Seconds a debit of a round the tables never had may wait for its round.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object instead of lines.")
def reconcile(nats_url: str, wallet_url: str, secret_file: str, keys_file: str | None, since: str | None,
              grace: float, as_json: bool) -> None:
    """Hold every round in the studio stream against the wallet's
    transactions: a credit missing, paid twice or of the wrong amount, a
    debit with no accepted bet, a void round's debit not cancelled. One
    line each and exit 1; exit 0 when clean."""
    import asyncio
    import json
    import sys

    import nats.errors

    from tablecore.errors import InputError
    from tablesim.studio import natsio, trust
    from tablesim.studio.reconcile import run
    from tablesim.wallet.client import WalletError
    from tablesim.wallet.signing import load_secret

    natsio.check_url(nats_url, where="--nats")
    if not wallet_url.startswith(("http://", "https://")):
        raise InputError(f"{wallet_url!r} is not an http:// or https:// URL", where="--wallet")
    moment = _since(since)
    secret = load_secret(secret_file)
    keys = trust.load_trust(keys_file, missing_ok=keys_file is None)
    try:
        report, rounds = asyncio.run(run(nats_url, wallet_url, secret, keys, since=moment, grace=grace))
    except WalletError as exc:
        raise InputError(f"the wallet: {exc}", where="--wallet") from None
    except natsio.Refused as exc:
        raise InputError(str(exc), where="--nats") from None
    except (OSError, asyncio.TimeoutError, nats.errors.Error) as exc:
        raise InputError(f"cannot read the stream: {type(exc).__name__} {exc}".strip(), where="--nats") from None
    if as_json:
        click.echo(json.dumps({**report.as_json(), "left_out": rounds.left_out}))
    else:
        for finding in report.findings:
            click.echo(finding.line())
        click.echo(f"{report.rounds} rounds ({report.settled} settled, {report.void} void, {report.open} open), "
                   f"{report.transactions} transactions: "
                   f"{'clean' if report.clean else f'{len(report.findings)} discrepancies'}"
                   + (f"; {rounds.left_out} stream messages not signed by their table, left out"
                      if rounds.left_out else ""))
    sys.exit(0 if report.clean else 1)


def _since(text: str | None):
    from datetime import datetime, timezone

    from tablecore.errors import InputError

    if text is None:
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise InputError(f"{text!r} is not a time (e.g. 2026-12-01T18:00:00Z)", where="--since") from None
    if moment.tzinfo is None:
        raise InputError(f"{text!r} has no time zone: give it in UTC (…Z)", where="--since")
    return moment.astimezone(timezone.utc)
