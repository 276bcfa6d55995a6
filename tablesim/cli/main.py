"""``tablesim``: one entry point, a subcommand per job.

Every error the project raises on purpose becomes one line on standard error
and exit status 2; nothing the user typed produces a traceback.
"""

from __future__ import annotations

import sys

import click

from tablesim import __version__
from tablecore.errors import TablesimError
from tablesim.log import configure


class _Group(click.Group):
    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        """Click's own errors (bad options) as one line too, exit status 2."""
        try:
            rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.exceptions.UsageError as exc:
            if isinstance(exc, getattr(click.exceptions, "NoArgsIsHelpError", ())) and exc.ctx is not None \
                    and exc.ctx.parent is None:  # a bare ``tablesim``: the commands, as --help lists them
                click.echo(exc.ctx.get_help())
                sys.exit(0)
            where = exc.ctx.command_path if exc.ctx is not None else "tablesim"
            # one line, whatever click wrapped (a missing choice lists the choices one a line)
            message = " ".join(exc.format_message().split())
            if isinstance(exc, getattr(click.exceptions, "NoArgsIsHelpError", ())):
                message = "missing command"  # (click's message is the whole help text)
            click.echo(f"tablesim: error: {message} (see {where} --help)", err=True)
            sys.exit(exc.exit_code)
        except click.ClickException as exc:
            click.echo(f"tablesim: error: {exc.format_message()}", err=True)
            sys.exit(exc.exit_code)
        except click.exceptions.Abort:
            click.echo("tablesim: aborted", err=True)
            sys.exit(1)
        if not standalone_mode:
            return rv
        sys.exit(rv if isinstance(rv, int) else 0)

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except TablesimError as exc:
            click.echo(f"tablesim: error: {exc}", err=True)
            sys.exit(2)
        except BrokenPipeError:
            sys.exit(0)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="tablesim")
@click.option(
    "--log-level",
    type=click.Choice(["debug", "info", "warning", "error"]),
    default="warning",
    show_default=True,
    help="Log level (logs go to standard error; JSON when not on a terminal).",
)
@click.option("--log-json/--log-console", default=None, help="Force the log format.")
def cli(log_level: str, log_json: bool | None) -> None:
    configure(log_level, json=log_json)


def _help() -> str:
    from tablesim.games.registry import names, spec

    return f"Live-dealer table system: {', '.join(spec(g).title for g in names())}."


cli.help = _help()


def _register() -> None:
    from tablesim.cli import (
        analyze_cmd,
        bench_cmd,
        diagram_cmd,
        emulate_cmd,
        journal_cmds,
        replay_cmd,
        run_cmd,
        script_cmd,
        simulate_cmd,
    )

    for module in (run_cmd, script_cmd, analyze_cmd, diagram_cmd, simulate_cmd, bench_cmd):
        cli.add_command(module.command)
    cli.add_command(journal_cmds.audit)
    cli.add_command(journal_cmds.history)
    cli.add_command(journal_cmds.journal_group)
    cli.add_command(emulate_cmd.command)
    cli.add_command(replay_cmd.command)
    from tablesim.cli import serve_cmd

    cli.add_command(serve_cmd.command)
    from tablesim.cli import devices_cmd

    cli.add_command(devices_cmd.command)
    from tablesim.cli import studio_cmd

    cli.add_command(studio_cmd.studio)
    from tablesim.cli import demo_cmd

    studio_cmd.studio.add_command(demo_cmd.command)
    from tablesim.cli import wallet_cmd

    cli.add_command(wallet_cmd.wallet)
    from tablesim.cli import platform_cmd

    cli.add_command(platform_cmd.platform)
    from tablesim.cli import trust_cmds

    cli.add_command(trust_cmds.keys)
    cli.add_command(trust_cmds.receipt)


_register()


def main() -> None:
    cli(prog_name="tablesim")


if __name__ == "__main__":
    main()
