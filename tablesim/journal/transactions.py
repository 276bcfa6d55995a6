"""The two context managers a transaction hands out inside itself: a
nested one (only counted) and a savepoint (one action, undone on its own)."""

from __future__ import annotations

from typing import Any


class Nested:
    """A transaction opened inside another: counted, nothing else (the outer
    one commits or rolls back). One per journal, reused: a group opens
    thousands."""

    __slots__ = ("journal",)

    def __init__(self, journal: Any) -> None:
        self.journal = journal

    def __enter__(self) -> None:
        self.journal._depth += 1

    def __exit__(self, *exc: Any) -> bool:
        self.journal._depth -= 1
        return False


class Savepoint:
    """One action inside a transaction (``Journal.savepoint``). In a group
    the records wait in memory: undoing the action cuts the list back; in
    any other transaction it is a savepoint of the store."""

    __slots__ = ("journal", "saved", "rows")

    def __init__(self, journal: Any) -> None:
        self.journal = journal

    def __enter__(self) -> None:
        j = self.journal
        self.saved = (j.tip.saved(), j._checkpoint_row)
        self.rows = None if j._rows is None else len(j._rows)
        if self.rows is None:
            j.store.savepoint()

    def __exit__(self, kind: Any, exc: Any, tb: Any) -> bool:
        j = self.journal
        if kind is None:
            if self.rows is None:
                j.store.release()
            return False
        tip, j._checkpoint_row = self.saved
        j.tip.restore(tip)
        if self.rows is not None:
            del j._rows[self.rows:]
        else:
            j.store.undo_savepoint()
        return False
