"""``tablesim journal backup DEST``: a verified copy of a journal, taken
while a table writes it, its ``-wal`` file's transactions included; and the
restore docs/hardware.md gives (the same command the other way, --force)."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import reaper
from processes import ROOT


def count(path: Path, *, wal: bool = True) -> int:
    """Records in a journal (``wal=False``: the main file alone, as ``cp`` of it would keep)."""
    if wal:
        db = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
    else:
        db = sqlite3.connect(path.resolve().as_uri() + "?immutable=1", uri=True)
    try:
        return db.execute("SELECT COUNT(*) FROM records").fetchone()[0]
    except sqlite3.OperationalError:  # (a new journal: its tables come with its first transaction)
        return 0
    finally:
        db.close()


def writer(journal: Path) -> subprocess.Popen:
    """A table writing ``journal`` round after round until stopped."""
    proc = subprocess.Popen([sys.executable, "-m", "tablesim.cli.main", "run", "--game", "fortune3", "--mock",
                             "--rounds", "100000", "--delay", "0.02", "--quiet", "--seed", "4", "--journal",
                             str(journal)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=os.environ,
                            cwd=ROOT)
    reaper.track(proc)
    end = time.monotonic() + 60  # pure waiting (a loaded machine)
    while not (journal.exists() and Path(f"{journal}-wal").exists() and count(journal) > 150):
        assert proc.poll() is None, proc.stderr.read()
        assert time.monotonic() < end, "the table wrote nothing"
        time.sleep(0.05)
    return proc


def stopped(proc: subprocess.Popen, sig: int = signal.SIGINT) -> None:
    proc.send_signal(sig)
    proc.wait(60)
    proc.stderr.close()


def test_a_live_journal_backed_up_restored_and_audited(tmp_path, run_cli):
    journal = tmp_path / "F3-EMU.journal.sqlite"
    proc = writer(journal)
    try:
        copy = tmp_path / "backup.sqlite"
        res = run_cli("journal", "backup", "--journal", journal, copy)
        assert res.code == 0, res.err
        taken = count(copy)
        assert f"backed up to {copy}: {taken} records, chain intact; last record {taken} (link " in res.out
        end = time.monotonic() + 60
        while count(journal) <= taken:  # the table went on writing after the copy
            assert time.monotonic() < end
            time.sleep(0.05)
    finally:
        stopped(proc)
    assert oct(copy.stat().st_mode & 0o777) == "0o600"
    assert not Path(f"{copy}-wal").exists() and not Path(f"{copy}-journal").exists()
    assert run_cli("audit", "verify", "--journal", copy).code == 0
    # restore: the table stopped, the copy put back in the journal's place
    res = run_cli("journal", "backup", "--journal", copy, journal, "--force")
    assert res.code == 0, res.err
    assert count(journal) == taken and not Path(f"{journal}-wal").exists()
    audit = run_cli("audit", "verify", "--journal", journal)
    assert audit.code == 0 and f"{taken} records, chain intact" in audit.out
    # the journal is behind the table's mark (the records after the copy are lost): the start says so
    start = run_cli("run", "--game", "fortune3", "--mock", "--rounds", "1", "--quiet", "--journal", journal)
    assert start.code == 2 and "its mark says record" in start.err and len(start.err_lines) == 1, start.err
    mark = start.err.split("(mark ")[1].split(")")[0]
    os.remove(mark)  # the loss accepted, as docs/hardware.md says
    assert run_cli("run", "--game", "fortune3", "--mock", "--rounds", "1", "--quiet", "--journal", journal).code == 0
    assert run_cli("audit", "verify", "--journal", journal).code == 0 and count(journal) > taken


def test_the_wal_files_transactions_are_in_the_copy(tmp_path, run_cli):
    """A table killed mid-run leaves its newest transactions in -wal only:
    a copy of the main file lacks them, the backup has every one."""
    journal = tmp_path / "F3-EMU.journal.sqlite"
    stopped(writer(journal), signal.SIGKILL)
    assert Path(f"{journal}-wal").stat().st_size > 0
    everything, main_only = count(journal), count(journal, wal=False)
    assert main_only < everything
    copy = tmp_path / "b.sqlite"
    res = run_cli("journal", "backup", "--journal", journal, copy)
    assert res.code == 0, res.err
    assert count(copy, wal=False) == everything


def test_refusals_are_one_line_and_change_nothing(tmp_path, run_cli):
    journal = tmp_path / "F3-EMU.journal.sqlite"
    assert run_cli("run", "--game", "fortune3", "--mock", "--rounds", "2", "--quiet", "--journal", journal).code == 0
    dest = tmp_path / "there.sqlite"
    dest.write_bytes(b"keep me")
    res = run_cli("journal", "backup", "--journal", journal, dest)
    assert res.code == 2 and res.err_lines == [f"tablesim: error: {dest}: already exists: --force replaces it"]
    assert dest.read_bytes() == b"keep me"
    res = run_cli("journal", "backup", "--journal", journal, journal, "--force")
    assert res.code == 2 and "would replace the journal it copies" in res.err and len(res.err_lines) == 1
    for bad, said in ((tmp_path, "a folder: name the backup file"), (tmp_path / "no" / "x.sqlite", "no such folder")):
        res = run_cli("journal", "backup", "--journal", journal, bad)
        assert res.code == 2 and said in res.err and len(res.err_lines) == 1
    # a journal whose chain is broken is not a backup: nothing is kept
    with sqlite3.connect(journal) as db:
        db.execute("UPDATE records SET actor = 'someone' WHERE seq = 5")
    db.close()
    res = run_cli("journal", "backup", "--journal", journal, tmp_path / "t.sqlite")
    assert res.code == 2 and "the copy does not verify (tampered at record 5" in res.err, res.err
    assert len(res.err_lines) == 1
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith((".t.sqlite", "t.sqlite"))) == []
    # the journal a table writes is never replaced
    proc = writer(tmp_path / "live.sqlite")
    try:
        res = run_cli("journal", "backup", "--journal", dest.with_name("F3-EMU.journal.sqlite"),
                      tmp_path / "live.sqlite", "--force")
        assert res.code == 2 and "writes this journal: stop it before replacing it" in res.err
    finally:
        stopped(proc)
