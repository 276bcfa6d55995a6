"""The table's key, safe table ids and the audit's options.

A mock table's key is created on first use in the data directory (mode
0600); a configured table's is the file its configuration names. A key
open to others, missing for a keyed journal, or another table's is refused
with one line. ``audit verify`` takes ``--key``, ``--table`` and ``--all``
and gives one verdict line per file. Table ids are ``[A-Za-z0-9_-]{1,32}``.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

import pytest

from drivers.mock import MockShoe, ScriptedCards
from tablecore.errors import ConfigError, InputError
from tablesim.games.fortune3.profile import load_profile
from tablesim.games.fortune3.profile import Fortune3Settings
from tablesim.games.fortune3.table import Fortune3Table
from tablesim.harness.tableconfig import load_table_config
from tablesim.journal.attach import attach_and_recover
from tablesim.journal.audit import verify_file
from tablesim.journal.keys import create_key, default_key_path, key_id, load_key
from tablesim.journal.location import data_dir

CONFIG = """
[table]
id = "{id}"
game = "fortune3"
{extra}

[devices.shoe]
backend = "mock"
seed = 7
"""


def run_mock(run_cli, journal, game="fortune3", rounds=1):
    res = run_cli("run", "--game", game, "--mock", "--rounds", rounds, "--seed", "1", "--quiet", "--journal", journal)
    assert res.code == 0, res.err
    return res


def test_a_mock_tables_key_is_created_on_first_use_mode_0600(tmp_path, run_cli, jrows):
    journal = tmp_path / "f3.sqlite"
    run_mock(run_cli, journal)
    key_file = data_dir() / "F3-MOCK.key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    key = load_key(key_file)
    chain = jrows(journal)[0]
    assert (chain["kind"], chain["name"], chain["seq"]) == ("meta", "chain", 1)
    assert chain["data"] == {"chain": "hmac-sha256", "key_id": key_id(key), "legacy": {"records": 0, "link": "0" * 64}}
    assert key.hex() not in journal.read_bytes().hex()  # the key never enters the journal
    run_mock(run_cli, journal)  # the same key again
    assert load_key(key_file) == key and verify_file(journal).verdict == "intact"


def test_a_key_open_to_others_is_refused(tmp_path, run_cli):
    journal = tmp_path / "f3.sqlite"
    run_mock(run_cli, journal)
    key_file = data_dir() / "F3-MOCK.key"
    key_file.chmod(0o644)
    res = run_cli("run", "--game", "fortune3", "--mock", "--rounds", "1", "--journal", journal)
    assert res.code == 2 and res.err_lines == [
        f"tablesim: error: {key_file}: the key file is open to others (mode 0644): chmod 600 it"]
    res = run_cli("audit", "verify", "--journal", journal, "--key", key_file)
    assert res.code == 2 and len(res.err_lines) == 1 and "chmod 600" in res.err
    # found by the audit itself (no --key): it says why the key was not taken, not "no key was given"
    res = run_cli("audit", "verify", "--journal", journal)
    assert res.code == 2 and len(res.err_lines) == 1 and "chmod 600" in res.err and str(key_file) in res.err, res.err


def test_a_keyed_journal_without_its_key_is_refused_never_rekeyed(tmp_path, run_cli):
    journal = tmp_path / "f3.sqlite"
    run_mock(run_cli, journal)
    key_file = data_dir() / "F3-MOCK.key"
    key_file.rename(tmp_path / "elsewhere.key")
    res = run_cli("run", "--game", "fortune3", "--mock", "--rounds", "1", "--journal", journal)
    assert res.code == 2 and len(res.err_lines) == 1 and f"key ({key_file}) is missing" in res.err, res.err
    assert not key_file.exists()  # no new key was made for a keyed journal
    res = run_cli("audit", "verify", "--journal", journal)
    assert res.code == 2 and "no key was given (--key FILE)" in res.err
    res = run_cli("audit", "verify", "--journal", journal, "--key", tmp_path / "elsewhere.key")
    assert res.code == 0 and "chain intact" in res.out


def test_a_wrong_key_is_told_apart(tmp_path, run_cli):
    journal = tmp_path / "f3.sqlite"
    run_mock(run_cli, journal)
    other = tmp_path / "other.key"
    create_key(other)
    res = run_cli("audit", "verify", "--journal", journal, "--key", other)
    assert res.code == 2 and len(res.err_lines) == 1
    assert f"not the key given ({key_id(load_key(other))}): wrong key" in res.err


def test_a_configured_table_uses_the_key_file_its_configuration_names(tmp_path, run_cli):
    config = tmp_path / "t.toml"
    config.write_text(CONFIG.format(id="F3-07", extra='key_file = "keys/F3-07.key"'))
    loaded = load_table_config(config)
    assert loaded.key_file == tmp_path / "keys" / "F3-07.key"
    shoe = MockShoe(ScriptedCards([]))
    table = Fortune3Table(load_profile(), Fortune3Settings(), shoe=shoe, table_id=loaded.table_id)
    journal = tmp_path / "f3-07.sqlite"
    attach_and_recover(table, str(journal), key_file=loaded.key_file)
    table.open_round()
    table.journal.close()
    assert stat.S_IMODE(loaded.key_file.stat().st_mode) == 0o600
    assert not default_key_path("F3-07").exists()
    assert run_cli("audit", "verify", "--journal", journal).code == 2  # the default place has no key
    res = run_cli("audit", "verify", "--journal", journal, "--key", loaded.key_file)
    assert res.code == 0, res.err


@pytest.mark.parametrize("bad", ["../../../tmp/x", "F3 01", "F3/01", "", "x" * 33, "tête", "a.b", "F3|1"])
def test_table_ids_are_safe_names(bad, tmp_path):
    config = tmp_path / "t.toml"
    config.write_text(CONFIG.format(id=bad, extra=""))
    with pytest.raises(ConfigError) as info:
        load_table_config(config)
    assert info.value.where == f"{config}: table.id"
    assert "1 to 32 of A-Z a-z 0-9 _ -" in info.value.message
    with pytest.raises(InputError):
        default_key_path(bad)


@pytest.mark.parametrize("good", ["F3-01", "a", "x" * 32, "WHEEL_MOCK-2"])
def test_safe_table_ids_load(good, tmp_path):
    config = tmp_path / "t.toml"
    config.write_text(CONFIG.format(id=good, extra=""))
    assert load_table_config(config).table_id == good


def test_audit_all_and_table_give_one_verdict_per_file(tmp_path, run_cli):
    for game in ("fortune3", "wheel"):
        run_mock(run_cli, data_dir() / f"{ {'fortune3': 'F3-MOCK', 'wheel': 'WHEEL-MOCK'}[game]}.journal.sqlite", game)
    res = run_cli("audit", "verify", "--all")
    assert res.code == 0 and len(res.out.strip().splitlines()) == 2, res.out + res.err
    res = run_cli("audit", "verify", "--table", "WHEEL-MOCK")
    assert res.code == 0 and "WHEEL-MOCK.journal.sqlite" in res.out and "F3-MOCK" not in res.out
    db = sqlite3.connect(str(data_dir() / "F3-MOCK.journal.sqlite"))
    db.execute("UPDATE records SET actor = 'x' WHERE seq = 9")
    db.commit()
    db.close()
    (data_dir() / "junk.journal.sqlite").write_bytes(b"not a database" * 100)
    res = run_cli("audit", "verify", "--all")
    assert res.code == 1  # tampered outranks unreadable
    lines = (res.out + res.err).strip().splitlines()
    assert len(lines) == 3
    assert any("F3-MOCK" in line and "chain broken at record 9" in line for line in lines)
    assert any("junk" in line and "unreadable" in line for line in lines)
    assert any("WHEEL-MOCK" in line and "chain intact" in line for line in lines)
    res = run_cli("audit", "verify", "--table", "../etc/passwd")
    assert res.code == 2 and "--table" in res.err and len(res.err_lines) == 1
    assert not Path("/etc/passwd.journal.sqlite").exists() and os.path.exists("/etc/passwd")


def test_run_with_a_configuration_uses_its_key_file(tmp_path, run_cli):
    config = tmp_path / "t.toml"
    config.write_text(CONFIG.format(id="F3-08", extra='key_file = "F3-08.key"'))
    journal = tmp_path / "f3-08.sqlite"
    res = run_cli("run", "--config", config, "--rounds", "1", "--quiet", "--journal", journal)
    assert res.code == 0, res.err
    assert (tmp_path / "F3-08.key").exists() and not default_key_path("F3-08").exists()
    assert run_cli("audit", "verify", "--journal", journal, "--key", tmp_path / "F3-08.key").code == 0


def test_another_tables_journal_is_refused_as_such(tmp_path, run_cli):
    """A journal is one table's (its chain is under that table's key): a
    second table started on it is told whose it is, not that it was
    tampered with, and writes nothing."""
    journal = tmp_path / "shared.sqlite"
    run_mock(run_cli, journal)
    assert run_cli("run", "--game", "wheel", "--mock", "--rounds", "1", "--quiet", "--journal", tmp_path / "w.sqlite").code == 0
    before = journal.read_bytes()
    res = run_cli("run", "--game", "wheel", "--mock", "--rounds", "1", "--journal", journal)
    assert res.code == 2 and res.err_lines == [
        f"tablesim: error: {journal}: the journal is table F3-MOCK's, not table WHEEL-MOCK's: each table writes a "
        "journal of its own (name another file with --journal)"], res.err
    assert journal.read_bytes() == before
