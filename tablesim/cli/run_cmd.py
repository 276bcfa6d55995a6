"""``tablesim run``: run a table."""

from __future__ import annotations

import secrets
import sys

import click
from tablesim.cli.display import make_console

from tablesim.cli.devices_run import run_configured, run_emulated, run_mock
from tablesim.cli.gameopts import game_choice, game_options
from tablesim.cli.options import RUN_ROUNDS_MAX, FiniteFloat, nats_option
from tablesim.cli.tableid import check_table_id, table_id_option
from tablecore.errors import InputError
from tablesim.games.registry import check_options
from tablesim.harness.runopts import RunOptions


@click.command("run")
@click.option("--game", type=game_choice(), default=None, help="The game the table runs.")
@click.option("--mock", is_flag=True, help="Mock devices and simulated players (no hardware needed).")
@click.option("--emulated", is_flag=True, help="Device emulators on ptys, opened with the real serial drivers.")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), default=None,
              help="A table configuration (config/tables/*.toml, or a name there): its devices and limits.")
@click.option("--time-scale", type=FiniteFloat(0, 1000), default=0.02, show_default=True,
              help="--emulated: the emulators' timing (1 = as a real device, 0 = as fast as possible).")
@click.option("--fault", "faults", multiple=True, help="--emulated: KIND:SPEC fault for an emulator, e.g. shoe:misread@card=5.")
@click.option("--rounds", type=click.IntRange(1, RUN_ROUNDS_MAX), default=10, show_default=True)
@click.option("--seed", type=click.IntRange(min=0), default=None, help="Seed for a reproducible mock session.")
@click.option("--profile", default=None, help="Rule profile name or TOML path (default: the game's default).")
@game_options()
@click.option("--quiet", is_flag=True, help="Only the closing summary.")
@click.option("--delay", type=FiniteFloat(0, 3600), default=0.0, help="Seconds to pause between rounds.")
@click.option(
    "--journal",
    default=None,
    help="Journal file (SQLite). Default: one per table in the user's data directory; 'none' for no journal.",
)
@nats_option("--studio", help="Publish every journal record to the studio's NATS JetStream (see docs/studio.md); "
                              "a cluster's nodes comma-separated or the option repeated.")
@table_id_option()
@click.option("--json", "as_json", is_flag=True,
              help="Print the session as one JSON object at the end (its rounds and results, the summary); "
                   "everything else goes to standard error.")
@click.option("--metrics-port", type=click.IntRange(0, 65535), default=None, metavar="PORT",
              help="Serve the table's Prometheus metrics on http://127.0.0.1:PORT/metrics while it runs.")
@click.option("--record", "record", type=click.Path(dir_okay=False), default=None,
              help="--emulated/--config: write every device frame and each round's result to FILE "
                   "(JSON Lines) for `tablesim replay`.")
def command(game, mock, emulated, config_path, time_scale, faults, rounds, seed, profile, quiet,
            delay, journal, studio, record, table_id, as_json, metrics_port, **options) -> None:
    """Run a table with simulated players and show each round as it happens.

    The devices are mocks (--mock), emulators behind the real serial drivers
    (--emulated), or those of a table configuration (--config FILE; with
    --emulated each of its devices on its emulator)."""
    modes = [name for name, on in (("--mock", mock), ("--emulated", emulated and not config_path),
                                   ("--config", config_path)) if on]
    if len(modes) != 1:
        raise InputError("choose one device mode: --mock, --emulated or --config FILE"
                         + (f" (not {' and '.join(modes)})" if modes else ""))
    if faults and not emulated:
        raise InputError("--fault applies to --emulated")
    if game is None and not config_path:
        raise InputError("--game is required (or --config FILE, which names the game)")
    given = check_options(game, options)
    table_id = check_table_id(table_id, config_path)
    if record:
        if mock:
            raise InputError("--record applies to --emulated and --config (mock devices have no frames)")
        if seed is None:  # a replay needs the players' seed: pick one and keep it in the recording
            seed = secrets.randbelow(2**32)
        if journal is None:  # a recording starts from a fresh table (no round recovered from a journal)
            journal = "none"
    if studio:
        from tablesim.studio.natsio import check_url

        check_url(studio)
        if journal == "none" or journal in ("memory", ":memory:"):
            raise InputError("--studio publishes the table's journal: it needs a journal file")
    run_options = RunOptions(game, rounds, seed, profile, given, quiet, delay, journal, studio, table_id=table_id,
                             json=as_json, metrics_port=metrics_port)
    # (--json: stdout holds the one object; the rest, the journal's banner too, goes to stderr)
    console = make_console(highlight=False, soft_wrap=True, stderr=as_json)
    if config_path:  # with --emulated: every device of the configuration on its emulator
        sys.exit(run_configured(config_path, run_options, console, record=record,
                                emulated={"time_scale": time_scale, "faults": faults} if emulated else None))
    if emulated:
        sys.exit(run_emulated(run_options, console, time_scale=time_scale, faults=faults, record=record))
    sys.exit(run_mock(run_options, console))
