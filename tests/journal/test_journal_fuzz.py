"""Byte flips in a journal file.

Every single-byte flip of a small journal gives a verdict (exit 0, 1 or 2,
one line, never a traceback), and every flip that changes what the file
holds (a record, the head or the checkpoint, as SQLite reads them) is
caught: exit 1 or 2, never "intact". Flips in free space or in bytes SQLite
ignores may leave the journal intact; an index or page flip that SQLite's
integrity check notices is "corrupt".
"""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from examples import examples

FLIPS = 320


def content(path: Path):
    """What the file holds as SQLite reads it, or None if it cannot be read."""
    try:
        db = sqlite3.connect(path.resolve().as_uri() + "?immutable=1", uri=True)
        db.text_factory = bytes
        try:
            return (
                db.execute("SELECT * FROM records ORDER BY seq").fetchall(),
                db.execute("SELECT * FROM head").fetchall(),
                db.execute("SELECT * FROM checkpoint").fetchall(),
                db.execute("SELECT type, name, sql FROM sqlite_master ORDER BY name").fetchall(),
            )
        finally:
            db.close()
    except (sqlite3.DatabaseError, UnicodeDecodeError):  # (sqlite's message quoting the damaged schema)
        return None


@pytest.fixture(scope="module")
def small_journal(tmp_path_factory):
    from click.testing import CliRunner

    from tablesim.cli.main import cli

    root = tmp_path_factory.mktemp("fuzz")
    path = root / "w.journal.sqlite"
    import os

    old = os.environ.get("XDG_DATA_HOME")
    os.environ["XDG_DATA_HOME"] = str(root / "xdg")
    try:
        res = CliRunner().invoke(cli, ["run", "--game", "wheel", "--mock", "--rounds", "1", "--seed", "3", "--quiet",
                                       "--journal", str(path)])
    finally:
        if old is None:
            del os.environ["XDG_DATA_HOME"]
        else:
            os.environ["XDG_DATA_HOME"] = old
    assert res.exit_code == 0, res.output
    assert not Path(f"{path}-wal").exists()
    return path, root / "xdg"


def test_every_byte_flip_gets_a_verdict_and_content_changes_are_caught(small_journal, tmp_path, monkeypatch, run_cli):
    original, xdg = small_journal
    monkeypatch.setenv("XDG_DATA_HOME", str(xdg))  # the table's key
    data = original.read_bytes()
    assert run_cli("audit", "verify", "--journal", original).code == 0
    baseline = content(original)
    rng = random.Random(12)
    # evenly over the whole file (header, every page), each with a random non-zero xor
    positions = sorted({i * len(data) // FLIPS + rng.randrange(max(1, len(data) // FLIPS)) for i in range(FLIPS)})
    assert len(positions) >= 300
    verdicts = {0: 0, 1: 0, 2: 0}
    target = tmp_path / "flipped.journal.sqlite"
    for pos in positions:
        flipped = bytearray(data)
        flipped[pos] ^= rng.randrange(1, 256)
        target.write_bytes(bytes(flipped))
        res = run_cli("audit", "verify", "--journal", target)
        where = f"byte {pos}: {res.out} {res.err}"
        assert res.code in (0, 1, 2), where
        assert res.exception is None or isinstance(res.exception, SystemExit), f"{where} {res.exception!r}"
        assert len((res.out + res.err).strip().splitlines()) == 1, where
        verdicts[res.code] += 1
        if content(target) != baseline:
            assert res.code != 0, f"byte {pos} changed the journal's content and the audit says intact"
    assert verdicts[1] > 0 and sum(verdicts.values()) == len(positions)


EDITABLE = ("ts", "table_id", "round_id", "kind", "name", "actor", "data", "prev_hash", "hash")


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_edit_of_any_field_of_any_record_is_caught(small_journal, tmp_path, monkeypatch, data):
    """Hypothesis picks a record, a field and a new value (text, a number,
    bytes, NULL); the audit never calls the edited journal intact."""
    import shutil

    from tablesim.journal.audit import verify_file

    original, xdg = small_journal
    monkeypatch.setenv("XDG_DATA_HOME", str(xdg))
    import tempfile

    # a fresh folder per example: tmp_path is shared by every example, and a
    # -wal file left by one example's edit would leak into the next
    target = Path(tempfile.mkdtemp(dir=tmp_path)) / "edited.journal.sqlite"
    shutil.copyfile(original, target)
    db = sqlite3.connect(str(target))
    n = db.execute("SELECT COUNT(*) FROM records").fetchone()[0]
    seq = data.draw(st.integers(1, n), label="seq")
    column = data.draw(st.sampled_from(EDITABLE), label="column")
    old = db.execute(f"SELECT {column} FROM records WHERE seq = ?", (seq,)).fetchone()[0]
    new = data.draw(st.one_of(st.text(max_size=30), st.integers(-(2**63), 2**63 - 1), st.binary(max_size=30),
                              st.just(old + " "), st.just(old[:-1])).filter(lambda v: v != old), label="value")
    try:
        db.execute(f"UPDATE records SET {column} = ? WHERE seq = ?", (new, seq))
        db.commit()
    except sqlite3.IntegrityError:  # (NOT NULL): no edit made
        return
    finally:
        db.close()
    result = verify_file(target)
    assert result.verdict == "tampered" and result.first_bad is not None and result.first_bad <= seq, result


def damage_the_round_index(path: Path, round_id: str) -> None:
    """Rewrite, byte by byte, the round id in each ``records_round`` index entry
    of ``round_id`` (the table's rows stay as they were): SQLite's quick check
    sees nothing, its integrity check does, and a lookup by round finds none
    of the round's records."""
    db = sqlite3.connect(path.resolve().as_uri() + "?immutable=1", uri=True)
    try:
        root = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'records_round'").fetchone()[0]
        size = db.execute("PRAGMA page_size").fetchone()[0]
    finally:
        db.close()
    data = bytearray(path.read_bytes())
    page = bytes(data[(root - 1) * size:root * size])
    old = round_id.encode()
    assert page.count(old) > 3  # (a small journal: the whole index on its root page)
    data[(root - 1) * size:root * size] = page.replace(old, old[:-1] + b"9")
    path.write_bytes(bytes(data))
    db = sqlite3.connect(path.resolve().as_uri() + "?immutable=1", uri=True)
    try:
        assert db.execute("PRAGMA quick_check").fetchall() == [("ok",)]
        assert db.execute("PRAGMA integrity_check").fetchall() != [("ok",)]
        assert db.execute("SELECT COUNT(*) FROM records WHERE round_id = ?", (round_id,)).fetchone()[0] == 0
    finally:
        db.close()


def test_a_damaged_index_is_never_read_as_the_record(small_journal, tmp_path, monkeypatch, run_cli):
    """The issue's case: a damaged index made `history` show a settled round
    as in progress with no bets, and a table would replay from it. Now the
    table refuses to start, history refuses to show it, and the audit calls
    it corrupt: each in one line."""
    original, xdg = small_journal
    monkeypatch.setenv("XDG_DATA_HOME", str(xdg))
    path = tmp_path / "w.journal.sqlite"
    path.write_bytes(original.read_bytes())
    damage_the_round_index(path, "WHEEL-MOCK-000001")
    before = path.read_bytes()
    res = run_cli("run", "--game", "wheel", "--mock", "--rounds", "1", "--quiet", "--journal", path)
    assert res.code == 2 and len(res.err_lines) == 1, (res.out, res.err, res.exception)
    assert "corrupt" in res.err and "integrity check" in res.err and "audit verify" in res.err
    assert path.read_bytes() == before  # nothing replayed, nothing written
    for args in (("history", "--journal", path), ("history", "--journal", path, "--json")):
        res = run_cli(*args)
        assert res.code == 2 and len(res.err_lines) == 1 and "integrity check" in res.err, (res.out, res.err)
        assert "in_progress" not in res.out
    res = run_cli("audit", "verify", "--journal", path)
    assert res.code == 1 and "corrupt" in res.err


@pytest.mark.parametrize("column, value", [("round_id", b""), ("actor", b"journal"), ("kind", b"meta")])
def test_a_field_stored_as_a_blob_of_the_same_bytes_is_caught(column, value, small_journal, tmp_path, monkeypatch):
    """(found by the fuzz above) the chain record's text rewritten as a blob
    of the very same bytes: a reader sees bytes where the table wrote text,
    so it is an edit, and the audit names it."""
    from tablesim.journal.audit import verify_file

    original, xdg = small_journal
    monkeypatch.setenv("XDG_DATA_HOME", str(xdg))
    target = tmp_path / "blob.journal.sqlite"
    target.write_bytes(original.read_bytes())
    db = sqlite3.connect(str(target))
    assert db.execute(f"SELECT CAST({column} AS BLOB) FROM records WHERE seq = 1").fetchone()[0] == value
    db.execute(f"UPDATE records SET {column} = ? WHERE seq = 1", (value,))
    db.commit()
    db.close()
    result = verify_file(target)
    assert result.verdict == "tampered" and result.first_bad == 1, result
