"""``tablesim audit verify --json``: every journal's verdict in one object, the exit status as without it."""

from __future__ import annotations

import json
import sqlite3

from clirun import tablesim


def played(tmp_path, name: str) -> str:
    path = str(tmp_path / f"{name}.sqlite")
    res = tablesim("run", "--game", "wheel", "--mock", "--rounds", "2", "--seed", "4", "--journal", path, "--quiet",
                   "--table-id", name)
    assert res.returncode == 0, res.stderr
    return path


def test_verdicts_of_an_intact_a_tampered_and_an_unreadable_journal(tmp_path):
    intact, tampered = played(tmp_path, "T1"), played(tmp_path, "T2")
    db = sqlite3.connect(tampered)
    with db:
        db.execute("UPDATE records SET ts = '2020-01-01T00:00:00.000000+00:00' WHERE seq = 20")
    db.close()
    unreadable = tmp_path / "not-a-journal.sqlite"
    unreadable.write_text("not a database")
    res = tablesim("audit", "verify", "--journal", intact, "--journal", tampered, "--json")
    assert res.returncode == 1 and res.stderr == ""
    doc = json.loads(res.stdout)
    assert (doc["ok"], doc["exit_code"]) == (False, 1)
    first, second = doc["journals"]
    assert (first["journal"], first["verdict"], first["ok"], first["table_id"]) == (intact, "intact", True, "T1")
    assert first["records"] > 20 and first["first_bad"] is None
    assert (second["verdict"], second["ok"], second["first_bad"]) == ("tampered", False, 20)
    res = tablesim("audit", "verify", "--journal", intact, "--journal", str(unreadable), "--json")
    assert res.returncode == 2
    assert [j["verdict"] for j in json.loads(res.stdout)["journals"]] == ["intact", "unreadable"]
    assert res.stderr.count("\n") == 1 and res.stderr.startswith("tablesim: error: journal ")
