"""The journal over its store interface (``tablesim/journal/storage.py``).

A second store, kept in Python lists here, stands for "another store": the
journal writes, rolls back, undoes savepoints, reads and is audited over it
exactly as over SQLite, records for records, link for link. And the chain's
writer end (``tip.py``) is pure: rows it makes alone verify in the audit's
walk, and a byte changed in one does not."""

from __future__ import annotations

import itertools
import json

import pytest

from tablecore.errors import InputError
from tablesim.journal import journal as journal_module
from tablesim.journal.audit import verify
from tablesim.journal.canonical import canonical
from tablesim.journal.chain import COLUMNS, Walk
from tablesim.journal.journal import Journal
from tablesim.journal.refs import ensure_index, index, placed_many
from tablesim.journal.sqlite import SqliteStore
from tablesim.journal.storage import StorageError
from tablesim.journal.tip import Tip

KEY = bytes(range(32))


class ListFailure(Exception):
    """What the list store raises when told to fail (a disk that is full)."""


class ListStore:
    """Every record a list of the chain's columns; a transaction a copy put
    back on rollback; a savepoint a copy on a stack. Only what the protocol
    asks for."""

    errors = (ListFailure,)
    files: dict[str, dict] = {}

    def __init__(self, path: str, state: dict) -> None:
        self.path, self.state, self.fresh = path, state, not state["rows"]
        self._saved: list[dict] = []
        self.fail_on: str | None = None

    @classmethod
    def writer(cls, path: str, *, durable: bool = True) -> "ListStore":
        return cls(path, cls.files.setdefault(path, {"rows": [], "head": None, "checkpoint": None, "refs": {}}))

    @classmethod
    def reader(cls, path: str) -> "ListStore":
        if path not in cls.files:
            raise InputError("not a tablesim journal (no records table)", where=path)
        return cls(path, cls.files[path])

    @staticmethod
    def storage_problem(exc: BaseException) -> str | None:
        return "the disk is full" if isinstance(exc, ListFailure) else None

    def _copy(self) -> dict:
        return {"rows": list(self.state["rows"]), "head": self.state["head"], "checkpoint": self.state["checkpoint"],
                "refs": dict(self.state["refs"])}

    def _put(self, saved: dict) -> None:
        self.state.clear()
        self.state.update(saved)

    def begin(self) -> None:
        self._saved = [self._copy()]

    def commit(self) -> None:
        if self.fail_on == "commit":
            raise ListFailure("the disk is full")
        self._saved = []

    def rollback(self) -> None:
        if self._saved:
            self._put(self._saved[0])
        self._saved = []

    def savepoint(self) -> None:
        self._saved.append(self._copy())

    def release(self) -> None:
        self._saved.pop()

    def undo_savepoint(self) -> None:
        self._put(self._saved.pop())

    def ensure_schema(self) -> None:
        pass

    def add(self, row: tuple) -> None:
        self.state["rows"].append(row)

    def add_many(self, rows: list[tuple]) -> None:
        self.state["rows"].extend(rows)

    def put_checkpoint(self, row: tuple) -> None:
        self.state["checkpoint"] = row

    def put_head(self, seq: int, link: str, mac: str | None) -> None:
        self.state["head"] = (seq, link, mac)

    def head(self):
        return self.state["head"][:2] if self.state["head"] else None

    def checkpoint(self):
        return self.state["checkpoint"]

    def seal_rows(self, which: str):
        row = self.state[which]
        return [tuple(v.encode() if isinstance(v, str) else v for v in row)] if row else []

    def select(self, *, after=None, upto=None, kind=None, names=(), table_id=None, round_id=None, in_round=False,
               newest=False, limit=None):
        def wanted(r: tuple) -> bool:
            return ((after is None or r[0] > after) and (upto is None or r[0] <= upto)
                    and (kind is None or r[4] == kind) and (not names or r[5] in names)
                    and (table_id is None or r[2] == table_id) and (round_id is None or r[3] == round_id)
                    and (not in_round or r[3] != ""))
        rows = [r for r in self.state["rows"] if wanted(r)]
        rows = rows[::-1] if newest else rows
        return rows if limit is None else rows[:limit]

    def count(self, **where) -> int:
        return len(self.select(**where))

    def link(self, seq: int):
        return next((r[9] for r in self.state["rows"] if r[0] == seq), None)

    def round_ids(self) -> list[str]:
        return list(dict.fromkeys(r[3] for r in self.state["rows"] if r[3]))

    def raw_rows(self, after: int = 0):
        for row in self.state["rows"]:
            if row[0] > after:
                yield (row[0], *(v.encode() for v in row[1:]))

    def raw_rounds(self, round_ids: list[str]):
        return [(r[0], *(v.encode() for v in r[1:])) for r in self.state["rows"] if r[3] in round_ids]

    def damage(self):
        return None

    def schema_problem(self):
        return None

    def ref_entries(self, table_id: str, refs: list[str]):
        return [(p, r, *v) for (t, p, r), v in self.state["refs"].items() if t == table_id and r in refs]

    def add_refs(self, entries: list[tuple]) -> None:
        for table_id, player, ref, round_id, position, bet, amount, _seq in entries:
            self.state["refs"].setdefault((table_id, player, ref), (round_id, position, bet, amount))

    def ref_counts(self, table_id: str) -> tuple[int, int]:
        indexed = sum(1 for t, _, _ in self.state["refs"] if t == table_id)
        chained = sum(len(json.loads(r[7])["refs"]) for r in self.select(kind="meta", names=("bet_refs",),
                                                                          table_id=table_id))
        return indexed, chained

    def close(self) -> None:
        pass

    cleanup = abandon = close

    def put_back(self, created: bool, was_empty: bool) -> None:
        pass


@pytest.fixture
def fixed_clock(monkeypatch):
    """The same record times whichever store is written (so the links agree
    too): call it to start the clock again."""
    ticks = [itertools.count()]
    monkeypatch.setattr(journal_module, "now_stamp", lambda: f"2026-12-02T07:00:00.{next(ticks[0]):06d}+00:00")
    return lambda: ticks.__setitem__(0, itertools.count())


def play(journal: Journal) -> None:
    """Two rounds with bets (a group of them, one undone), a refused action and a recovery note."""
    with journal.transaction():
        journal.append("T1", "T1-000001", "input", "open_round", {"args": []}, "dealer:Ana")
        journal.append("T1", "T1-000001", "event", "state", {"to": "betting_open"})
    with journal.transaction(group=True):
        for i, amount in enumerate(["10", "25.50", "bad"]):
            try:
                with journal.savepoint():
                    journal.append("T1", "T1-000001", "event", "bet", {"position": str(i), "amount": amount})
                    if amount == "bad":
                        raise ValueError("refused")
            except ValueError:
                pass
        record = journal.append("T1", "T1-000001", "meta", "bet_refs", {"refs": [["r1", "0", "ante", "10", "p1"]]})
        index(journal, "T1", "T1-000001", record.seq, [["r1", "0", "ante", "10", "p1"]])
    with pytest.raises(RuntimeError):
        with journal.transaction():
            journal.append("T1", "T1-000001", "input", "close_betting", {})
            raise RuntimeError("the action failed: nothing of it stays")
    journal.append("T1", "T1-000001", "event", "result", {"status": "settled"})
    journal.append("T1", "T1-000002", "input", "open_round", {"args": []}, "dealer:Ana")


def test_the_journal_over_another_store_writes_reads_and_verifies_as_over_sqlite(tmp_path, fixed_clock):
    ListStore.files.clear()
    shelf = str(tmp_path / "T1.shelf")
    listed = Journal(shelf, key=KEY, store=ListStore)
    play(listed)
    sqlite = Journal(tmp_path / "T1.journal.sqlite", key=KEY)
    fixed_clock()
    play(sqlite)
    assert [tuple(r.values()) for r in listed.rows()] == [tuple(r.values()) for r in sqlite.rows()]
    assert listed.seq == sqlite.seq == 10 and listed.last_hash == sqlite.last_hash
    assert [r.data.get("amount") for r in listed.find(kind="event", names=("bet",))] == ["10", "25.50"]
    assert listed.round_ids() == sqlite.round_ids() == ["T1-000001", "T1-000002"]
    assert listed.latest(kind="input").name == "open_round" and listed.last_round_id("T1") == "T1-000002"
    assert placed_many(listed, "T1", ["r1"]) == placed_many(sqlite, "T1", ["r1"]) != {}
    assert verify(listed, KEY).verdict == verify(sqlite, KEY).verdict == "intact"
    sqlite.close()

    again = Journal(shelf, key=KEY, store=ListStore)  # reopened: the chain goes on where it ended
    assert (again.seq, again.last_hash, again.round_id) == (listed.seq, listed.last_hash, "T1-000002")
    ensure_index(again, "T1")
    again.append("T1", "T1-000003", "input", "open_round", {"args": []})
    closed = again.latest(kind="meta", names=("round",))
    assert closed.data["closed"][0]["round_id"] == "T1-000002" and verify(again, KEY).ok


def test_an_edit_behind_the_journal_is_found_over_any_store(tmp_path, fixed_clock):
    ListStore.files.clear()
    journal = Journal(str(tmp_path / "T2.shelf"), key=KEY, store=ListStore)
    play(journal)
    rows = ListStore.files[str(tmp_path / "T2.shelf")]["rows"]
    at = next(i for i, row in enumerate(rows) if '"25.50"' in row[7])  # the second bet
    seq, *fields = rows[at]
    fields[6] = fields[6].replace("25.50", "2550")
    rows[at] = (seq, *fields)
    result = verify(journal, KEY)
    assert (result.verdict, result.first_bad, result.reason) == (
        "tampered", seq, f"record {seq} was altered or forged (its keyed link does not verify)")


def test_a_store_that_cannot_commit_refuses_the_action_and_keeps_nothing(tmp_path, fixed_clock):
    ListStore.files.clear()
    journal = Journal(str(tmp_path / "T3.shelf"), key=KEY, store=ListStore)
    journal.append("T1", "T1-000001", "input", "open_round", {})
    before = (journal.seq, journal.last_hash, list(journal.rows()))
    journal.store.fail_on = "commit"
    with pytest.raises(StorageError, match="the disk is full: nothing was changed; retry"):
        journal.append("T1", "T1-000001", "event", "bet", {"amount": "5"})
    assert (journal.seq, journal.last_hash, list(journal.rows()), journal.failed) == (*before, None)
    with pytest.raises(StorageError, match="the table takes no more actions"):
        with journal.transaction():  # (two records: the table acted before its journal failed)
            journal.append("T1", "T1-000001", "event", "bet", {"amount": "5"})
            journal.append("T1", "T1-000001", "event", "bet", {"amount": "6"})
    assert (journal.seq, journal.last_hash, list(journal.rows())) == before and journal.failed


def test_the_chains_writer_end_is_pure_its_rows_verify_in_the_audits_walk():
    tip, rows = Tip(), []
    data = tip.chain_data(KEY)
    rows.append(tip.row(KEY, "2026-12-02T07:00:00.000000+00:00", "T1", "", "meta", "chain", "journal",
                        canonical(data)))
    for n in range(1, 4):
        rows.append(tip.row(KEY, f"2026-12-02T07:00:0{n}.000000+00:00", "T1", "T1-000001", "event", "bet", "",
                            canonical({"n": n})))
    as_stored = [(r[0], *(v.encode() for v in r[1:])) for r in rows]
    walk = Walk(KEY)
    assert [walk.feed(r) for r in as_stored] == [None] * 4 and walk.seq == 4
    assert (tip.round_records, tip.round_last, tip.round_link) == (3, 4, rows[-1][9])
    forged = list(as_stored[2])
    forged[COLUMNS.index("data")] = b'{"n":20}'
    walk = Walk(KEY)
    assert [walk.feed(r) for r in (as_stored[0], as_stored[1], tuple(forged))][2] == \
        "record 3 was altered or forged (its keyed link does not verify)"


def test_the_sqlite_store_refuses_a_file_that_holds_no_journal(tmp_path):
    other = tmp_path / "inventory.db"
    other.write_bytes(b"")
    with pytest.raises(InputError, match="no records table"):
        SqliteStore.reader(str(other))
    with pytest.raises(InputError, match="cannot read the journal"):
        SqliteStore.follower(str(other))
