"""Tampering with a keyed journal.

Each case below edits the journal file as an intruder without the table's
key would, with plain sqlite3 and the code's own (unkeyed) hash function,
and checks the audit's verdict. Every tampering is caught (exit 1, the first
bad record named) except these, which a single file cannot show and only an
off-PC anchor catches (the studio issue, ``audit verify --anchor``):

- ``rollback_to_an_older_copy``: the whole file replaced by an earlier copy
  of itself (its records, head and checkpoint were all genuine once);
- ``truncate_with_an_old_head``: the last records deleted and the head row
  put back from an earlier copy of the file, taken when the journal ended
  there;
- ``delete_the_file``: the audit then says the file is missing (exit 2),
  which says nothing of what it held.

And the recovery-from-tampered case: the open round's bet raised with plain
SQL while the table is down is never replayed: the table refuses to start,
naming the first bad record.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from tablecore.errors import InputError
from tablesim.journal.audit import verify_file
from tablesim.journal.chain import record_hash, record_link
from tablesim.journal.canonical import canonical

from processes import Served, tablesim
from test_journal_audit import sql  # (one way to edit a journal behind the table's back)

COLUMNS = "seq, ts, table_id, round_id, kind, name, actor, data, prev_hash, hash"


@pytest.fixture
def journal(tmp_path, run_cli):
    path = tmp_path / "f3.journal.sqlite"
    res = run_cli("run", "--game", "fortune3", "--mock", "--rounds", "3", "--seed", "1", "--quiet", "--journal", path)
    assert res.code == 0, res.err
    return path


def rows(path) -> list[list]:
    db = sqlite3.connect(str(path))
    try:
        return [list(r) for r in db.execute(f"SELECT {COLUMNS} FROM records ORDER BY seq")]
    finally:
        db.close()


def first(path, where: str) -> list:
    db = sqlite3.connect(str(path))
    try:
        return list(db.execute(f"SELECT {COLUMNS} FROM records WHERE {where} ORDER BY seq LIMIT 1").fetchone())
    finally:
        db.close()


def rewrite(path, records: list[list], *, link=None, head: bool = True) -> None:
    """Replace every record by ``records``, renumbered and re-linked from the
    genesis with ``link`` (default: the code's own plain hash), head updated."""
    link = link or (lambda prev, seq, *fields: record_hash(prev, seq, *fields))
    prev = "0" * 64
    out = []
    for seq, r in enumerate(records, 1):
        digest = link(prev, seq, *r[1:8])
        out.append((seq, *r[1:8], prev, digest))
        prev = digest
    stmts = ["DELETE FROM records", *[("INSERT INTO records VALUES (?,?,?,?,?,?,?,?,?,?)", r) for r in out]]
    if head:
        stmts.append(("UPDATE head SET seq = ?, hash = ?", (len(out), prev)))
    sql(path, *stmts)


def bump_bet(record: list, amount: str = "5000") -> list:
    data = json.loads(record[7])
    if "amount" in data:
        data["amount"] = amount
    else:
        data["args"][2] = amount
    return [*record[:7], canonical(data), *record[8:]]


# --- the tamperings ---------------------------------------------------------------------


def edit_a_bet(path):
    seq = first(path, "kind = 'event' AND name = 'bet'")[0]
    sql(path, ("UPDATE records SET data = replace(data, '\"amount\":\"', '\"amount\":\"9') WHERE seq = ?", (seq,)))


def edit_a_timestamp(path):
    sql(path, "UPDATE records SET ts = '2020-01-01T00:00:00.000000+00:00' WHERE seq = 20")


def edit_an_actor(path):
    sql(path, "UPDATE records SET actor = 'pit boss' WHERE seq = 15")


def edit_the_profile_a_round_names(path):
    sql(path, "UPDATE records SET data = replace(data, 'macau-2008', 'house-rules') WHERE kind = 'meta' AND name = 'round'")


def delete_a_middle_record(path):
    sql(path, "DELETE FROM records WHERE seq = 30")


def delete_the_chain_record(path):
    sql(path, "DELETE FROM records WHERE seq = 1")


def swap_two_records(path):
    a, b = first(path, "seq = 10"), first(path, "seq = 11")
    sets = ", ".join(f"{c} = ?" for c in COLUMNS.split(", ")[1:])
    sql(path, (f"UPDATE records SET {sets} WHERE seq = 10", (*b[1:],)), (f"UPDATE records SET {sets} WHERE seq = 11", (*a[1:],)))


def insert_a_forged_record(path):
    records = rows(path)
    bet = first(path, "kind = 'event' AND name = 'bet'")
    records.insert(bet[0], bump_bet(bet))  # a second bet right after the first
    k = bet[0] + 1
    prev = records[k - 2][9]
    forged = (k, *records[k - 1][1:8], prev, record_hash(prev, k, *records[k - 1][1:8]))
    sql(path, ("UPDATE records SET seq = -(seq + 1) WHERE seq >= ?", (k,)), "UPDATE records SET seq = -seq WHERE seq < 0",
        ("INSERT INTO records VALUES (?,?,?,?,?,?,?,?,?,?)", forged))


def rechain_after_an_edit(path):
    """Raise a bet, then re-link every record with the code's own hash."""
    records = rows(path)
    i = next(i for i, r in enumerate(records) if r[4] == "event" and r[5] == "bet")
    records[i] = bump_bet(records[i])
    rewrite(path, records)


def rechain_under_another_key(path):
    """Raise a bet and re-link everything under a key of the intruder's own."""
    records = rows(path)
    i = next(i for i, r in enumerate(records) if r[4] == "event" and r[5] == "bet")
    records[i] = bump_bet(records[i])
    rewrite(path, records, link=lambda prev, seq, *f: record_link(b"k" * 32, prev, seq, *f))


def rechain_as_a_legacy_journal(path):
    """Drop the chain's own records and seals, and re-link the rest as a
    journal from before keyed chains."""
    records = [r for r in rows(path) if r[4] != "meta"]
    rewrite(path, records, head=False)
    sql(path, "DELETE FROM head", "DROP TABLE checkpoint")


def remove_a_round_and_renumber(path):
    records = rows(path)
    second = sorted({r[3] for r in records if r[3]})[1]
    rewrite(path, [r for r in records if r[3] != second])


def remove_a_round_keeping_the_links(path):
    records = rows(path)
    second = sorted({r[3] for r in records if r[3]})[1]
    kept = [r for r in records if r[3] != second]
    sql(path, "DELETE FROM records", *[("INSERT INTO records VALUES (?,?,?,?,?,?,?,?,?,?)", (n, *r[1:]))
                                       for n, r in enumerate(kept, 1)])


def append_a_forged_record(path):
    last = rows(path)[-1]
    seq = last[0] + 1
    fields = (last[1], last[2], last[3], "event", "result", "table", '{"status":"settled"}')
    digest = record_hash(last[9], seq, *fields)
    sql(path, ("INSERT INTO records VALUES (?,?,?,?,?,?,?,?,?,?)", (seq, *fields, last[9], digest)),
        ("UPDATE head SET seq = ?, hash = ?", (seq, digest)))


def delete_the_tail(path):
    sql(path, "DELETE FROM records WHERE seq > 40")


def delete_the_tail_and_update_the_head(path):
    n, link = first(path, "seq = 40")[0], first(path, "seq = 40")[9]
    sql(path, "DELETE FROM records WHERE seq > 40", ("UPDATE head SET seq = ?, hash = ?", (n, link)))


def delete_the_tail_and_drop_the_head(path):
    sql(path, "DELETE FROM records WHERE seq > 40", "DROP TABLE head")


def delete_the_tail_and_empty_the_head(path):
    sql(path, "DELETE FROM records WHERE seq > 40", "DELETE FROM head")


def delete_the_tail_behind_the_checkpoint(path):
    sql(path, "DELETE FROM records WHERE seq > 5", "DELETE FROM head")


def delete_everything(path):
    sql(path, "DELETE FROM records", "DELETE FROM head", "DELETE FROM checkpoint")


def edit_the_checkpoint(path):
    sql(path, "UPDATE checkpoint SET seq = 3, hash = (SELECT hash FROM records WHERE seq = 3)")


CAUGHT = [
    edit_a_bet, edit_a_timestamp, edit_an_actor, edit_the_profile_a_round_names, delete_a_middle_record,
    delete_the_chain_record, swap_two_records, insert_a_forged_record, rechain_after_an_edit,
    rechain_under_another_key, rechain_as_a_legacy_journal, remove_a_round_and_renumber,
    remove_a_round_keeping_the_links, append_a_forged_record, delete_the_tail, delete_the_tail_and_update_the_head,
    delete_the_tail_and_drop_the_head, delete_the_tail_and_empty_the_head, delete_the_tail_behind_the_checkpoint,
    delete_everything, edit_the_checkpoint,
]


@pytest.mark.parametrize("tamper", CAUGHT, ids=[f.__name__ for f in CAUGHT])
def test_each_tampering_is_caught(tamper, journal, run_cli):
    assert verify_file(journal).verdict == "intact"
    tamper(journal)
    res = run_cli("audit", "verify", "--journal", journal)
    assert res.code == 1, (res.out, res.err)
    assert len(res.err_lines) == 1 and "Traceback" not in res.err
    assert "chain broken at record" in res.err
    result = verify_file(journal)
    assert result.verdict == "tampered" and result.first_bad is not None and result.reason


# --- what only an off-PC anchor catches ---------------------------------------------------


def test_rollback_to_an_older_copy_is_only_caught_by_an_anchor(tmp_path, run_cli):
    path = tmp_path / "f3.journal.sqlite"
    assert run_cli("run", "--game", "fortune3", "--mock", "--rounds", "2", "--seed", "1", "--quiet", "--journal", path).code == 0
    shutil.copyfile(path, tmp_path / "old.sqlite")
    assert run_cli("run", "--game", "fortune3", "--mock", "--rounds", "2", "--seed", "2", "--quiet", "--journal", path).code == 0
    shutil.copyfile(tmp_path / "old.sqlite", path)
    assert run_cli("audit", "verify", "--journal", path).code == 0  # ANCHOR ONLY: genuine, just older


def test_truncate_with_an_old_head_is_only_caught_by_an_anchor(tmp_path, run_cli):
    path = tmp_path / "f3.journal.sqlite"
    assert run_cli("run", "--game", "fortune3", "--mock", "--rounds", "2", "--seed", "1", "--quiet", "--journal", path).code == 0
    db = sqlite3.connect(str(path))
    old_head = db.execute("SELECT seq, hash, mac FROM head").fetchone()
    db.close()
    assert run_cli("run", "--game", "fortune3", "--mock", "--rounds", "2", "--seed", "2", "--quiet", "--journal", path).code == 0
    sql(path, ("DELETE FROM records WHERE seq > ?", (old_head[0],)), ("UPDATE head SET seq = ?, hash = ?, mac = ?", old_head))
    # (the checkpoint now names a record beyond the end: a careful intruder restores it from the copy too)
    db = sqlite3.connect(str(path))
    behind = db.execute("SELECT seq FROM checkpoint").fetchone()[0] > old_head[0]
    db.close()
    assert run_cli("audit", "verify", "--journal", path).code == (1 if behind else 0)


def test_delete_the_file_is_only_caught_by_an_anchor(journal, run_cli):
    journal.unlink()
    res = run_cli("audit", "verify", "--journal", journal)
    assert res.code == 2 and "no such journal file" in res.err


# --- never replayed: the recovery-from-tampered case --------------------------------------


def test_a_tampered_open_round_is_never_replayed(f3, tmp_path, jrows):
    path = tmp_path / "f3.sqlite"
    rig = f3(path, cards="AS 9D 2C KS AH TD 2D QC")
    rig.table.open_round()
    rig.table.place_bet("1", "ante", 100)
    del rig  # power loss: the round is open, its bet of 100 committed
    for seq, name in [(r["seq"], r["name"]) for r in jrows(path) if r["name"] in ("place_bet", "bet")]:
        rec = first(path, f"seq = {seq}")
        sql(path, ("UPDATE records SET data = ? WHERE seq = ?", (bump_bet(rec)[7], seq)))
    assert [r["data"]["amount"] for r in jrows(path) if r["name"] == "bet"] == ["5000"]
    bad = next(r["seq"] for r in jrows(path) if r["name"] == "place_bet")
    count = len(jrows(path))
    with pytest.raises(InputError) as info:
        f3(path, cards="AS 9D 2C KS AH TD 2D QC")
    text = str(info.value)
    assert f"record {bad}" in text and "nothing was replayed" in text and "tablesim audit verify" in text
    assert len(jrows(path)) == count  # nothing written


@pytest.mark.slow
def test_a_table_process_refuses_to_start_on_a_tampered_open_round(tmp_path, env):
    journal = tmp_path / "f3.journal.sqlite"
    first_run = Served(env, journal)
    assert first_run.post("/api/actions/open_round").status_code == 200
    assert first_run.post("/api/bets", {"position": "1", "bet": "ante", "amount": "100"}).status_code == 200
    first_run.stop(9)  # SIGKILL: the round stays open
    # (the console's bet is its group's one record: ``[ref, position, bet, amount, player]``)
    seq = first(journal, "kind = 'input' AND name = 'place_bets'")[0]
    sql(journal, ("UPDATE records SET data = replace(data, '\"ante\",\"100\"', '\"ante\",\"5000\"') WHERE seq = ?", (seq,)))
    res = tablesim(env, "run", "--game", "fortune3", "--mock", "--rounds", "1", "--journal", journal)
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert res.returncode == 2 and len(lines) == 1, res.stdout + res.stderr
    assert f"record {seq}" in lines[0] and "tablesim audit verify" in lines[0]
    assert "+10000" not in res.stdout and "settled" not in res.stdout


def test_rows_helper_sees_a_keyed_journal(journal):
    """(the fixture's journal: keyed from record 1, three rounds, each with its first record)"""
    records = rows(journal)
    assert (records[0][4], records[0][5]) == ("meta", "chain")
    assert [r[3] for r in records if (r[4], r[5]) == ("meta", "round")] == [f"F3-MOCK-00000{n}" for n in (1, 2, 3)]
    assert Path(str(journal) + ".lock").exists()


def test_a_table_never_begins_a_new_history_on_an_emptied_journal(journal, run_cli):
    """Every record (and the head and checkpoint) deleted: a table started on
    the file refuses, and writes nothing (it would otherwise seal a fresh
    chain in it, which the audit would then call intact)."""
    delete_everything(journal)
    before = rows(journal)
    res = run_cli("run", "--game", "fortune3", "--mock", "--rounds", "1", "--journal", journal)
    assert res.code == 2 and len(res.err_lines) == 1 and "every record was deleted" in res.err, res.err
    assert rows(journal) == before == []
    assert run_cli("audit", "verify", "--journal", journal).code == 1
    # a new journal (no file yet) begins as always, its tables made with its first record
    fresh = journal.parent / "new.journal.sqlite"
    assert run_cli("run", "--game", "fortune3", "--mock", "--rounds", "1", "--quiet", "--journal", fresh).code == 0
    assert run_cli("audit", "verify", "--journal", fresh).code == 0


def test_the_consoles_history_never_shows_a_forged_round(journal, env):
    """A closed round's bet raised with plain SQL while the table was down
    (behind the checkpoint, so the table starts): the console's history
    refuses to show it, naming the record; a later round still shows."""
    seq = edit_a_bet_of(journal, "F3-MOCK-000001")
    served = Served(env, journal)
    try:
        res = served.client.get("/api/history", params={"round": "F3-MOCK-000001"})
        assert res.status_code == 409 and f"record {seq} of the journal was altered" in res.json()["reason"], res.text
        assert served.client.get("/api/history", params={"round": "F3-MOCK-000003"}).status_code == 200
    finally:
        assert served.stop() == 0


def edit_a_bet_of(path, round_id: str) -> int:
    seq = first(path, f"kind = 'event' AND name = 'bet' AND round_id = '{round_id}'")[0]
    sql(path, ("UPDATE records SET data = replace(data, '\"amount\":\"', '\"amount\":\"9') WHERE seq = ?", (seq,)))
    return seq
