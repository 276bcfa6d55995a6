"""``tablesim serve``: one table with its HTTP/WebSocket API, dealer console
and results board, on mock devices (``--mock``), on emulators behind the real
serial drivers (``--emulated``), or on the devices of a table configuration
(``--config FILE``)."""

from __future__ import annotations

import signal
from contextlib import ExitStack
from pathlib import Path

import click
from tablesim.cli.display import make_console

from tablesim.cli.gameopts import game_choice, game_options
from tablesim.cli.options import FiniteFloat, nats_option
from tablesim.cli.tableid import check_table_id, rename, table_id_option
from tablecore.errors import InputError


def token_file_for(table_id: str, journal: str | None) -> Path | None:
    """Where a table keeps its generated operator tokens: next to its journal
    (None with no journal file: the tokens are then made for this run only)."""
    if journal in ("none", "memory", ":memory:"):
        return None
    if journal is None:
        from tablesim.journal.location import default_journal_path

        return default_journal_path(table_id).with_name(f"{table_id}.tokens.json")
    return Path(journal).with_name(f"{Path(journal).stem.split('.')[0]}.tokens.json")


def _tokens_from_file(tokens_path: str):
    from tablesim.server.auth import read_token_file

    return read_token_file(tokens_path), False, tokens_path  # (refused if others may read it, as a key file)


def _hold_journal(journal: str | None, table_id: str):
    """The writer lock of the journal this table will write (None: no journal file)."""
    if journal in ("none", "memory", ":memory:"):
        return None
    from tablesim.journal.location import default_journal_path
    from tablesim.journal.lock import WriterLock

    path = Path(journal) if journal is not None else default_journal_path(table_id)
    if not path.parent.is_dir():
        return None  # (attaching the journal says why, in one line)
    return WriterLock(path)


def _generated_tokens(table_id: str, journal: str | None, prefix: str):
    from tablesim.server.auth import TokenStore, load_or_create

    path = token_file_for(table_id, journal)
    if path is None:
        return TokenStore.generate(prefix), True, None
    tokens, created = load_or_create(path, prefix=prefix)
    return tokens, created, str(path)


@click.command("serve")
@click.option("--game", type=game_choice(), default=None, help="The game the table runs (--mock, --emulated).")
@click.option("--mock", is_flag=True, help="Mock devices (no hardware needed); the dealer acts on the console.")
@click.option("--emulated", is_flag=True, help="Device emulators on ptys, opened with the real serial drivers.")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), default=None,
              help="A table configuration (config/tables/*.toml, or a name there): its devices, limits, "
                   "settings, table id and operators.")
@click.option("--time-scale", type=FiniteFloat(0, 1000), default=0.5, show_default=True,
              help="--emulated: the emulators' timing (1 = as a real device, 0 = as fast as possible).")
@click.option("--fault", "faults", multiple=True,
              help="--emulated: KIND:SPEC fault for an emulator, e.g. shoe:misread@card=5 (repeatable).")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8080, show_default=True)
@click.option(
    "--journal",
    default=None,
    help="Journal file (SQLite). Default: one per table in the user's data directory; 'none' for no journal.",
)
@click.option("--seed", type=click.IntRange(min=0), default=None,
              help="Seed for reproducible mock devices or emulators.")
@click.option("--bet-seconds", type=FiniteFloat(1, 86400), default=None,
              help="Close betting automatically this many seconds after it opens.")
@click.option("--pace", type=FiniteFloat(0, 60), default=0.5, show_default=True,
              help="Mock devices: seconds between two cards (the dealer's pace).")
@click.option("--profile", default=None, help="Rule profile name or TOML path (default: the game's default).")
@game_options()
@click.option("--tokens", "tokens_path", default=None, type=click.Path(dir_okay=False),
              help="Operator tokens (JSON: {operators: [{name, role, token}]}). "
                   "Default: the configuration's [operators], else generated next to the journal.")
@nats_option("--studio", help="Publish the journal to the studio's NATS JetStream and take bets over the bus "
                              "(tablesim.<table_id>.bets; see docs/studio.md); a cluster's nodes comma-separated "
                              "or the option repeated.")
@table_id_option()
@click.option("--operator", "operators", multiple=True, metavar="ROLE:NAME",
              help="A named operator (dealer:Ana, supervisor:Li; repeatable): a token of their own, kept in the "
                   "table's token file beside the journal. Not with --tokens or a configuration's [operators].")
@click.option("--autoplay", is_flag=True,
              help="--mock, --emulated: the table plays rounds by itself (opens betting, closes it on the bet "
                   "timer, deals, decides, settles); an incident stops it for the console.")
@click.option("--players", "autoplay_players", type=click.Choice(["simulated", "none"]), default=None,
              help="--autoplay: the table's simulated players bet each round (default) or nobody but "
                   "the console and remote players.")
@click.option("--show-tokens", is_flag=True,
              help="Print the operator tokens and the console's address with the dealer's token "
                   "(by default only where the token file is).")
def command(game, mock, emulated, config_path, time_scale, faults, host, port, journal, seed, bet_seconds, pace,
            profile, tokens_path, studio, show_tokens, table_id, operators, autoplay, autoplay_players,
            **options) -> None:
    """Run one table with its dealer console (/), results board (/board),
    HTTP API (/api/...) and WebSocket event stream (/ws).

    The devices are mocks (--mock), emulators behind the real serial drivers
    (--emulated), or those of a table configuration (--config FILE; with
    --emulated, each on its emulator, as the table <id>-EMU)."""
    from tablesim.cli.display import attach_journal
    from tablesim.server.process import bind

    _check_options(game, mock, emulated, config_path, faults, journal, studio, profile, seed, options)
    auto, bet_seconds = _autoplay(autoplay, autoplay_players, config_path, bet_seconds, seed)
    table_id = check_table_id(table_id, config_path)
    named = _named_operators(operators, tokens_path)
    console = make_console(highlight=False, soft_wrap=True, stderr=False)
    with ExitStack() as stack:
        table, rig, config, devices_line = _build_table(
            stack, game, mock, emulated, config_path, host, tokens_path,
            dict(seed=seed, time_scale=time_scale, faults=faults, profile=profile, **options))
        if config is None:
            rename(table, table_id)  # (a configuration names its table itself)
        # The journal's one-writer lock first (attaching the journal below
        # takes it again): a table refused as the second writer writes
        # nothing, not even a token file beside the journal.
        held = _hold_journal(journal, table.table_id)
        if held is not None:
            stack.callback(held.release)
        tokens, created, where = _tokens_for(table.table_id, journal, tokens_path, config, mock, emulated)
        if named:
            tokens = _add_named(console, tokens, named, config, where)
        sock = bind(host, port)  # before recovery: a busy port changes nothing
        stack.callback(sock.close)
        studio_url = studio or (config.studio_url if config else None)
        if studio_url is not None:  # the journal held against the stream before anything is recovered
            _hold_against_studio(studio_url, journal, table.table_id, config)
        report = attach_journal(console, table, journal, key_file=config.key_file if config is not None else None)
        if table.journal is not None:
            stack.callback(table.journal.close)
        if rig is not None:
            rig.after_recovery()
        _announce(console, table, devices_line, host, sock, tokens, created, where, show_tokens, studio_url, named)
        if auto is not None:
            console.print(f"autoplay: the table plays rounds by itself (bet timer {bet_seconds:g} s)")
        _serve_until_stopped(console, table, tokens=tokens, rig=rig, host=host, bet_seconds=bet_seconds,
                             pace=pace, recovery=report, sock=sock, studio=studio_url, autoplay=auto)
    console.print(f"{table.table_id}: stopped")


def _check_options(game, mock, emulated, config_path, faults, journal, studio, profile, seed, options) -> None:
    """The options that cannot go together, refused before anything is opened."""
    modes = [name for name, on in (("--mock", mock), ("--emulated", emulated), ("--config", config_path)) if on]
    if modes == ["--emulated", "--config"]:
        modes = ["--config --emulated"]  # the configuration's table on its devices' emulators
    if len(modes) != 1:
        raise InputError("choose a device mode: --mock, --emulated or --config FILE"
                         + (f" (not {' and '.join(modes)})" if modes else ""))
    if studio is not None:
        from tablesim.studio.natsio import check_url

        check_url(studio)
        if journal in ("none", "memory", ":memory:"):
            raise InputError("--studio publishes the table's journal: it needs a journal file")
    if faults and not emulated:
        raise InputError("--fault applies to --emulated")
    if config_path:
        given = [(f"--{k}", v) for k, v in options.items()]
        for name, value in (("--profile", profile), *given, *([] if emulated else [("--seed", seed)])):
            if value is not None:
                raise InputError(f"{name} does not apply to --config: the table configuration sets it")
    elif game is None:
        raise InputError("--game is required (or --config FILE, which names the game)")


def _autoplay(on: bool, players: str | None, config_path, bet_seconds, seed):
    """(the autoplay settings or None, the bet timer's seconds): --autoplay needs a bet timer."""
    if not on:
        if players is not None:
            raise InputError("--players applies to --autoplay")
        return None, bet_seconds
    if config_path:
        raise InputError("--autoplay is for --mock and --emulated tables: a configured table has a dealer")
    from tablesim.server.autoplay import BET_SECONDS, Autoplay

    return Autoplay(players=players != "none", seed=seed), bet_seconds or BET_SECONDS


def _build_table(stack: ExitStack, game, mock, emulated, config_path, host, tokens_path, opts: dict):
    """(table, mock rig or None, table configuration or None, a line saying what its devices are)."""
    options = {k: v for k, v in opts.items() if k not in ("seed", "time_scale", "faults", "profile")}
    seed = opts["seed"]
    if mock:
        from tablesim.games.rig import mock_rig

        rig = mock_rig(game, seed=seed, profile=opts["profile"], options=options)
        return rig.table, rig, None, f"mock devices, seed {rig.seed}"
    if emulated and config_path:  # its devices on their emulators: a table of its own (<id>-EMU)
        from tablesim.harness.devicetables import configured_emulated_table

        built = configured_emulated_table(stack, config_path, seed=seed, time_scale=opts["time_scale"],
                                          faults=opts["faults"])
        return built.table, None, None, built.description
    if emulated:
        from tablesim.harness.devicetables import emulated_table

        built = emulated_table(stack, game, seed=seed, time_scale=opts["time_scale"], faults=opts["faults"],
                               profile=opts["profile"], **options)
        return built.table, None, None, built.description + (f", seed {seed}" if seed is not None else "")
    from tablesim.harness.tableconfig import load_table_config
    from tablesim.harness.devicetables import configured_table
    from tablesim.web.requestlimits import is_loopback

    # Checked before any device is opened: a refused start opens nothing.
    config = load_table_config(config_path)
    if game and game != config.game:
        raise InputError(f"the table runs {config.game}, not {game}", where=f"{config.path}: table.game")
    if not is_loopback(host) and tokens_path is None and config.operators is None:
        raise InputError(
            f"listening on {host} needs the operators in the table configuration ([operators] in "
            f"{config.path}) or --tokens FILE: generated tokens are for the loopback only")
    built = configured_table(stack, config)
    return built.table, None, config, built.description


def _tokens_for(table_id: str, journal, tokens_path, config, mock: bool, emulated: bool):
    """(the operator tokens, whether they were made now, the file they are in or None)."""
    if tokens_path is not None:
        return _tokens_from_file(tokens_path)
    if config is not None and config.operators is not None:
        from tablesim.server.auth import TokenStore

        return TokenStore.from_operators(config.operators)
    prefix = "mock" if mock else ("emulated" if emulated else "")
    return _generated_tokens(table_id, journal, prefix)


def _named_operators(operators, tokens_path) -> list:
    """The operators named with --operator ROLE:NAME (refused beside --tokens)."""
    from tablesim.server.auth import parse_operator

    named = [parse_operator(spec) for spec in operators]
    if named and tokens_path is not None:
        raise InputError("--operator does not apply to --tokens: the token file names its operators")
    return named


def _add_named(console, tokens, named: list, config, where):
    """The tokens with the named operators added (kept in the token file beside the journal)."""
    if config is not None and config.operators is not None:
        raise InputError("--operator does not apply: the configuration names its operators ([operators])",
                         where=config.path)
    from tablesim.server.auth import with_operators

    tokens, added = with_operators(tokens, named, Path(where) if where else None)
    if added:
        console.print(f"operators added: {', '.join(added)}")
    return tokens


def _hold_against_studio(studio_url: str, journal, table_id: str, config) -> None:
    from tablesim.journal.location import default_journal_path
    from tablesim.studio.attach import hold_at_start, use_signing_key

    use_signing_key(table_id, config.studio_signing_key if config is not None else None)
    hold_at_start(studio_url, journal or str(default_journal_path(table_id)), table_id,
                  config.key_file if config is not None else None)


def _announce(console, table, devices_line: str, host: str, sock, tokens, created: bool, where, show_tokens: bool,
              studio_url, named=()) -> None:
    """What the start prints: the table, where its tokens are, the console's and board's addresses."""
    from tablesim.web.requestlimits import is_loopback

    shown_host = f"[{host}]" if ":" in host else host
    url = f"http://{shown_host}:{sock.getsockname()[1]}"
    console.print(f"{table.table_id}: {table.game}, {devices_line}")
    if not is_loopback(host):
        console.print(f"[bold yellow]listening on {host}: the read-only API and the board are open "
                      "to that network[/]")
    console.print(f"operator tokens: {where + (' (new)' if created else '') if where else 'this run only'}")
    # Tokens kept in a file are read there (or shown on request), not left in
    # every start's output or journald; tokens of this run only have no file.
    shown = show_tokens or where is None
    if shown:
        for role in ("dealer", "supervisor"):
            found = tokens.first(role)
            if found is not None:
                console.print(f"  {role:<10} {found[0]}")
        for token, op in tokens.entries:
            if op in named:
                console.print(f"  {op.actor:<20} {token}", markup=False)
    else:
        console.print("  (sign in with a token from that file; --show-tokens prints them)")
    dealer = tokens.first("dealer")
    console.print(f"console: {url}/" + (f"#token={dealer[0]}" if dealer and shown else ""))
    console.print(f"board:   {url}/board")
    if studio_url is not None:  # as run says it: where the journal goes
        from tablesim.studio.natsio import shown as shown_url

        console.print(f"studio:  publishing to {shown_url(studio_url)}")


def _serve_until_stopped(console, table, **serve_options) -> None:
    """Serve until Ctrl-C or SIGTERM. uvicorn shuts down gracefully on either,
    then raises the signal again: a normal stop here. Both are held back from
    before "stop with" says the table can be stopped until uvicorn's
    handlers are in place (server/process.py): raised at whatever line it
    came, a stop right after that line was a traceback (in the middle of an
    import) and exit 1, or was lost in an event loop callback."""
    from tablesim.server.process import STOP_SIGNALS, serve_table

    previous = signal.getsignal(signal.SIGTERM)
    signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        signal.signal(signal.SIGTERM, _stop)
        console.print("stop with Ctrl-C")
        serve_table(table, **serve_options)
    except (KeyboardInterrupt, _Stopped):
        pass
    finally:
        try:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)  # a stop held back is delivered here
        except (KeyboardInterrupt, _Stopped):
            pass
        signal.signal(signal.SIGTERM, previous)


class _Stopped(Exception):
    pass


def _stop(signum, frame) -> None:
    raise _Stopped()
