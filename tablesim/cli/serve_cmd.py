"""``tablesim serve``: one table with its HTTP/WebSocket API, dealer console
and results board."""

from __future__ import annotations

import signal
from pathlib import Path

import click
from rich.console import Console

from tablesim.errors import InputError
from tablesim.profiles import GAMES


def token_file_for(table_id: str, journal: str | None) -> Path | None:
    """Where a mock table keeps its operator tokens: next to its journal
    (None with no journal file: the tokens are then made for this run only)."""
    if journal in ("none", "memory", ":memory:"):
        return None
    if journal is None:
        from tablesim.journal.location import default_journal_path

        return default_journal_path(table_id).with_name(f"{table_id}.tokens.json")
    return Path(journal).with_name(f"{Path(journal).stem.split('.')[0]}.tokens.json")


@click.command("serve")
@click.option("--game", type=click.Choice(GAMES), required=True, help="The game the table runs.")
@click.option("--mock", is_flag=True, help="Mock devices (no hardware needed); the dealer acts on the console.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8080, show_default=True)
@click.option(
    "--journal",
    default=None,
    help="Journal file (SQLite). Default: one per table in the user's data directory; 'none' for no journal.",
)
@click.option("--seed", type=click.IntRange(min=0), default=None, help="Seed for reproducible mock devices.")
@click.option("--bet-seconds", type=click.FloatRange(min=1), default=None,
              help="Close betting automatically this many seconds after it opens.")
@click.option("--pace", type=click.FloatRange(min=0), default=0.5, show_default=True,
              help="Mock devices: seconds between two cards (the dealer's pace).")
@click.option("--profile", default=None, help="Rule profile name or TOML path (default: the game's default).")
@click.option("--dealing", type=click.Choice(["shoe", "shuffler"]), default=None, help="fortune3: how cards are dealt.")
@click.option("--decks", type=click.IntRange(1, 8), default=None, help="football: decks in the shoe.")
@click.option("--tokens", "tokens_path", default=None, type=click.Path(dir_okay=False),
              help="Operator tokens (JSON: {operators: [{name, role, token}]}). Default with --mock: generated.")
def command(game, mock, host, port, journal, seed, bet_seconds, pace, profile, dealing, decks, tokens_path) -> None:
    """Run one table of GAME with its dealer console (/), results board (/board),
    HTTP API (/api/...) and WebSocket event stream (/ws)."""
    from tablesim.journal.attach import attach_and_recover
    from tablesim.server.app import bind, is_loopback, serve_table
    from tablesim.server.auth import TokenStore, load_or_create
    from tablesim.server.mock import build_mock

    if not mock:
        raise InputError("choose a device mode: --mock (table configurations and emulated devices come later)")
    console = Console(highlight=False, soft_wrap=True, stderr=False)
    rig = build_mock(game, seed=seed, profile=profile, dealing=dealing, decks=decks)
    table = rig.table
    if tokens_path is not None:
        import json

        try:
            data = json.loads(Path(tokens_path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise InputError(f"cannot read the token file: {exc}", where=tokens_path) from None
        tokens, created, where = TokenStore.from_config(data, tokens_path), False, tokens_path
    else:
        path = token_file_for(table.table_id, journal)
        if path is None:
            tokens, created, where = TokenStore.generate(), True, None
        else:
            tokens, created = load_or_create(path)
            where = str(path)
    sock = bind(host, port)  # before recovery: a busy port changes nothing
    report = attach_and_recover(table, journal, console)
    rig.after_recovery()
    shown_host = f"[{host}]" if ":" in host else host
    url = f"http://{shown_host}:{sock.getsockname()[1]}"
    console.print(f"{table.table_id}: {game}, mock devices, seed {rig.seed}")
    if not is_loopback(host):
        console.print(f"[bold yellow]listening on {host}: the read-only API and the board are open to that network[/]")
    console.print(f"operator tokens: {where + (' (new)' if created else '') if where else 'this run only'}")
    for role in ("dealer", "supervisor"):
        found = tokens.first(role)
        if found is not None:
            console.print(f"  {role:<10} {found[0]}")
    dealer = tokens.first("dealer")
    console.print(f"console: {url}/" + (f"#token={dealer[0]}" if dealer else ""))
    console.print(f"board:   {url}/board")
    console.print("stop with Ctrl-C")
    # uvicorn shuts down gracefully on Ctrl-C or SIGTERM, then raises the
    # signal again: either is a normal stop here.
    previous = signal.signal(signal.SIGTERM, _stop)
    try:
        serve_table(table, tokens=tokens, rig=rig, host=host, bet_seconds=bet_seconds, pace=pace, recovery=report,
                    sock=sock)
    except (KeyboardInterrupt, _Stopped):
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        if table.journal is not None:
            table.journal.close()
    console.print(f"{table.table_id}: stopped")


class _Stopped(Exception):
    pass


def _stop(signum, frame) -> None:
    raise _Stopped()
