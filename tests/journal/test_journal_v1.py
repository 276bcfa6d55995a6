"""Journals written by the release before typed records
still verify, recall and recover with the current code.

The files under ``data/`` were written by that release (see its README);
each test works on a copy, so the committed files never change.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from decimal import Decimal
from pathlib import Path

import pytest

from drivers.mock.wheel import Spin
from tablesim.journal.audit import verify
from tablesim.journal.invariants import check
from tablesim.journal.keys import create_key, default_key_path
from tablesim.journal.sealing import seal_legacy_journal
from tablesim.journal.journal import Journal

DATA = Path(__file__).parent / "data"
FINISHED = ["v1-fortune3", "v1-football", "v1-wheel"]
OPEN = json.loads((DATA / "v1-open-rounds.json").read_text())
F3_CARDS = "AS 9D 2C KS AH TD 2D QC 7C JD 2H 4H".split()
FB_CARDS = "4S 5H 2C 3D KS 7D 6C".split()
SPINS = [Spin(17, 2.4), Spin(3, 4.1)]
NAMES = sorted(p.stem for p in DATA.glob("*.sqlite"))


def copy(tmp_path: Path, name: str) -> Path:
    path = tmp_path / f"{name}.sqlite"
    shutil.copyfile(DATA / f"{name}.sqlite", path)
    return path


def test_every_v1_journal_is_here():
    assert NAMES == sorted(FINISHED + list(OPEN))


@pytest.mark.parametrize("name", NAMES)
def test_a_v1_journal_verifies_and_keeps_its_promises(name, tmp_path, run_cli):
    path = copy(tmp_path, name)
    journal = Journal(path, readonly=True)
    try:
        assert verify(journal).ok
        assert check(journal, allow_open_last=True) == []
    finally:
        journal.close()
    result = run_cli("audit", "verify", "--journal", path)
    assert result.code == 0, result.err


@pytest.mark.parametrize("name", NAMES)
def test_a_v1_journal_is_recalled_as_that_release_recalled_it(name, tmp_path, run_cli):
    path = copy(tmp_path, name)
    result = run_cli("history", "--journal", path, "--json")
    assert result.code == 0, result.err
    expected = [json.loads(line) for line in (DATA / f"{name}.history.jsonl").read_text().splitlines()]
    got = result.json_lines()
    assert len(got) == len(expected)
    for now, then in zip(got, expected):
        # Everything that release said about each round is said the same way
        # (later releases may say more, e.g. the round's rule profile).
        assert {k: now.get(k) for k in then} == then


def stakes_of(bets: dict, result: dict) -> dict:
    """The stakes at risk of a settled round: its bets, and a Play equal to
    the Ante on each box that played."""
    boxes = result["outcome"].get("boxes", {})
    out = {}
    for pos, per in bets.items():
        out[pos] = {}
        for bet, amount in per.items():
            out[pos][bet] = amount
            if bet == "ante" and (boxes.get(pos) or {}).get("decision") == "play":
                out[pos]["play"] = amount
    return out


def rig_for(name, path, used, f3, fb, wheel):
    # A table never seals a legacy journal by itself: the operator does, once
    # (`tablesim journal seal-legacy`, under a key already there).
    db = sqlite3.connect(str(path))
    table_id = db.execute("SELECT table_id FROM records ORDER BY seq LIMIT 1").fetchone()[0]
    db.close()
    create_key(default_key_path(table_id))
    seal_legacy_journal(str(path), None, None)
    if name.startswith("v1-fortune3-open-deal"):
        return f3(path, cards=(F3_CARDS * 2)[used:])
    if name.startswith("v1-fortune3"):
        return f3(path, cards=F3_CARDS[used:])
    if name.startswith("v1-football"):
        return fb(path, cards=FB_CARDS[used:])
    return wheel(path, spins=SPINS[used:])


@pytest.mark.parametrize("name", sorted(OPEN))
def test_a_round_left_open_by_that_release_recovers_and_settles_the_same(name, tmp_path, f3, fb, wheel):
    expected = OPEN[name]
    path = copy(tmp_path, name)
    rig = rig_for(name, path, expected["used"], f3, fb, wheel)
    assert rig.report is not None and rig.report.describe() == expected["report"]
    snapshot = json.loads(json.dumps(rig.snapshot(), default=str))
    for spin in snapshot.get("spins", []):
        # Turns are exact numbers now (that release stored a float): the same value.
        spin["turns"] = Decimal(str(spin["turns"]))
        # How the turns were obtained is said now (that release knew only the sensor's own count: "sensor")
        assert spin.pop("turns_source", "sensor") == "sensor" and spin.pop("turns_error", None) in (None, "0", 0)
    for spin in expected["snapshot"].get("spins", []):
        spin["turns"] = Decimal(str(spin["turns"]))
    # The incident field is a typed record now; the rest is the table as that release left it.
    assert {k: v for k, v in snapshot.items() if k != "incident"} == {
        k: v for k, v in expected["snapshot"].items() if k != "incident"}
    assert snapshot["incident"] is None and expected["snapshot"]["incident"] is None
    rig.finish()  # as when the expectations were made: every box still to decide plays
    result = json.loads(json.dumps(rig.table.result.as_json(), default=str))
    # Everything that release's result said, said the same way; a settled
    # result now records its stakes at risk too: the bets placed (and a Play
    # for each box that played)
    assert {k: result.get(k) for k in expected["result"]} == expected["result"]
    assert set(result) - set(expected["result"]) == ({"stakes"} if result["status"] == "settled" else set())
    if result["status"] == "settled":
        assert result["stakes"] == stakes_of(rig.table.book.snapshot(), result)
    rig.journal.close()
    journal = Journal(path, readonly=True)
    try:
        assert verify(journal).ok
        assert check(journal, allow_open_last=False) == []
    finally:
        journal.close()
