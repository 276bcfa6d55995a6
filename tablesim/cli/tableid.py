"""``--table-id ID`` of ``run`` and ``serve``: a mock or emulated table under
an id of its own, so that one laptop runs two tables of one game (each its
own journal, keys and subjects on the studio's bus)."""

from __future__ import annotations

import click

from tablecore.errors import InputError
from tablesim.journal.keys import TABLE_ID


def table_id_option():
    return click.option("--table-id", "table_id", default=None, metavar="ID",
                        help="--mock/--emulated: the table's id (default: the game's id prefix, then -MOCK or -EMU); "
                             "1 to 32 of A-Z a-z 0-9 _ -. A configuration names its own ([table] id).")


def check_table_id(table_id: str | None, config_path: str | None) -> str | None:
    """The id given, checked (one line naming it, before anything starts)."""
    if table_id is None:
        return None
    if config_path:
        raise InputError("--table-id does not apply to --config: the table configuration names its id ([table] id)")
    if not TABLE_ID.fullmatch(table_id):
        raise InputError(f"{table_id!r} is not a table id (1 to 32 of A-Z a-z 0-9 _ -)", where="--table-id")
    return table_id


def rename(table, table_id: str | None) -> None:
    """Give a table just built (nothing journaled, nothing recovered) its id."""
    if table_id is not None:
        table.table_id = table_id
