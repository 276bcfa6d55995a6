"""The table's one thread: every access to the table (it is not thread-safe)
is a command run there, one at a time, awaited by the asyncio side. Around
each command the table's events are collected and published to the stream
once it returned (its journal transaction committed); a command that
raised publishes nothing."""

from __future__ import annotations

import functools
from typing import Any, Callable

from tablesim.journal.storage import StorageError
from tablesim.server import gctuning


class TableThread:
    """``TableRunner``'s base: ``call`` runs a function on the table's thread
    (the runner holds the thread, the table and its stream, the view)."""

    async def call(self, fn: Callable[..., Any], *args: Any, actor: str | None = None, publish: bool = True,
                   lazy_snapshot: bool = False, pokes: bool = True, **kwargs: Any) -> Any:
        """Run ``fn`` on the table's thread; its events go out when it returned.
        ``lazy_snapshot``: the table's snapshot follows within ``SNAPSHOT_EVERY``
        (bet groups), not at once. ``pokes=False``: ``fn`` cannot give the mock
        dealer's hands anything to do (a group of bets changes no state they wait
        on), so the resting pump is not woken for it (woken, it ran a command of its
        own on the table's thread after every group, a thread hop and a step for nothing)."""
        if self.executor is None or self.loop is None:
            raise RuntimeError("the table runner is not running")
        job = functools.partial(self._run, fn, args, kwargs, actor, publish, lazy_snapshot)
        try:
            return await self.loop.run_in_executor(self.executor, job)
        finally:
            if pokes and getattr(fn, "__self__", None) is not self.feed:
                self.feed.poke()  # (the mock dealer's hands may have something to do now)

    def _run(self, fn, args, kwargs, actor: str | None, publish: bool, lazy_snapshot: bool = False) -> Any:
        table = self.table
        self._pending = []
        seq = self.journal.seq if self.journal is not None else 0
        try:
            # Journal the game's own actions (bets, close betting, deal...) with
            # the operator who asked, instead of the generic "dealer"/"player".
            with table.acting(actor):
                result = fn(*args, **kwargs)
        except BaseException as exc:
            self._pending = []  # refused or failed: its journal transaction rolled back
            if isinstance(exc, StorageError):
                self.storage_error = exc.reason
            raise
        if self.storage_error is not None and self.journal is not None and self.journal.seq > seq:
            self.storage_error = None  # a transaction committed again
        pending, self._pending = self._pending, []
        if pending or publish:
            self.stream.publish_all(pending, self.view.bet_spots(pending))
            self.view.after_command(lazy_snapshot)
        if self._round_over:
            self._round_over = False
            gctuning.round_over()
        return result

    def _teardown(self) -> None:
        if self._subscribed and self._on_event in self.table.bus.subscribers:
            self.table.bus.subscribers.remove(self._on_event)
        self._subscribed = False
