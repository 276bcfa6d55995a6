"""``tablesim studio serve|report`` and the anchor part of ``tablesim audit verify``."""

from __future__ import annotations

import click

from tablecore.errors import InputError


def _unreachable(url: str, exc: Exception) -> InputError:
    from tablesim.studio.natsio import shown

    return InputError(f"cannot reach the studio's NATS at {shown(url)}: {type(exc).__name__} {exc}".rstrip())


def report_anchor(path: str, url: str) -> bool | None:
    """Print the anchor check of the journal at ``path``; True if it holds,
    None if there is nothing to hold it against (its own verdict stands)."""
    from tablesim.studio.anchor import verify_anchor
    from tablesim.studio.natsio import shown

    try:
        reports = verify_anchor(path, url)
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


@studio.command("serve")
@click.option("--nats", "url", required=True, metavar="nats://HOST:PORT", help="The studio's NATS server.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8090, show_default=True)
def studio_serve(url: str, host: str, port: int) -> None:
    """Follow every table's records and serve the floor page (/), its API
    (/api/floor) and a WebSocket (/ws)."""
    from tablesim.server.app import bind
    from tablesim.studio.natsio import check_url, shown
    from tablesim.studio.service import serve

    check_url(url, where="--nats")
    sock = bind(host, port)  # a busy port is one line, before anything starts
    listen = f"[{host}]" if ":" in host else host
    click.echo(f"studio: following {shown(url)}; floor page http://{listen}:{sock.getsockname()[1]}/ (stop with Ctrl-C)")
    try:
        serve(url, sock)
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()


@studio.command("report")
@click.option("--nats", "url", required=True, metavar="nats://HOST:PORT", help="The studio's NATS server.")
@click.option("--json", "as_json", is_flag=True, help="The figures as one JSON object (as /api/floor).")
def studio_report(url: str, as_json: bool) -> None:
    """The floor's figures from every record in the stream, once."""
    import asyncio
    import json

    from tablesim.studio.consumer import read_floor
    from tablesim.studio.natsio import check_url

    check_url(url, where="--nats")
    try:
        floor = asyncio.run(read_floor(url))
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
        console.print(f"[red]alert: {alert['table_id']} record {alert['seq']}: {alert['text']}[/]")
