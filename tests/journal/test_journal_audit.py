"""``tablesim audit verify``: exit 0 when the hash chain is
intact; after editing any field of a record, deleting a record, reordering
two records or inserting a forged one, exit 1 naming the first bad record.
The journal is tampered with through plain sqlite3, as an intruder would."""

from __future__ import annotations

import sqlite3

import pytest

from tablesim.journal.audit import verify
from tablesim.journal.chain import record_hash
from tablesim.journal.journal import Journal

COLUMNS = ("seq", "ts", "table_id", "round_id", "kind", "name", "actor", "data", "prev_hash", "hash")
K = 12  # a record in the middle of the first round


@pytest.fixture
def journal_file(tmp_path, run_cli):
    path = tmp_path / "f3.sqlite"
    res = run_cli("run", "--game", "fortune3", "--mock", "--rounds", "2", "--seed", "1", "--quiet", "--journal", path)
    assert res.code == 0, res.err
    return path


def sql(path, *statements):
    db = sqlite3.connect(str(path))
    try:
        for stmt in statements:
            if isinstance(stmt, tuple):
                db.execute(*stmt)
            else:
                db.execute(stmt)
        db.commit()
    finally:
        db.close()


def fetch(path, seq):
    db = sqlite3.connect(str(path))
    try:
        return db.execute("SELECT * FROM records WHERE seq = ?", (seq,)).fetchone()
    finally:
        db.close()


def count(path):
    db = sqlite3.connect(str(path))
    try:
        return db.execute("SELECT COUNT(*) FROM records").fetchone()[0]
    finally:
        db.close()


def assert_broken_at(run_cli, path, n):
    res = run_cli("audit", "verify", "--journal", path)
    assert res.code == 1, (res.out, res.err)
    assert len(res.err_lines) == 1
    assert f"chain broken at record {n}:" in res.err
    journal = Journal(path)
    try:
        result = verify(journal)
    finally:
        journal.close()
    assert not result.ok and result.first_bad == n


def test_an_intact_journal_verifies(journal_file, run_cli):
    res = run_cli("audit", "verify", "--journal", journal_file)
    assert res.code == 0, res.err
    assert f"{count(journal_file)} records, chain intact" in res.out


@pytest.mark.parametrize("column", COLUMNS[1:])
def test_editing_any_field_is_named(column, journal_file, run_cli):
    row = dict(zip(COLUMNS, fetch(journal_file, K)))
    value = row[column]
    if column == "data":
        edited = value.replace('"', "'", 1) if value.startswith('{"') else value + " "
        assert edited != value
    elif column.endswith("hash"):
        edited = ("f" if value[0] != "f" else "e") + value[1:]
    else:
        edited = value + "x"
    sql(journal_file, (f"UPDATE records SET {column} = ? WHERE seq = ?", (edited, K)))
    assert_broken_at(run_cli, journal_file, K)


def test_editing_an_amount_is_named(journal_file, run_cli):
    db = sqlite3.connect(str(journal_file))
    seq, data = db.execute("SELECT seq, data FROM records WHERE kind='event' AND name='bet' ORDER BY seq").fetchone()
    db.close()
    amount = data.split('"amount":"')[1].split('"')[0]
    sql(journal_file, ("UPDATE records SET data = ? WHERE seq = ?", (data.replace(f'"amount":"{amount}"', '"amount":"1"'), seq)))
    assert_broken_at(run_cli, journal_file, seq)


def test_editing_a_sequence_number_is_named(journal_file, run_cli):
    sql(journal_file, ("UPDATE records SET seq = 100000 WHERE seq = ?", (K,)))
    assert_broken_at(run_cli, journal_file, K)


@pytest.mark.parametrize("which", ["first", "middle"])
def test_deleting_a_record_is_named(which, journal_file, run_cli):
    seq = {"first": 1, "middle": K}[which]
    sql(journal_file, ("DELETE FROM records WHERE seq = ?", (seq,)))
    assert_broken_at(run_cli, journal_file, seq)


def test_deleting_the_last_records_is_detected(journal_file, run_cli):
    """Cutting off the end of the journal (e.g. the last round's settlement)
    is a deletion too: README promises that verify names it."""
    n = count(journal_file)
    sql(journal_file, ("DELETE FROM records WHERE seq = ?", (n,)))
    assert_broken_at(run_cli, journal_file, n)


@pytest.mark.parametrize("a, b", [(1, 2), (K, K + 1), (K, K + 7)])
def test_reordering_two_records_is_named(a, b, journal_file, run_cli):
    ra, rb = fetch(journal_file, a), fetch(journal_file, b)
    rest = ", ".join(f"{c} = ?" for c in COLUMNS[1:])
    sql(
        journal_file,
        (f"UPDATE records SET {rest} WHERE seq = ?", (*rb[1:], a)),
        (f"UPDATE records SET {rest} WHERE seq = ?", (*ra[1:], b)),
    )
    assert_broken_at(run_cli, journal_file, min(a, b))


def _insert_at(path, k, make_row):
    """Shift records k.. up by one and put a forged record at k."""
    prev = fetch(path, k - 1)
    template = fetch(path, k)
    sql(
        path,
        ("UPDATE records SET seq = -(seq + 1) WHERE seq >= ?", (k,)),
        "UPDATE records SET seq = -seq WHERE seq < 0",
        ("INSERT INTO records VALUES (?,?,?,?,?,?,?,?,?,?)", make_row(k, prev, template)),
    )


def test_inserting_a_forged_record_is_named(journal_file, run_cli):
    def forged(k, prev, template):
        data = '{"amount":"5000","bet":"ante","position":"1"}'
        return (k, template[1], template[2], template[3], "event", "bet", "table", data, prev[9], "0" * 64)

    _insert_at(journal_file, K, forged)
    assert_broken_at(run_cli, journal_file, K)


def test_a_forged_record_with_the_codes_own_plain_hash_is_named(journal_file, run_cli):
    """A forger who links the inserted record with the code's own (legacy,
    unkeyed) hash function gets no further: keyed records need the key."""

    def forged(k, prev, template):
        data = '{"amount":"5000","bet":"ante","position":"1"}'
        fields = (template[1], template[2], template[3], "event", "bet", "table", data)
        digest = record_hash(prev[9], k, *fields)
        return (k, *fields, prev[9], digest)

    _insert_at(journal_file, K, forged)
    assert_broken_at(run_cli, journal_file, K)


def test_appending_a_record_with_a_broken_link_is_named(journal_file, run_cli):
    n = count(journal_file)
    last = fetch(journal_file, n)
    sql(journal_file, ("INSERT INTO records VALUES (?,?,?,?,?,?,?,?,?,?)",
                       (n + 1, last[1], last[2], last[3], "event", "result", "table", "{}", "1" * 64, "2" * 64)))
    assert_broken_at(run_cli, journal_file, n + 1)


def test_verify_bad_options_exit_2_with_one_line(tmp_path, run_cli):
    res = run_cli("audit", "verify", "--journal", tmp_path / "missing.sqlite")
    assert res.code == 2 and len(res.err_lines) == 1 and "no such journal file" in res.err
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"this is not a database, " * 100)
    res = run_cli("audit", "verify", "--journal", garbage)
    assert res.code == 2 and len(res.err_lines) == 1, res.err
    assert garbage.read_bytes() == b"this is not a database, " * 100


def test_verify_refuses_a_database_that_is_not_a_journal_and_leaves_it_alone(tmp_path, run_cli):
    """Pointing ``--journal`` at another program's SQLite file: the audit
    must say it is not a journal (exit 2), not call it an intact journal of 0
    records, and must not add tables to it."""
    other = tmp_path / "inventory.db"
    db = sqlite3.connect(str(other))
    db.execute("CREATE TABLE chips (colour TEXT, value INTEGER)")
    db.execute("INSERT INTO chips VALUES ('red', 5)")
    db.commit()
    db.close()
    res = run_cli("audit", "verify", "--journal", other)
    db = sqlite3.connect(str(other))
    tables = sorted(r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'"))
    db.close()
    assert tables == ["chips"]
    assert res.code == 2 and len(res.err_lines) == 1, (res.code, res.out, res.err)


def test_a_journal_that_cannot_be_read_is_an_error_line_with_the_common_prefix(tmp_path, run_cli):
    """Every command's errors start `tablesim: error:`; a
    journal the audit cannot read is one (exit 2), a verdict on one it read
    is not."""
    missing = tmp_path / "nope.sqlite"
    res = run_cli("audit", "verify", "--journal", missing)
    assert res.code == 2
    assert res.err.strip() == f"tablesim: error: journal {missing}: unreadable: no such journal file"
