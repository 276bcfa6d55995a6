"""Plugging a studio link into a running table (``run`` and ``serve``)."""

from __future__ import annotations

from typing import Callable

from tablesim.engine.table import GameTable
from tablecore.errors import InputError
from tablesim.studio.outbox import Hook, StudioLink

#: how long ``tablesim run`` waits at exit for the outbox to drain (seconds)
DRAIN_SECONDS = 5.0


def start_link(table: GameTable, url: str, hooks: list[Hook] | None = None,
               on_change: Callable[[], None] | None = None) -> StudioLink:
    """Start publishing ``table``'s journal to the studio at ``url``."""
    journal = table.journal
    if journal is None or journal.path == ":memory:":
        raise InputError("--studio needs a journal file: the studio publishes the table's journal")
    link = StudioLink(url, journal.path, table.table_id, hooks=hooks, game=table.game, on_change=on_change).start()
    table.bus.subscribe(link.wake)  # a hint only: the outbox reads the committed records itself
    return link


def describe_stop(remaining: int) -> str:
    if remaining == 0:
        return "studio: every record published"
    return f"studio: {remaining} record{'s' if remaining != 1 else ''} still to go (published at the next start)"
