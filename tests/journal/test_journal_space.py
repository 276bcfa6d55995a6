"""The free-space check before each transaction asks the disk of the folder the
journal's file lies in (a symlink's target's), resolved once at the first check
(resolving the path again took three ``lstat`` a transaction, more than the
``statvfs`` itself), and asks that disk again at every transaction."""

from __future__ import annotations

import os

import pytest

from tablesim.journal import journal as journal_module
from tablesim.journal.journal import Journal
from tablesim.journal.storage import StorageError


class _Free:
    def __init__(self, free: int) -> None:
        self.f_bavail, self.f_frsize = free, 1


def test_the_check_asks_the_symlink_targets_disk_at_every_transaction(tmp_path, monkeypatch):
    (tmp_path / "real").mkdir()
    (tmp_path / "shown").mkdir()
    target = tmp_path / "real" / "j.sqlite"
    link = tmp_path / "shown" / "j.sqlite"
    j = Journal(target, durable=False)
    j.append("T", "R1", "action", "open_round", {})
    j.close()
    link.symlink_to(target)
    asked, free = [], {"bytes": 10**12}

    def statvfs(path):
        asked.append(path)
        return _Free(free["bytes"])

    monkeypatch.setattr(journal_module.os, "statvfs", statvfs)
    j = Journal(link, durable=False)
    try:
        for i in range(3):
            j.append("T", "R1", "action", "n", {"i": i})
        assert len(asked) == 3 and {os.path.realpath(p) for p in asked} == {str((tmp_path / "real").resolve())}
        free["bytes"] = j.reserve - 1  # the disk fills: the next transaction is refused at once
        with pytest.raises(StorageError, match="the disk is full"):
            j.append("T", "R1", "action", "n", {"i": 3})
        free["bytes"] = 10**12
        j.append("T", "R1", "action", "n", {"i": 3})
        assert len(asked) == 5
    finally:
        j.close()
