"""``Journal.on_commit``: what must know of a committed record (the studio's
outbox) is told after the commit, once a transaction, never for one that
rolled back or wrote nothing (tests/studio/test_studio_woken.py: the link
listens there)."""

from __future__ import annotations

import pytest

from tablesim.journal.journal import Journal


def test_each_committed_transaction_is_told_once_after_its_commit(tmp_path):
    journal = Journal(tmp_path / "j.sqlite", key=b"k" * 32)
    told: list[int] = []
    journal.on_commit.append(lambda: told.append(journal.seq))
    try:
        journal.append("T1", "T1-000001", "event", "bet", {"position": "1", "bet": "ante", "amount": "5"}, "table")
        assert told == [journal.seq]  # (its own transaction: told with the record committed)
        with journal.transaction():
            journal.append("T1", "T1-000001", "event", "bet", {"position": "2", "bet": "ante", "amount": "1"})
            journal.append("T1", "T1-000001", "event", "bet", {"position": "3", "bet": "ante", "amount": "1"})
            assert len(told) == 1  # nothing yet: not committed
        assert told == [told[0], told[0] + 2]  # once, for both
        with pytest.raises(RuntimeError):
            with journal.transaction():
                journal.append("T1", "T1-000001", "event", "bet", {"position": "4", "bet": "ante", "amount": "1"})
                raise RuntimeError("the action failed")
        with journal.transaction():
            pass
        assert len(told) == 2  # a rolled-back or empty transaction tells nothing
    finally:
        journal.close()
