"""A record's time: the journal writes ``datetime.isoformat`` text, making
the part up to the second once a second instead of per record."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from hypothesis import given
from hypothesis import strategies as st

from tablesim.journal.clock import stamp

EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


@given(st.lists(st.integers(min_value=0, max_value=(2**33) * 1_000_000), min_size=1, max_size=20))
def test_a_stamp_is_the_isoformat_text_of_its_instant(instants):
    for micros in instants:  # in any order: the kept second is replaced, never reused wrongly
        expected = (EPOCH + timedelta(microseconds=micros)).isoformat(timespec="microseconds")
        assert stamp(micros) == expected
        assert stamp(micros + 1) == (EPOCH + timedelta(microseconds=micros + 1)).isoformat(timespec="microseconds")


def test_records_carry_the_time_they_were_written(tmp_path):
    from tablesim.journal.journal import Journal

    journal = Journal(tmp_path / "j.sqlite", key=b"k" * 32)
    before = datetime.now(timezone.utc)
    record = journal.append("T1", "R1", "event", "bet", {"amount": "1"}, "table")
    after = datetime.now(timezone.utc)
    assert before - timedelta(milliseconds=1) <= datetime.fromisoformat(record.ts) <= after + timedelta(milliseconds=1)
    assert [r.ts for r in journal.records() if r.name == "bet"] == [record.ts]
    journal.close()
