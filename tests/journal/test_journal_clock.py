"""What the journal does when the table PC's clock jumps (docs/hardware.md,
"Time"): a record's time is the wall clock when it was written, covered by
its link like every field; the order of the records is their sequence
number, never their time. A clock set back an hour mid-session gives
records whose time goes backwards: the chain still verifies, recovery and
history follow the sequence, and nothing says the clock was wrong but the
times themselves. Hence a synchronised clock on a table PC."""

from __future__ import annotations

import sqlite3
import time

from tablesim.journal import clock

HOUR_NS = 3600 * 10**9


def test_a_clock_set_back_leaves_a_journal_that_verifies_with_times_out_of_order(tmp_path, run_cli, monkeypatch):
    journal = tmp_path / "F3-MOCK.journal.sqlite"
    assert run_cli("run", "--game", "fortune3", "--mock", "--rounds", "1", "--quiet", "--journal", journal).code == 0
    real = time.time_ns
    with monkeypatch.context() as patched:
        patched.setattr(clock.time, "time_ns", lambda: real() - HOUR_NS)  # the clock set back an hour
        assert run_cli("run", "--game", "fortune3", "--mock", "--rounds", "1", "--quiet", "--journal",
                       journal).code == 0
    with sqlite3.connect(journal) as db:
        rows = db.execute("SELECT seq, ts, round_id FROM records ORDER BY seq").fetchall()
    db.close()
    first = [ts for _, ts, rid in rows if rid.endswith("-000001")]
    second = [ts for _, ts, rid in rows if rid.endswith("-000002")]
    assert first and second and max(second) < min(first)  # later records, earlier times
    audit = run_cli("audit", "verify", "--journal", journal)
    assert audit.code == 0, audit.out + audit.err
    shown = run_cli("history", "--journal", journal)
    assert shown.code == 0
    assert shown.out.index("-000001") < shown.out.index("-000002")  # the sequence's order, not the clock's
