"""No silent fresh start: the journal's mark beside the key, with real processes.

A served table takes bets, is killed (SIGKILL) or stopped, and then loses
part of its journal the way a PC loses it: the ``-wal`` file deleted or
with one bit flipped (everything since the last checkpoint was only there),
the journal deleted or emptied, an older copy put back. A table whose key
has a mark never starts a new history on it, and never goes on from a
journal behind what it committed: one line naming what is missing, exit 2,
nothing written.
"""

from __future__ import annotations

import os
import shutil
import signal
from pathlib import Path

import pytest

from processes import Served, tablesim

RUN = ("run", "--game", "fortune3", "--mock", "--rounds", "1")


def serve_bets(env, journal: Path, bets: int = 3) -> Served:
    table = Served(env, journal)
    assert table.post("/api/actions/open_round").status_code == 200
    for i in range(bets):
        res = table.post("/api/bets", {"position": str(1 + i % 7), "bet": "ante", "amount": "25"})
        assert res.status_code == 200, res.text
    return table


def refused(env, journal: Path, *words: str) -> str:
    before = journal.read_bytes() if journal.exists() else None
    res = tablesim(env, *RUN, "--journal", journal)
    assert res.returncode == 2, res.stdout + res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tablesim: error: "), res.stderr
    assert "Traceback" not in res.stderr
    for word in words:
        assert word in lines[0], lines[0]
    assert (journal.read_bytes() if journal.exists() else None) == before  # nothing written
    return lines[0]


@pytest.mark.parametrize("damage", ["delete", "flip"])
def test_a_killed_table_whose_wal_is_lost_or_damaged_refuses_to_start(tmp_path, env, damage):
    journal = tmp_path / "f3.journal.sqlite"
    table = serve_bets(env, journal, bets=5)
    table.stop(signal.SIGKILL)
    wal = Path(f"{journal}-wal")
    assert wal.stat().st_size > 0  # the bets were only in the WAL
    if damage == "delete":
        wal.unlink()
    else:
        data = bytearray(wal.read_bytes())
        data[len(data) // 2] ^= 0x10
        wal.write_bytes(bytes(data))
    Path(f"{journal}-shm").unlink(missing_ok=True)
    line = refused(env, journal, "committed", "-wal")
    assert "record" in line


@pytest.mark.parametrize("how", ["delete", "empty"])
def test_a_deleted_or_emptied_journal_whose_key_has_a_history_is_not_begun_again(tmp_path, env, how):
    journal = tmp_path / "f3.journal.sqlite"
    assert serve_bets(env, journal).stop() == 0
    for side in (journal, Path(f"{journal}-wal"), Path(f"{journal}-shm")):
        if how == "delete":
            side.unlink(missing_ok=True)
        elif side.exists():
            side.write_bytes(b"")
    refused(env, journal, "missing" if how == "delete" else "empty", "F3-MOCK")


def test_an_older_copy_of_the_journal_put_back_refuses_to_start(tmp_path, env):
    journal = tmp_path / "f3.journal.sqlite"
    assert serve_bets(env, journal).stop() == 0
    shutil.copy(journal, tmp_path / "backup.sqlite")  # a clean stop leaves no -wal: the file is whole
    table = Served(env, journal)
    assert table.post("/api/bets", {"position": "6", "bet": "ante", "amount": "50"}).status_code == 200
    assert table.stop() == 0
    shutil.copy(tmp_path / "backup.sqlite", journal)
    refused(env, journal, "committed", "older")


@pytest.mark.slow
def test_a_table_goes_on_after_a_kill_and_a_new_journal_elsewhere_begins(tmp_path, env):
    """What the mark must not stop: a restart after a kill (the journal whole),
    and another journal file for the same table."""
    journal = tmp_path / "f3.journal.sqlite"
    serve_bets(env, journal).stop(signal.SIGKILL)
    again = Served(env, journal)
    assert again.client.get("/api/table").json()["bets"]["1"] == {"ante": "25"}
    assert again.stop() == 0
    res = tablesim(env, *RUN, "--journal", tmp_path / "other.journal.sqlite")
    assert res.returncode == 0, res.stderr


def wheel_on(path: Path):
    """A mock wheel table in this process, its journal ``path`` attached (the start's checks run)."""
    from tablesim.journal.attach import attach_and_recover
    from tablesim.games.rig import mock_rig

    table = mock_rig("wheel", seed=3).table
    attach_and_recover(table, str(path))
    return table


def test_a_journal_may_end_at_the_transaction_before_the_one_its_mark_was_committing(tmp_path):
    """The mark of a transaction is flushed while SQLite commits it: a table
    that died then has a journal ending at the transaction before (never
    answered): that starts; a journal ending anywhere else before the mark
    does not."""
    from tablecore.errors import InputError

    path = tmp_path / "w.sqlite"

    def start():
        return wheel_on(path)

    def died(journal) -> None:
        """The process gone: its mark as the last write left it (a clean close would settle it)."""
        os.close(journal.mark.fd)
        journal.mark.fd, journal.mark = -1, None
        journal.close()

    table = start()
    table.open_round()
    journal = table.journal
    journal.mark.begin(journal.seq + 3, "ab" * 32)  # a transaction that never committed
    died(journal)
    table = start()  # the journal ends where the mark's last committed transaction did
    at = table.journal.seq
    table.journal.mark.begin(at + 3, "cd" * 32)
    table.journal.mark.finish((at - 1, "ef" * 32))  # as if the journal had committed a record it lacks
    table.journal.mark.begin(at + 6, "01" * 32)
    died(table.journal)
    with pytest.raises(InputError, match="lost records it had committed"):
        start()


def test_after_a_clean_stop_a_copy_from_before_its_last_transaction_refuses_to_start(tmp_path):
    """A clean stop settles the mark: the copy of the journal taken just
    before the table's last transaction is not taken for a table that died
    committing it."""
    from tablecore.errors import InputError

    path = tmp_path / "w.sqlite"

    def start():
        return wheel_on(path)

    start().journal.close()
    shutil.copy(path, tmp_path / "copy.sqlite")  # (closed: no -wal, the file is whole)
    table = start()
    table.open_round()  # one transaction after the copy
    table.journal.close()
    shutil.copy(tmp_path / "copy.sqlite", path)
    with pytest.raises(InputError, match="lost records it had committed"):
        start()
