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


def stop_link(link: StudioLink) -> str:
    """Stop the link, waiting up to DRAIN_SECONDS for the outbox to drain;
    what to tell the operator."""
    remaining = link.stop(drain=DRAIN_SECONDS)
    records = f"{remaining} record{'s' if remaining != 1 else ''}"
    if link.diverged:
        # never "at the next start": a diverged link publishes nothing until someone looks
        return (f"studio: the link diverged ({link.error}): {records} not published, and none will be while the "
                "journal and the stream disagree")
    if remaining == 0:
        return "studio: every record published"
    return f"studio: {records} still to go (published at the next start)"
