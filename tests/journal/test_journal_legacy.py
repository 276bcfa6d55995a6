"""Journals written before keyed chains.

The files in ``data/`` were written by the release before keyed chains
(commit 624c946): plain SHA-256 links, no chain record, no head MAC, no
checkpoint, no profile per round. How they are treated:

- ``audit verify`` checks their plain chain and head and says "legacy chain
  intact" (exit 0): it shows no careless edit but proves nothing against a
  forger, since anyone can compute a plain link;
- a table never seals one by itself (a keyed journal re-chained without its
  key, with an edit in it, looks exactly like one): it refuses to start.
  The operator seals it once, on purpose, with ``tablesim journal
  seal-legacy``, under a key that already exists: the whole plain chain is
  checked, then the chain record seals the legacy records (their count and
  last link); every later record is keyed. The audit then says "intact (N
  legacy records sealed before the keyed chain)";
- a journal with records whose key is missing never starts (it would be
  keyed anew).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from tablecore.errors import InputError
from tablesim.journal.audit import verify_file
from tablesim.journal.chain import record_hash
from tablesim.journal.keys import create_key, default_key_path
from tablesim.journal.sealing import seal_legacy_journal

DATA = Path(__file__).parent / "data"
FINISHED = {"v1-fortune3": "fortune3", "v1-football": "football", "v1-wheel": "wheel"}


def copy(name: str, tmp_path: Path) -> Path:
    path = tmp_path / f"{name}.sqlite"
    shutil.copyfile(DATA / f"{name}.sqlite", path)
    return path


def owner(path: Path) -> str:
    db = sqlite3.connect(str(path))
    try:
        return db.execute("SELECT table_id FROM records ORDER BY seq LIMIT 1").fetchone()[0]
    finally:
        db.close()


def seal(path: Path) -> None:
    """What an operator does, once, to take a legacy journal on: a key, then the seal."""
    create_key(default_key_path(owner(path)))
    seal_legacy_journal(str(path), None, None)


def count(path: Path) -> int:
    db = sqlite3.connect(str(path))
    try:
        return db.execute("SELECT COUNT(*) FROM records").fetchone()[0]
    finally:
        db.close()


@pytest.mark.parametrize("name", sorted(p.stem for p in DATA.glob("*.sqlite")))
def test_a_legacy_journal_audits_as_a_legacy_chain(name, tmp_path, run_cli):
    path = copy(name, tmp_path)
    res = run_cli("audit", "verify", "--journal", path)
    assert res.code == 0, res.err
    assert f"{count(path)} records, legacy chain intact (unkeyed" in res.out
    # and its history reads as that release wrote it
    expected = DATA / f"{name}.history.jsonl"
    if expected.exists():
        res = run_cli("history", "--journal", path, "--json")
        assert res.code == 0, res.err
        assert res.json_lines() == [json.loads(line) for line in expected.read_text().splitlines() if line.strip()]


@pytest.mark.parametrize("name, game", sorted(FINISHED.items()))
def test_a_legacy_journal_is_sealed_only_on_purpose_then_goes_on_keyed(name, game, tmp_path, run_cli):
    path = copy(name, tmp_path)
    legacy = count(path)
    before = path.read_bytes()
    run = ("run", "--game", game, "--mock", "--rounds", "2", "--seed", "1", "--quiet", "--journal", path)
    res = run_cli(*run)  # no key: never keyed anew
    assert res.code == 2 and len(res.err_lines) == 1 and "key" in res.err and "missing" in res.err, res.err
    res = run_cli("journal", "seal-legacy", "--journal", path)
    assert res.code == 2 and len(res.err_lines) == 1 and "new-key" in res.err, res.err
    assert run_cli("journal", "new-key", "--table", owner(path)).code == 0
    res = run_cli(*run)  # a key, but the table does not seal it by itself
    assert res.code == 2 and len(res.err_lines) == 1 and "seal-legacy" in res.err, res.err
    assert path.read_bytes() == before
    res = run_cli("journal", "seal-legacy", "--journal", path)
    assert res.code == 0 and f"{legacy} legacy records sealed" in res.out, res.err
    res = run_cli("journal", "seal-legacy", "--journal", path)  # once
    assert res.code == 2 and "already keyed" in res.err, res.err
    res = run_cli(*run)
    assert res.code == 0, res.err
    result = verify_file(path)
    assert result.verdict == "intact" and result.legacy == legacy and result.records > legacy
    res = run_cli("audit", "verify", "--journal", path)
    assert res.code == 0 and f"({legacy} legacy records sealed before the keyed chain)" in res.out
    # the rounds go on from the legacy ones, and the new ones name their profile
    rounds = res = run_cli("history", "--journal", path, "--json").json_lines()
    assert [r["round_id"][-6:] for r in rounds][-5:] == ["000001", "000002", "000003", "000004", "000005"]
    assert "profile" not in rounds[0] and rounds[-1]["profile"]["name"].startswith("macau-")


def test_a_legacy_rechain_with_an_edit_and_the_key_deleted_is_never_sealed(tmp_path, run_cli):
    """The forger's way: a history re-chained with plain links (anyone can
    compute them) with one result edited, and the key file deleted. The table
    refused before it could make a new key and seal the forgery."""
    path = copy("v1-fortune3", tmp_path)
    db = sqlite3.connect(str(path))
    seq = db.execute("SELECT seq FROM records WHERE kind = 'event' AND name = 'result' ORDER BY seq").fetchone()[0]
    db.execute("UPDATE records SET data = replace(data, '\"status\"', '\"forged\":1,\"status\"') WHERE seq = ?",
               (seq,))
    prev = db.execute("SELECT hash FROM records WHERE seq = ?", (seq - 1,)).fetchone()[0]
    for row in db.execute("SELECT * FROM records WHERE seq >= ? ORDER BY seq", (seq,)).fetchall():
        link = record_hash(prev, *row[:8])
        db.execute("UPDATE records SET prev_hash = ?, hash = ? WHERE seq = ?", (prev, link, row[0]))
        prev = link
    db.execute("UPDATE head SET hash = ?", (prev,))
    db.commit()
    db.close()
    assert verify_file(path).verdict == "legacy"  # the plain chain holds: it proves nothing
    key = default_key_path(owner(path))
    assert not key.exists()
    res = run_cli("run", "--game", "fortune3", "--mock", "--rounds", "1", "--quiet", "--journal", path)
    assert res.code == 2 and len(res.err_lines) == 1, res.err
    assert not key.exists()  # no new key made, nothing sealed
    assert verify_file(path).verdict == "legacy"


def test_an_open_legacy_round_is_recovered_and_sealed(f3, tmp_path):
    path = copy("v1-fortune3-open-decisions", tmp_path)
    legacy = count(path)
    seal(path)
    rig = f3(path, cards=[])
    assert rig.report is not None and rig.report.round_id == "F3J-000001"
    assert rig.report.action == "resume"
    rig.table.journal.close()
    result = verify_file(path)
    assert result.verdict == "intact" and result.legacy == legacy


def test_a_legacy_journal_meeting_an_existing_key_is_refused(f3, tmp_path, run_cli):
    path = copy("v1-fortune3-open-decisions", tmp_path)
    create_key(default_key_path("F3J"))
    before = path.read_bytes()
    with pytest.raises(InputError, match="holds no keyed record: .*seal-legacy"):
        f3(path, cards=[])
    assert path.read_bytes() == before
    res = run_cli("audit", "verify", "--journal", path)
    assert res.code == 1 and "no keyed record, although the table has a key" in res.err


def test_an_edited_legacy_journal_is_never_replayed(f3, tmp_path):
    path = copy("v1-fortune3-open-decisions", tmp_path)
    db = sqlite3.connect(str(path))
    seq = db.execute("SELECT seq FROM records WHERE kind = 'event' AND name = 'bet' ORDER BY seq DESC").fetchone()[0]
    db.execute("UPDATE records SET data = replace(data, '\"amount\":\"', '\"amount\":\"9') WHERE seq = ?", (seq,))
    db.commit()
    db.close()
    create_key(default_key_path("F3J"))
    with pytest.raises(InputError, match=f"not sealed: .*record {seq}"):
        seal_legacy_journal(str(path), None, None)
    with pytest.raises(InputError, match="holds no keyed record"):
        f3(path, cards=[])
    assert verify_file(path).verdict == "tampered"
