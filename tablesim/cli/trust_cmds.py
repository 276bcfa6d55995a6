"""``tablesim keys export-public`` and ``tablesim receipt verify``: the
table's signing key as the studio needs it, and a bet's receipt checked
offline (docs/studio.md)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from tablecore.errors import InputError


@click.group("keys")
def keys() -> None:
    """The table's Ed25519 signing key (records and status it publishes to the studio)."""


@keys.command("export-public")
@click.option("--table", "table_id", required=True, help="The table's id.")
@click.option("--signing-key", "key_path", default=None, metavar="FILE",
              help="The table's signing key (default: <data dir>/<table id>.sign.key; created if missing).")
@click.option("--out", "out", default=None, metavar="FILE", help="Write the public key file here (default: print it).")
def export_public(table_id: str, key_path: str | None, out: str | None) -> None:
    """The table's public key, as a file for `tablesim studio register-key`
    and `tablesim receipt verify --key`."""
    from tablesim.studio.signing import default_signing_key_path, public_hex, signing_key_for
    from tablesim.studio.trust import public_key_document
    from tablesim.studio.wire import check_token

    check_token(table_id, "--table")
    path = Path(key_path) if key_path else default_signing_key_path(table_id)
    created = not path.exists()
    doc = public_key_document(table_id, public_hex(signing_key_for(path)))
    if created:
        click.echo(f"keys: new signing key {path}", err=True)
    if out is None:
        click.echo(doc, nl=False)
        return
    try:
        Path(out).write_text(doc, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write the public key file: {exc.strerror}", where=out) from None
    click.echo(f"keys: {table_id}'s public key written to {out}")


@click.group("receipt")
def receipt() -> None:
    """Receipts of remote bets: signed by the table, checked offline."""


@receipt.command("verify")
@click.argument("receipt_arg", metavar="FILE-or-JSON")
@click.option("--key", "key_file", required=True, metavar="PUBLIC-KEY-FILE",
              help="The table's public key file (tablesim keys export-public).")
def receipt_verify(receipt_arg: str, key_file: str) -> None:
    """Check a bet's receipt against the table's public key: exit 0 valid,
    1 invalid, 2 bad input."""
    from tablesim.studio import receipts, signing
    from tablesim.studio.trust import read_public_key_file

    table_id, hex_key = read_public_key_file(key_file)
    text = receipt_arg
    if not receipt_arg.lstrip().startswith("{"):
        try:
            text = Path(receipt_arg).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"cannot read the receipt: {getattr(exc, 'strerror', None) or exc}",
                             where=receipt_arg) from None
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise InputError(f"the receipt is not JSON ({str(exc)[:80]})") from None
    ok, line = receipts.check(receipts.parse(doc), table_id, signing.public_key(hex_key))
    click.echo(line if ok else f"receipt invalid: {line}", err=not ok)
    if not ok:
        sys.exit(1)
