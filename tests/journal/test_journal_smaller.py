"""Smaller holes: another table's key over the key file, the free-space
check of a symbolic link to a journal on another disk, a journal named in a
folder that does not exist."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tablesim.journal.keys import create_key
from tablesim.journal.location import data_dir
from tablesim.journal.storage import StorageError

from test_journal_storage import SHOE, fill, small_disk  # noqa: F401 - (the fixture)

RUN = ("run", "--game", "fortune3", "--mock", "--rounds", "1", "--quiet")


def test_another_tables_key_over_the_key_file_is_not_this_journals_key(tmp_path, run_cli):
    journal = tmp_path / "f3.sqlite"
    assert run_cli(*RUN, "--journal", journal).code == 0
    key_file = data_dir() / "F3-MOCK.key"
    create_key(tmp_path / "other.key")
    shutil.copyfile(tmp_path / "other.key", key_file)  # (mode 0600 kept: the file is the same one)
    before = journal.read_bytes()
    res = run_cli(*RUN, "--journal", journal)
    assert res.code == 2 and len(res.err_lines) == 1 and "is not this journal's" in res.err, res.err
    assert "tampered" not in res.err and journal.read_bytes() == before
    res = run_cli("audit", "verify", "--journal", journal)
    assert res.code == 2 and len(res.err_lines) == 1, res.err
    assert "unreadable" in res.err and "is not this journal's" in res.err and "tampered" not in res.err


def test_the_free_space_check_looks_at_the_disk_a_symlinked_journal_is_on(small_disk, tmp_path, f3):  # noqa: F811
    target = small_disk / "f3.sqlite"
    link = tmp_path / "f3-link.sqlite"
    link.symlink_to(target)
    rig = f3(link, cards=SHOE)
    t = rig.table
    t.open_round()
    t.place_bet("1", "ante", 10)
    filler = fill(small_disk, leave=64 * 1024)
    with pytest.raises(StorageError, match="the disk is full") as info:
        t.place_bet("3", "ante", 20)
    assert "retry once there is room" in str(info.value)  # refused before it acted: the table goes on
    filler.unlink()
    t.place_bet("3", "ante", 20)
    assert t.book.snapshot() == {"1": {"ante": "10"}, "3": {"ante": "20"}}
    t.journal.close()


def test_a_journal_in_a_folder_that_does_not_exist_is_refused(tmp_path, run_cli):
    where = tmp_path / "nonexistent-dir" / "x.sqlite"
    res = run_cli(*RUN, "--journal", where)
    assert res.code == 2 and len(res.err_lines) == 1 and "no such folder" in res.err, res.err
    assert not where.parent.exists()
    (tmp_path / "file").write_text("")
    res = run_cli(*RUN, "--journal", tmp_path / "file" / "x.sqlite")
    assert res.code == 2 and "not a folder" in res.err
    # the default journal's data directory is still made on first use
    assert not data_dir().exists()
    assert run_cli(*RUN).code == 0 and data_dir().is_dir()
