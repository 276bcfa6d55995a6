"""``tablesim studio serve|report`` and the anchor part of ``tablesim audit verify``."""

from __future__ import annotations

import click
from pathlib import Path

from tablecore.errors import InputError
from tablesim.cli.options import FiniteFloat, nats_option


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


def _bucket_public_keys(url: str) -> dict:
    import asyncio

    from tablesim.studio import keyring, signing
    from tablesim.studio.natsio import retrying

    return {tid: signing.public_key(h) for tid, h in asyncio.run(retrying(lambda: keyring.keys_at(url))).items()}


def report_anchor(path: str, url: str, table: str | None = None, complete: bool = False) -> bool | None:
    """Print the anchor check of the journal at ``path`` (as table ``table``,
    else the one its file name names); True if it holds, None if there is
    nothing to hold it against (its own verdict stands). With ``complete``
    it holds only if the stream has every committed record (none unanchored)."""
    from tablesim.studio.anchor import verify_anchor
    from tablesim.studio.natsio import Refused, shown

    try:
        keys = anchor_keys()
        keys.update({tid: k for tid, k in _bucket_public_keys(url).items() if tid not in keys})
        reports = verify_anchor(path, url, [table] if table else None, keys)
    except Refused as exc:
        raise InputError(str(exc)) from None
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
        held = report.ok and not (complete and report.unanchored)
        click.echo(f"anchor {shown(url)}: {lines[0]}: {_anchor_verdict(report, complete)}", err=not held)
        for line in lines[1:]:
            click.echo(line, err=True)
        ok = ok and held
    return ok


def _anchor_verdict(report, complete: bool) -> str:
    if not report.ok:
        return "does NOT match the stream"
    if not report.unanchored:
        return "anchored, every record in the stream"
    gone = (f"{report.unanchored} record{'s' if report.unanchored != 1 else ''} of the journal not in the stream "
            "(unanchored: not published yet")
    if complete:
        return f"NOT complete: {gone}, and --complete asks for every committed record)"
    return f"anchored as far as the stream goes; {gone}; --complete fails on it)"


@click.group("studio")
def studio() -> None:
    """The studio: every table's records from NATS JetStream, the floor's figures (docs/studio.md)."""


NATS_HELP = "The studio's NATS server, or several (a cluster's nodes), comma-separated or the option repeated."


def shift_options():
    def wrap(fn):
        fn = click.option("--utc-offset", "utc_offset", default=None, metavar="+HH:MM",
                          help="The floor's time zone for shifts and days (default: this machine's).")(fn)
        return click.option("--shifts", "shifts", default=None, metavar="HH:MM,...",
                            help="Shift start times (default 06:00,14:00,22:00: three of eight hours).")(fn)
    return wrap


KEYS_HELP = "The tables' registered public keys (default: <data dir>/studio-keys.json; tablesim studio register-key)."


def _run_on_bus(url: str, make):
    """Run ``make()`` (a coroutine factory) against the studio's NATS, a
    leader election ridden out; a broker's refusal or absence is one line."""
    import asyncio

    from nats.js.errors import APIError

    from tablesim.studio.natsio import Refused, retrying

    try:
        return asyncio.run(retrying(make))
    except Refused as exc:
        raise InputError(str(exc)) from None
    except APIError as exc:
        raise InputError(f"the studio's NATS refused it: {exc.description or exc}") from None
    except (OSError, TimeoutError) as exc:
        raise _unreachable(url, exc) from None
    except Exception as exc:
        if type(exc).__module__.startswith("nats"):
            raise _unreachable(url, exc) from None
        raise


@studio.command("init")
@nats_option("--nats", "url", required=True, help="The studio's NATS server, or several (a cluster's nodes), "
             "comma-separated or the option repeated; an operator's user (admin in config/nats/users.conf).")
@click.option("--replicas", type=click.IntRange(1, 5), default=1, show_default=True,
              help="Copies of the stream and the keys bucket (3 on a three-node cluster).")
@click.option("--max-msgs", type=click.IntRange(min=-1), default=None, help="The stream's most records (-1: none).")
@click.option("--max-bytes", type=click.IntRange(min=-1), default=None, help="The stream's most bytes (-1: none).")
def studio_init(url: str, replicas: int, max_msgs: int | None, max_bytes: int | None) -> None:
    """Create or update the records stream and the bucket of the tables'
    public keys. Idempotent; a change that would lose records (a limit below
    what is stored, another subject set) is refused, nothing changed."""
    from tablesim.studio.natsio import check_url, shown
    from tablesim.studio.setup import Wanted, init


    url = check_url(url, where="--nats")
    for limit, name in ((max_msgs, "--max-msgs"), (max_bytes, "--max-bytes")):
        if limit == 0:
            raise InputError("0 is no limit NATS keeps: give -1 (none) or a number of at least 1", where=name)
    click.echo(f"studio init on {shown(url)}:")
    for line in _run_on_bus(url, lambda: init(url, Wanted(replicas, max_msgs, max_bytes))):
        click.echo(f"  {line}")


@studio.command("credentials")
@click.argument("out", metavar="DIR")
@click.option("--table", "tables", multiple=True, required=True, metavar="ID",
              help="A table of the studio (repeat for each): its own user on the bus.")
@click.option("--servers", required=True, metavar="nats://HOST:PORT[,...]",
              help="The studio's broker or cluster nodes, as every role connects to them (no user).")
def studio_credentials(out: str, tables: tuple[str, ...], servers: str) -> None:
    """Close the bus by role: the broker's users.conf and one URL file per role (admin, platform, studio, each
    table), mode 0600; give a role's file as --nats @FILE (or [studio] urls = "@FILE")."""
    from tablesim.studio.credentials import write

    files = write(out, list(tables), servers)
    click.echo(f"wrote {Path(out) / 'users.conf'} (include it in every node's configuration) and "
               f"{len(files)} role files: " + ", ".join(sorted(p.name for p in files.values())))


@studio.command("register-key")
@click.argument("public_key_file")
@click.option("--keys", "keys_path", default=None, metavar="FILE", help=KEYS_HELP)
@nats_option("--nats", "url",
             help="Register it in the studio's key bucket (tablesim studio init) instead of the keys file "
                   "(as well, with --keys); the operator's user.")
@click.option("--replace", is_flag=True, help="Replace the key registered for the table (a new table PC).")
def studio_register_key(public_key_file: str, keys_path: str | None, url: str | None, replace: bool) -> None:
    """Register a table's public key (from `tablesim keys export-public`): the
    studio then counts the records it signs, and only those."""
    from tablesim.studio.natsio import check_url
    from tablesim.studio.trust import read_public_key_file, register

    table_id, hex_key = read_public_key_file(public_key_file)
    if url is None or keys_path is not None:
        click.echo(register(keys_path, table_id, hex_key, replace=replace))
    if url is not None:
        from tablesim.studio import keyring

        url = check_url(url, where="--nats")
        click.echo(_run_on_bus(url, lambda: keyring.register(url, table_id, hex_key, replace)))


@studio.command("serve")
@nats_option("--nats", "url", required=True, help=NATS_HELP)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8090, show_default=True)
@click.option("--keys", "keys_path", default=None, metavar="FILE", help=KEYS_HELP)
@click.option("--silent-after", type=FiniteFloat(1, 86400), default=30.0, show_default=True, metavar="SECONDS",
              help="Flag a table (and alert) when no status message came from it for this long.")
@shift_options()
def studio_serve(url: str, host: str, port: int, keys_path: str | None, silent_after: float, shifts: str | None,
                 utc_offset: str | None) -> None:
    """Follow every table's records and serve the floor page (/), its API
    (/api/floor) and a WebSocket (/ws)."""
    from tablesim.server.process import bind
    from tablesim.studio.natsio import check_url, shown
    from tablesim.studio.service import serve

    from tablesim.studio.trust import load_trust

    from tablesim.journal.shifts import Shifts

    check_url(url, where="--nats")
    load_trust(keys_path)  # a bad keys file is one line, before anything starts
    bounds = Shifts.parse(shifts, utc_offset)
    sock = bind(host, port)  # a busy port is one line, before anything starts
    listen = f"[{host}]" if ":" in host else host
    click.echo(f"studio: following {shown(url)}; floor page http://{listen}:{sock.getsockname()[1]}/ (stop with Ctrl-C)")
    try:
        serve(url, sock, keys_path, silent_after, bounds)
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()


@studio.command("report")
@nats_option("--nats", "url", required=True, help=NATS_HELP)
@click.option("--json", "as_json", is_flag=True, help="The figures as one JSON object (as /api/floor).")
@click.option("--keys", "keys_path", default=None, metavar="FILE", help=KEYS_HELP)
@click.option("--by", "by", type=click.Choice(["shift", "day", "dealer"]), default=None,
              help="The figures per table for each shift, gaming day or dealer (with each one's total).")
@shift_options()
def studio_report(url: str, as_json: bool, keys_path: str | None, by: str | None, shifts: str | None,
                  utc_offset: str | None) -> None:
    """The floor's figures from every record in the stream, once."""
    import json

    from tablesim.studio.consumer import read_floor
    from tablesim.studio.natsio import check_url
    from tablesim.studio.trust import load_trust

    from tablesim.journal.shifts import Shifts

    check_url(url, where="--nats")
    keys = load_trust(keys_path)
    bounds = Shifts.parse(shifts, utc_offset)
    floor = _run_on_bus(url, lambda: _read_floor(url, keys, read_floor, bounds))
    if by is not None:
        rows = floor.grouped(by)
        if as_json:
            click.echo(json.dumps({"by": by, "shifts": shifts_json(bounds), "rows": rows}, indent=1))
        else:
            _print_grouped(by, rows)
        return
    summary = floor.summary()
    if as_json:
        click.echo(json.dumps(summary, indent=1))
        return
    _print_report(summary)


async def _read_floor(url: str, file_keys, read_floor, bounds=None):
    """The floor under the keys file's keys and the bucket's (tablesim studio register-key --nats)."""
    from tablesim.studio import keyring

    keys, conflicts = keyring.merged(file_keys, await keyring.keys_at(url))
    for text in conflicts:
        click.echo(f"tablesim: warning: {text}", err=True)
    return await read_floor(url, keys, bounds)


def shifts_json(bounds) -> dict:
    minutes = int(bounds.offset.total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    return {"starts": [f"{m // 60:02d}:{m % 60:02d}" for m in bounds.starts],
            "utc_offset": f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"}


def _print_grouped(by: str, rows: list[dict]) -> None:
    from rich.table import Table

    from tablesim.cli.display import make_console

    cols = ("rounds", "void", "bets", "wagered", "paid", "house_result", "hold_pct", "incidents")
    grid = Table(title=f"the floor by {by}")
    for name in (by, "table", *cols):
        grid.add_column(name.replace("_", " "), justify="left" if name in (by, "table") else "right")
    for r in rows:
        grid.add_row(str(r[by]), r["table_id"] or "all tables",
                     *("-" if r[c] is None else str(r[c]) + (" %" if c == "hold_pct" else "") for c in cols))
    make_console(highlight=False, soft_wrap=True).print(grid)


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
