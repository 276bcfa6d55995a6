"""Journals written before keyed chains (issue 12: legacy journals).

The files in ``data/`` were written by the release before keyed chains
(commit 624c946): plain SHA-256 links, no chain record, no head MAC, no
checkpoint, no profile per round. How they are treated:

- ``audit verify`` checks their plain chain and head and says "legacy chain
  intact" (exit 0): it shows no careless edit but proves nothing against a
  forger, since anyone can compute a plain link;
- the first table that opens one checks the whole plain chain, then writes
  the chain record, which seals the legacy records (their count and last
  link, under the table's key); every later record is keyed. The audit then
  says "intact (N legacy records sealed before the keyed chain)";
- a table that already has a key never seals an unkeyed journal (a keyed
  journal re-chained without its key looks exactly like one): it refuses to
  start, and the audit with that key says tampered.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from tablecore.errors import InputError
from tablesim.journal.audit import verify_file
from tablesim.journal.keys import create_key, default_key_path

DATA = Path(__file__).parent / "data"
FINISHED = {"v1-fortune3": "fortune3", "v1-football": "football", "v1-wheel": "wheel"}


def copy(name: str, tmp_path: Path) -> Path:
    path = tmp_path / f"{name}.sqlite"
    shutil.copyfile(DATA / f"{name}.sqlite", path)
    return path


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
def test_a_table_seals_a_legacy_journal_and_goes_on_keyed(name, game, tmp_path, run_cli):
    path = copy(name, tmp_path)
    legacy = count(path)
    res = run_cli("run", "--game", game, "--mock", "--rounds", "2", "--seed", "1", "--quiet", "--journal", path)
    assert res.code == 0, res.err
    result = verify_file(path)
    assert result.verdict == "intact" and result.legacy == legacy and result.records > legacy
    res = run_cli("audit", "verify", "--journal", path)
    assert res.code == 0 and f"({legacy} legacy records sealed before the keyed chain)" in res.out
    # the rounds go on from the legacy ones, and the new ones name their profile
    rounds = res = run_cli("history", "--journal", path, "--json").json_lines()
    assert [r["round_id"][-6:] for r in rounds][-5:] == ["000001", "000002", "000003", "000004", "000005"]
    assert "profile" not in rounds[0] and rounds[-1]["profile"]["name"].startswith("macau-")


def test_an_open_legacy_round_is_recovered_and_sealed(f3, tmp_path):
    path = copy("v1-fortune3-open-decisions", tmp_path)
    legacy = count(path)
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
    with pytest.raises(InputError, match="holds no keyed record, but table F3J already has a key"):
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
    with pytest.raises(InputError, match=f"record {seq}: record {seq} was altered"):
        f3(path, cards=[])
    assert verify_file(path).verdict == "tampered"
