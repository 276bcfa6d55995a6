"""``tablesim studio serve|report`` and the anchor part of ``tablesim audit verify``."""

from __future__ import annotations

import click

from tablecore.errors import InputError


def _unreachable(url: str, exc: Exception) -> InputError:
    from tablesim.studio.natsio import shown

    return InputError(f"cannot reach the studio's NATS at {shown(url)}: {type(exc).__name__} {exc}".rstrip())


def anchor_keys() -> dict:
    """The public keys the anchor checks signatures with: the registered ones,
    and those of the signing keys on this machine (the table PC's own)."""
    from tablesim.journal.location import data_dir
    from tablesim.studio.signing import load_signing_key
    from tablesim.studio.trust import load_trust

    keys = {}
    for path in sorted(data_dir().glob("*.sign.key")):
        try:
            keys[path.name[: -len(".sign.key")]] = load_signing_key(path).public_key()
        except InputError:
            continue
    keys.update(load_trust(None).keys)
    return keys


def report_anchor(path: str, url: str, table: str | None = None) -> bool | None:
    """Print the anchor check of the journal at ``path`` (as table ``table``,
    else the one its file name names); True if it holds, None if there is
    nothing to hold it against (its own verdict stands)."""
    from tablesim.studio.anchor import verify_anchor
    from tablesim.studio.natsio import shown

    try:
        reports = verify_anchor(path, url, [table] if table else None, anchor_keys())
    except (OSError, TimeoutError) as exc:
        raise _unreachable(url, exc) from None
    except Exception as exc:  # nats-py's own errors (no servers, timeouts)
        if type(exc).__module__.startswith("nats"):
            raise _unreachable(url, exc) from None
        raise
    if not reports:
        click.echo(f"anchor {shown(url)}: the journal has no records and its file name names no table: nothing to hold "
                   "it against", err=True)
        return None
    ok = True
    for report in reports:
        lines = report.lines()
        verdict = "anchored" if report.ok else "does NOT match the stream"
        click.echo(f"anchor {shown(url)}: {lines[0]}: {verdict}", err=not report.ok)
        for line in lines[1:]:
            click.echo(line, err=True)
        ok = ok and report.ok
    return ok


@click.group("studio")
def studio() -> None:
    """The studio: every table's records from NATS JetStream, the floor's figures (docs/studio.md)."""


KEYS_HELP = "The tables' registered public keys (default: <data dir>/studio-keys.json; tablesim studio register-key)."


@studio.command("register-key")
@click.argument("public_key_file")
@click.option("--keys", "keys_path", default=None, metavar="FILE", help=KEYS_HELP)
@click.option("--replace", is_flag=True, help="Replace the key registered for the table (a new table PC).")
def studio_register_key(public_key_file: str, keys_path: str | None, replace: bool) -> None:
    """Register a table's public key (from `tablesim keys export-public`): the
    studio then counts the records it signs, and only those."""
    from tablesim.studio.trust import read_public_key_file, register

    table_id, hex_key = read_public_key_file(public_key_file)
    click.echo(register(keys_path, table_id, hex_key, replace=replace))


@studio.command("serve")
@click.option("--nats", "url", required=True, metavar="nats://HOST:PORT", help="The studio's NATS server.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8090, show_default=True)
@click.option("--keys", "keys_path", default=None, metavar="FILE", help=KEYS_HELP)
def studio_serve(url: str, host: str, port: int, keys_path: str | None) -> None:
    """Follow every table's records and serve the floor page (/), its API
    (/api/floor) and a WebSocket (/ws)."""
    from tablesim.server.process import bind
    from tablesim.studio.natsio import check_url, shown
    from tablesim.studio.service import serve

    from tablesim.studio.trust import load_trust

    check_url(url, where="--nats")
    load_trust(keys_path)  # a bad keys file is one line, before anything starts
    sock = bind(host, port)  # a busy port is one line, before anything starts
    listen = f"[{host}]" if ":" in host else host
    click.echo(f"studio: following {shown(url)}; floor page http://{listen}:{sock.getsockname()[1]}/ (stop with Ctrl-C)")
    try:
        serve(url, sock, keys_path)
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()


@studio.command("report")
@click.option("--nats", "url", required=True, metavar="nats://HOST:PORT", help="The studio's NATS server.")
@click.option("--json", "as_json", is_flag=True, help="The figures as one JSON object (as /api/floor).")
@click.option("--keys", "keys_path", default=None, metavar="FILE", help=KEYS_HELP)
def studio_report(url: str, as_json: bool, keys_path: str | None) -> None:
    """The floor's figures from every record in the stream, once."""
    import asyncio
    import json

    from tablesim.studio.consumer import read_floor
    from tablesim.studio.natsio import check_url
    from tablesim.studio.trust import load_trust

    check_url(url, where="--nats")
    keys = load_trust(keys_path)
    try:
        floor = asyncio.run(read_floor(url, keys))
    except (OSError, TimeoutError) as exc:
        raise _unreachable(url, exc) from None
    except Exception as exc:
        if type(exc).__module__.startswith("nats"):
            raise _unreachable(url, exc) from None
        raise
    summary = floor.summary()
    if as_json:
        click.echo(json.dumps(summary, indent=1))
        return
    _print_report(summary)


def _print_report(s: dict) -> None:
    from rich.markup import escape

    from tablesim.cli.display import make_console
    from rich.table import Table

    console = make_console(highlight=False, soft_wrap=True)
    cols = ("rounds", "void", "bets", "wagered", "paid", "house_result", "hold_pct")
    grid = Table(title=f"the floor: {s['floor']['tables']} tables, {s['records']} records")
    for name in ("", "tables", *cols):
        grid.add_column(name.replace("_", " "), justify="left" if not name else "right")

    def row(label: str, f: dict, tables: object = "") -> None:
        grid.add_row(label, str(tables), *("-" if f[c] is None else str(f[c]) + (" %" if c == "hold_pct" else "")
                                           for c in cols))

    row("floor", s["floor"], s["floor"]["tables"])
    for game, g in s["games"].items():
        row(game, g, g["tables"])
        for bet, f in g["by_bet"].items():
            row(f"  {bet}", f)
    for t in s["tables"]:
        row(f"{t['table_id']} ({t['game'] or '?'})", t["figures"])
    console.print(grid)
    for alert in s["alerts"]:
        console.print(f"[red]alert: {escape(alert['table_id'])} record {alert['seq']}: {escape(alert['text'])}[/]")
    for table_id, count in s.get("rejected", {}).items():
        console.print(f"[red]left out: {count} message(s) on {escape(table_id)}'s subjects not signed by its "
                      "registered key[/]")
