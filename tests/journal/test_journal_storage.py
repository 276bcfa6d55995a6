"""Failing storage: a full disk or an I/O error.

On a real full disk (a small tmpfs the test mounts, where it may) the table
refuses the action that could not be committed: one line, nothing changed
in the journal or the table, and the same action succeeds once there is
room again. The journal keeps a reserve of free space: an action starts
only with at least ``RESERVE_BYTES`` free, so a filling disk refuses actions
before any of them can fail half-way.

When a write fails after the table acted (a disk filled past the reserve
by someone else, an I/O error: the tests inject a failing connection), the
journal rolls the transaction back and refuses every further action until
the table is restarted; the restart recovers from what was committed.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import subprocess
from pathlib import Path

import pytest

from tablecore.errors import IllegalAction, TablesimError
from tablesim.journal.storage import StorageError

SHOE = "AS 9D 2C KS  AH TD 2D QC  7C JD 2H 4H".split()


@pytest.fixture
def small_disk(tmp_path):
    """A 2 MiB tmpfs, unmounted at the end; skipped where mounting is not allowed."""
    mount = tmp_path / "disk"
    mount.mkdir()
    res = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mount)], capture_output=True, text=True)
    if res.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({res.stderr.strip() or res.returncode}): "
                    "the injected-failure tests cover this case")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(disk: Path, leave: int = 0) -> Path:
    """Fill ``disk`` until ``leave`` bytes (about) are free."""
    filler = disk / "filler"
    with open(filler, "wb") as fh:
        chunk = b"\0" * 65536
        try:
            while True:
                st = os.statvfs(disk)
                free = st.f_bavail * st.f_frsize
                if free <= leave:
                    break
                fh.write(chunk[: max(4096, min(len(chunk), free - leave))])
                fh.flush()
        except OSError as exc:
            assert exc.errno == errno.ENOSPC
    return filler


def count(path) -> int:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return db.execute("SELECT COUNT(*) FROM records").fetchone()[0]
    finally:
        db.close()


def test_a_full_disk_refuses_the_action_and_it_succeeds_when_space_returns(small_disk, f3):
    path = small_disk / "f3.sqlite"
    rig = f3(path, cards=SHOE)
    t = rig.table
    t.open_round()
    t.place_bet("1", "ante", 10)
    before = (count(path), t.book.snapshot(), t.state)
    filler = fill(small_disk, leave=64 * 1024)
    with pytest.raises(StorageError) as info:
        t.place_bet("3", "ante", 20)
    text = str(info.value)
    assert isinstance(info.value, IllegalAction) and "\n" not in text
    assert text.startswith(f"refused: journal {path}: the disk is full") and "retry once there is room" in text
    assert (count(path), t.book.snapshot(), t.state) == before  # nothing half-applied
    filler.unlink()  # space returns
    t.place_bet("3", "ante", 20)  # the same action, retried
    assert t.book.snapshot() == {"1": {"ante": "10"}, "3": {"ante": "20"}}
    rig.finish()
    assert t.result is not None and t.result.status == "settled"
    t.journal.close()


def test_a_disk_filled_past_the_reserve_fails_the_commit_and_a_restart_recovers(small_disk, f3, jrows):
    """The reserve off: the commit itself meets ENOSPC, after the table acted."""
    path = small_disk / "f3.sqlite"
    rig = f3(path, cards=SHOE)
    t = rig.table
    t.journal.reserve = 0
    t.open_round()
    t.place_bet("1", "ante", 10)
    committed = count(path)
    filler = fill(small_disk, leave=0)
    with pytest.raises(StorageError) as info:
        for n in range(200):  # until the WAL needs a page the disk does not have
            t.place_bet("2", "pair_plus", 5 + n)
    assert count(path) >= committed
    with pytest.raises(StorageError, match="restart it to recover"):
        t.place_bet("3", "ante", 20)
    assert "disk" in str(info.value) or "full" in str(info.value)
    filler.unlink()
    del rig, t  # the table stops; a restart recovers from what was committed
    again = f3(path, cards=SHOE)
    placed = [r["data"] for r in jrows(path) if r["name"] == "bet"]
    assert again.table.book.snapshot()["1"] == {"ante": "10"}
    assert sum(1 for b in placed if b["position"] == "3") == 0
    again.table.place_bet("3", "ante", 20)
    again.finish()
    assert again.table.result.status == "settled"


class FailingConnection:
    """A real sqlite3 connection whose Nth matching statement fails as a
    failing disk would (``disk I/O error``)."""

    def __init__(self, db: sqlite3.Connection, match: str, after: int = 0) -> None:
        self.db, self.match, self.after, self.armed = db, match, after, True

    def execute(self, sql, *args):
        if self.armed and sql.startswith(self.match):
            if self.after == 0:
                raise sqlite3.OperationalError("disk I/O error")
            self.after -= 1
        return self.db.execute(sql, *args)

    def __getattr__(self, name):
        return getattr(self.db, name)


def test_an_io_error_on_the_first_record_refuses_and_the_action_can_be_retried(tmp_path, f3):
    rig = f3(tmp_path / "f3.sqlite", cards=SHOE)
    t = rig.table
    t.open_round()
    real = t.journal.store.db
    t.journal.store.db = FailingConnection(real, "INSERT INTO records")
    with pytest.raises(StorageError, match="disk i/o error: nothing was changed; retry"):
        t.place_bet("1", "ante", 10)
    assert t.book.snapshot() == {}
    t.journal.store.db = real
    t.place_bet("1", "ante", 10)
    assert t.book.snapshot() == {"1": {"ante": "10"}}


def test_an_io_error_at_commit_stops_the_table_until_a_restart(tmp_path, f3, jrows):
    path = tmp_path / "f3.sqlite"
    rig = f3(path, cards=SHOE)
    t = rig.table
    t.open_round()
    real = t.journal.store.db
    t.journal.store.db = FailingConnection(real, "COMMIT")
    with pytest.raises(StorageError, match="restart it to recover"):
        t.place_bet("1", "ante", 10)
    t.journal.store.db = real
    with pytest.raises(StorageError, match="takes no more actions"):
        t.close_betting()
    assert [r for r in jrows(path) if r["name"] == "bet"] == []  # nothing of it committed
    del rig, t
    again = f3(path, cards=SHOE)
    assert again.table.book.snapshot() == {}
    again.table.place_bet("1", "ante", 10)
    assert again.table.book.snapshot() == {"1": {"ante": "10"}}


def test_a_full_disk_is_one_line_from_the_command_line(small_disk, run_cli, tmp_path):
    path = small_disk / "w.sqlite"
    fill(small_disk, leave=256 * 1024)
    res = run_cli("run", "--game", "wheel", "--mock", "--rounds", "3", "--journal", path)
    assert res.code == 2 and len(res.err_lines) == 1, (res.out, res.err)
    assert "the disk is full" in res.err and "Traceback" not in res.err
    assert isinstance(StorageError("x", "y"), TablesimError)


@pytest.mark.parametrize("command, where", [("run", "data dir"), ("run", "journal"), ("serve", "data dir")])
def test_a_table_started_on_a_full_disk_refuses_in_one_line_and_leaves_nothing_half_made(command, where, small_disk,
                                                                                         env):
    """No room for the lock file, the key, the operator tokens or the journal
    itself: one line, exit 2, no traceback, and no empty key or token file
    left to block the next start; with room again the same command works."""
    from processes import Served, tablesim

    env = {**env, "XDG_DATA_HOME": str(small_disk / "xdg")}
    args = ["run", "--game", "wheel", "--mock", "--rounds", "1", "--quiet"] if command == "run" else \
        ["serve", "--game", "fortune3", "--mock", "--port", "0"]  # (as Served starts it below)
    if where == "journal":
        args += ["--journal", small_disk / "w.journal.sqlite"]
    filler = fill(small_disk, leave=0)
    res = tablesim(env, *args)
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert res.returncode == 2 and len(lines) == 1 and "Traceback" not in res.stderr, res.stderr
    assert lines[0].startswith("tablesim: error: ") and "No space left on device" in lines[0]
    made = [p for p in small_disk.rglob("*") if p.suffix in (".key", ".json")]
    assert all(p.stat().st_size > 0 for p in made), made  # none empty (it would stop the next start)
    filler.unlink()
    if command == "run":
        res = tablesim(env, *args)
        assert res.returncode == 0, res.stderr
    else:
        served = Served(env, None)
        assert served.stop() == 0
