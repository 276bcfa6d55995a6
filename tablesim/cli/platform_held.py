"""``tablesim platform held|resolve``: the settlement writes the wallet
refused for good, and the operator's decision on each (docs/platform.md,
When the wallet refuses a credit for good)."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import click

from tablecore.errors import InputError


def _held(db: str):
    from tablesim.platform.held import HeldWrites
    from tablesim.platform.intents import Intents

    if not Path(db).is_file():
        raise InputError("no such platform database", where=db)
    intents = Intents(db)
    return intents, HeldWrites(intents.db, intents.lock)


@click.command("held")
@click.option("--db", "db", required=True, metavar="FILE", help="The platform process's database (its --db).")
@click.option("--all", "everything", is_flag=True, help="Resolved ones too.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object.")
def held(db: str, everything: bool, as_json: bool) -> None:
    """List the credits and cancels the wallet refused for good (exit 1 while any is open)."""
    intents, store = _held(db)
    try:
        rows = store.all() if everything else store.open()
    finally:
        intents.close()
    open_ = sum(r.resolved is None for r in rows)
    if as_json:
        click.echo(json.dumps({"open": open_, "held": [r.as_json() for r in rows]}, indent=2))
    else:
        for r in rows:
            state = r.resolved or "OPEN"
            click.echo(f"{r.id}  {r.call} of {r.player}, round {r.round} of {r.table}: {r.status}: "
                       f"{r.message or ''} [{state}; {r.tries} retries]")
        click.echo(f"{open_} held write(s) open" + ("" if everything else " (--all: the resolved ones too)"))
    raise SystemExit(1 if open_ else 0)


@click.command("resolve")
@click.argument("held_id", metavar="ID")
@click.option("--db", "db", required=True, metavar="FILE", help="The platform process's database (its --db).")
@click.option("--retry", is_flag=True, help="Send the same request again under a new id derived from ID.")
@click.option("--wallet", "wallet_url", metavar="URL", help="With --retry: the operator's wallet.")
@click.option("--secret", "secret_file", metavar="FILE", help="With --retry: the wallet's shared secret.")
@click.option("--close", "close_why", metavar="REASON",
              help="Close it without a write: the player was paid another way (the reason is kept).")
def resolve(held_id: str, db: str, retry: bool, wallet_url: str | None, secret_file: str | None,
            close_why: str | None) -> None:
    """Decide one held write: --retry once the cause is mended in the wallet, or --close REASON."""
    if retry == (close_why is not None):
        raise InputError("give either --retry (with --wallet and --secret) or --close REASON", where="resolve")
    if close_why is not None and not close_why.strip():
        raise InputError("--close needs the reason, in words", where="--close")
    if retry and not (wallet_url and secret_file):
        raise InputError("--retry needs --wallet URL and --secret FILE", where="--retry")
    intents, store = _held(db)
    try:
        found = store.get(held_id)
        if found is None:
            raise InputError(f"{held_id!r} is no held write of this database (tablesim platform held)", where=db)
        if found.resolved is not None:
            raise InputError(f"{held_id!r} is resolved already: {found.resolved}", where=db)
        if close_why is not None:
            store.close(held_id, close_why.strip())
            click.echo(f"{held_id}: closed ({close_why.strip()})")
            return
        status, message, done, sent = _send_again(found, wallet_url, secret_file)
        store.tried(held_id, status, message, done)
    finally:
        intents.close()
    click.echo(f"{held_id}: sent again as {sent}: {status}" + (f" ({message})" if message else "")
               + ("" if done else "; still held"))
    raise SystemExit(0 if done else 1)


def _send_again(found, wallet_url: str, secret_file: str) -> tuple[str, str | None, bool, str]:
    import asyncio

    from tablesim.platform.held import retry_id
    from tablesim.wallet.client import WalletClient, WalletRefused, WalletUnavailable
    from tablesim.wallet.signing import load_secret

    secret = load_secret(secret_file)
    body = {**found.request, "transaction_id": retry_id(found)}

    async def go():
        async with WalletClient(wallet_url, secret, attempts=4) as client:
            call = client.credit if found.call == "credit" else client.cancel
            fields = {k: v for k, v in body.items() if k != "transaction_id"}
            if found.call == "credit":
                fields["amount"] = Decimal(fields["amount"])  # (the kept request's decimal string, exact)
            return await call(body["transaction_id"], **fields)

    try:
        out = asyncio.run(go())
    except WalletUnavailable as exc:
        raise InputError(f"the wallet did not answer: {exc} (nothing changed; try again)", where="--wallet") from None
    except WalletRefused as exc:
        return exc.status.value, str(exc), False, body["transaction_id"]
    done = out.ok or (found.call == "cancel" and out.status.value == "already_cancelled")
    return out.status.value, out.message, done, body["transaction_id"]
