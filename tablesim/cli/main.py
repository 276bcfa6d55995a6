"""``tablesim``: one entry point, a subcommand per job.

Every error the project raises on purpose becomes one line on standard error
and exit status 2; nothing the user typed produces a traceback.
"""

from __future__ import annotations

import sys

import click

from tablesim import __version__
from tablecore.errors import TablesimError
from tablesim.cli.lazy import LazyGroup

#: every command, by name, and where it lives: its module is imported when the
#: command is looked up (``tablesim wallet serve`` imports no table, no studio);
#: ``--help`` lists them sorted, as click lists a group's commands
COMMANDS = {
    "analyze": "tablesim.cli.analyze_cmd:command",
    "audit": "tablesim.cli.journal_cmds:audit",
    "bench": "tablesim.cli.bench_cmd:command",
    "devices": "tablesim.cli.devices_cmd:command",
    "diagram": "tablesim.cli.diagram_cmd:command",
    "emulate": "tablesim.cli.emulate_cmd:command",
    "history": "tablesim.cli.journal_cmds:history",
    "journal": "tablesim.cli.journal_cmds:journal_group",
    "keys": "tablesim.cli.trust_cmds:keys",
    "platform": "tablesim.cli.platform_cmd:platform",
    "receipt": "tablesim.cli.trust_cmds:receipt",
    "replay": "tablesim.cli.replay_cmd:command",
    "run": "tablesim.cli.run_cmd:command",
    "script": "tablesim.cli.script_cmd:command",
    "serve": "tablesim.cli.serve_cmd:command",
    "simulate": "tablesim.cli.simulate_cmd:command",
    "studio": "tablesim.cli.studio_cmd:studio",
    "studio demo": "tablesim.cli.demo_cmd:command",  # (added to the studio's group when it loads)
    "wallet": "tablesim.cli.wallet_cmd:wallet",
}


class _Group(LazyGroup):
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

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # The games' titles when help is shown: the games' registry is not imported at start.
        if self.help is None:
            self.help = _help()
        super().format_help_text(ctx, formatter)


@click.group(cls=_Group, lazy_commands=COMMANDS, context_settings={"help_option_names": ["-h", "--help"]})
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
    # imported here: structlog (and the rich it imports) is 0.2 s that --help,
    # --version and a shell completion, which never log, need not pay
    from tablesim.log import configure

    configure(log_level, json=log_json)


def _help() -> str:
    from tablesim.games.registry import names, spec

    return f"Live-dealer table system: {', '.join(spec(g).title for g in names())}."


def main() -> None:
    cli(prog_name="tablesim")


if __name__ == "__main__":
    main()
