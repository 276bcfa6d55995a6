"""A click group that imports a command's module only when the command is looked up.

Importing every command's module at start cost each ``tablesim`` process (a
``serve``, a ``wallet serve``, a shell completion) the imports of all the
others: the table, the drivers, the games, the studio. Click's documented
pattern ("Lazily loading subcommands"): the group knows its commands by name
and by where they live, ``list_commands`` names them and ``get_command``
imports the one asked for. ``--help`` still loads them all (it shows each
one's short help).
"""

from __future__ import annotations

import importlib
from typing import Mapping

import click


class LazyGroup(click.Group):
    """``lazy_commands``: ``{"name": "module:attribute"}``; a key ``"group sub"``
    is a command added to the group ``group`` when that group loads (for a
    subcommand that lives in another module than its group)."""

    def __init__(self, *args, lazy_commands: Mapping[str, str] | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.lazy_commands = dict(lazy_commands or {})

    def list_commands(self, ctx: click.Context | None) -> list[str]:
        # sorted, as click's own group lists them (``--help`` and completion keep their order)
        return sorted({*self.commands, *(name for name in self.lazy_commands if " " not in name)})

    def get_command(self, ctx: click.Context | None, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in self.lazy_commands:
            self.add_command(self._load(cmd_name))  # once: the next look-up finds it in self.commands
        return self.commands.get(cmd_name)

    def _load(self, path: str) -> click.Command:
        module, _, attribute = self.lazy_commands[path].partition(":")
        command = getattr(importlib.import_module(module), attribute)
        name = path.rpartition(" ")[2]
        # the table's name is the one listed; a command named otherwise would be
        # listed under one name and answer "No such command" under the other
        if command.name != name:
            raise RuntimeError(f"{self.lazy_commands[path]} is the command {command.name!r}, registered as {name!r}")
        for sub in self.lazy_commands:
            if sub.rpartition(" ")[0] == path:
                command.add_command(self._load(sub))
        return command
