"""Group commit of bets (``tablesim.server.intake``): many bets, one
journal transaction, each bet answered as if it had been placed alone."""

from __future__ import annotations

import asyncio
import sqlite3
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablecore import betbatch
from tablecore.errors import IllegalAction
from tablesim.server.intake import BetIntake, BetRefs, BetRequest, commit_bets
from tablesim.journal.journal import Journal
from tablesim.journal.placed import placed
from tablesim.games.rig import mock_rig
from examples import examples


def table_with_journal(path, game: str = "fortune3", durable: bool = True):
    table = mock_rig(game, seed=3).table
    journal = Journal(path, durable=durable)
    table.attach_journal(journal)
    table.open_round()
    if game == "football":
        table.await_draw(5)
    return table, journal


def commits(journal: Journal) -> list[str]:
    """Start counting the COMMITs the journal's connection runs."""
    seen: list[str] = []
    journal.store.db.set_trace_callback(lambda sql: seen.append(sql) if sql.strip().upper() == "COMMIT" else None)
    return seen


def bet_events(journal: Journal) -> list[tuple]:
    """The bets the journal holds, in either format (a bet event each, or a group's one record)."""
    return [(b["position"], b["bet"], b["amount"], b.get("player")) for _, b in placed(journal.records())]


def test_a_group_is_one_commit_and_each_bet_gets_its_own_answer(tmp_path):
    table, journal = table_with_journal(tmp_path / "j.sqlite")
    seen = commits(journal)
    before = journal.seq
    outcomes = commit_bets(table, [
        BetRequest("3", "ante", Decimal("10"), "dealer:ana"),
        BetRequest("3", "ante", Decimal("10001"), "dealer:ana"),        # over the limit: refused
        BetRequest("8", "ante", Decimal("10"), "dealer:ana"),           # no box 8
        BetRequest("5", "pair_plus", Decimal("5"), "dealer:rui", ref="r-1"),
        BetRequest("3", "play", Decimal("10"), "dealer:ana"),           # not a bet one places
    ], BetRefs())
    assert seen == ["COMMIT"]
    assert [o.ok for o in outcomes] == [True, False, False, True, False]
    assert outcomes[1].error == "refused" and outcomes[1].action == "bet"
    assert "over the table limit 10000" in outcomes[1].reason
    assert "box '8' does not exist" in outcomes[2].reason and "unknown bet 'play'" in outcomes[4].reason
    assert table.book.snapshot() == {"3": {"ante": "10"}, "5": {"pair_plus": "5"}}
    # the refused bets left nothing in the journal, the accepted ones all of theirs
    # (one record for the group's accepted bets: each bet, its ref, its actor where not the record's)
    new = [(r.kind, r.name, r.actor) for r in journal.records() if r.seq > before]
    assert new == [("input", "place_bets", "dealer:ana")]
    entries = [[None, "3", "ante", "10", None], ["r-1", "5", "pair_plus", "5", None, "dealer:rui"]]
    assert list(journal.records())[-1].data == {"bets": entries, "root": betbatch.root(entries)}
    assert [(o.seq, o.at) for o in outcomes] == [(before + 1, 0), (None, None), (None, None), (before + 1, 1),
                                                 (None, None)]
    from tablesim.journal.audit import verify

    assert verify(journal).ok


def test_the_same_reasons_as_single_bets_also_when_paused_or_closed(tmp_path):
    table, journal = table_with_journal(tmp_path / "j.sqlite")
    table.pause(actor="dealer", why="test")
    (paused,) = commit_bets(table, [BetRequest("3", "ante", Decimal("10"))])
    with pytest.raises(IllegalAction) as single:
        table.place_bet("3", "ante", "10")
    assert (paused.action, paused.reason) == (single.value.action, single.value.reason)
    table.resume(actor="dealer", why="test")
    commit_bets(table, [BetRequest("3", "ante", Decimal("10"))])
    table.close_betting()
    (late,) = commit_bets(table, [BetRequest("3", "ante", Decimal("10"))])
    assert late.reason == "betting is closed (the round is bets_closed)"


BET = st.tuples(st.sampled_from(["1", "3", "7", "8", "common"]), st.sampled_from(["ante", "pair_plus", "play"]),
                st.sampled_from(["1", "5", "0.5", "2.50", "4000", "10000", "-1"]))  # (text that is no amount is refused where it is parsed)


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(bets=st.lists(BET, max_size=25))
def test_a_group_answers_and_journals_exactly_as_bets_placed_one_by_one(tmp_path_factory, bets):
    tmp = tmp_path_factory.mktemp("group")
    grouped, gj = table_with_journal(tmp / "grouped.sqlite", durable=False)
    alone, aj = table_with_journal(tmp / "alone.sqlite", durable=False)
    try:
        outcomes = commit_bets(grouped, [BetRequest(p, b, Decimal(a)) for p, b, a in bets])
        for (p, b, a), outcome in zip(bets, outcomes):
            try:
                alone.place_bet(p, b, Decimal(a))
            except IllegalAction as exc:
                assert (outcome.ok, outcome.action, outcome.reason) == (False, exc.action, exc.reason)
            else:
                assert outcome.ok, outcome
        assert grouped.book.snapshot() == alone.book.snapshot()
        assert bet_events(gj) == bet_events(aj)
    finally:
        gj.close()
        aj.close()


@pytest.mark.parametrize("fail_at", [1, 2, 3, 4])
def test_a_failed_commit_answers_no_bet_and_puts_the_book_back(tmp_path, fail_at):
    table, journal = table_with_journal(tmp_path / "j.sqlite")
    commit_bets(table, [BetRequest("1", "ante", Decimal("10"))])
    refs = BetRefs()
    records, book = journal.seq, table.book.snapshot()
    inserts = []
    # The disk "fails" at one write of the group (its refs' index rows, its one
    # record, the head): real SQLite aborts that INSERT (the progress handler interrupts it).
    journal.store.db.set_trace_callback(lambda sql: inserts.append(sql) if sql.startswith("INSERT") else None)
    failed = []

    def interrupt() -> int:
        if len(inserts) == fail_at and not failed:
            failed.append(inserts[-1])
            return 1
        return 0

    journal.store.db.set_progress_handler(interrupt, 1)
    with pytest.raises(sqlite3.OperationalError):
        commit_bets(table, [BetRequest("2", "ante", Decimal("10"), ref="a"), BetRequest("3", "ante", Decimal("10"), ref="b")], refs)
    journal.store.db.set_progress_handler(None, 1)
    journal.store.db.set_trace_callback(None)
    assert failed  # one write of the group failed
    assert table.book.snapshot() == book and refs.by_ref == {}
    assert journal.seq == records and max(r.seq for r in journal.records()) == records
    # the table goes on: the same bets are accepted afterwards
    assert all(o.ok for o in commit_bets(table, [BetRequest("2", "ante", Decimal("10"), ref="a")], refs))


def test_a_ref_is_never_placed_twice_also_after_a_restart(tmp_path):
    path = tmp_path / "j.sqlite"
    table, journal = table_with_journal(path, "wheel")
    refs = BetRefs()
    first = commit_bets(table, [BetRequest("alice", "1", Decimal("10"), ref="alice-1"),
                                BetRequest("alice", "1", Decimal("10"), ref="alice-1")], refs)   # a retry in the same group
    assert [o.ok for o in first] == [True, True] and [o.duplicate for o in first] == [False, True]
    assert table.book.snapshot() == {"alice": {"1": "10"}}
    journal.close()
    # a restarted table: the ref is read back from the journal
    again = mock_rig("wheel", seed=3).table
    journal = Journal(path)
    again.attach_journal(journal)
    from tablesim.journal.recovery import recover

    recover(again, journal)
    refs = BetRefs().load(journal, again.table_id)
    retry, other = commit_bets(again, [BetRequest("alice", "1", Decimal("10.00"), ref="alice-1"),
                                       BetRequest("alice", "5", Decimal("10"), ref="alice-1")], refs)
    assert retry.ok and retry.duplicate and retry.round_id == again.round_id
    assert not other.ok and other.reason == "ref 'alice-1' was already used for another bet"
    assert again.book.snapshot() == {"alice": {"1": "10"}}
    assert [r.data["bets"] for r in journal.records() if r.name == "place_bets"] == [[["alice-1", "alice", "1", "10", None]]]
    journal.close()


def test_the_intake_groups_what_arrives_while_a_group_commits(tmp_path):
    table, journal = table_with_journal(tmp_path / "j.sqlite", "wheel")
    seen = commits(journal)

    async def main():
        from concurrent.futures import ThreadPoolExecutor

        pool = ThreadPoolExecutor(1)
        loop = asyncio.get_running_loop()
        intake = BetIntake(table, lambda fn: loop.run_in_executor(pool, fn))
        answers = await asyncio.gather(*(intake.submit([BetRequest(f"p{i}", "1", Decimal("1"), ref=f"r{i}")])
                                         for i in range(200)))
        pool.shutdown()
        return intake, answers

    intake, answers = asyncio.run(main())
    assert all(outcomes[0].ok for outcomes, _ in answers)
    assert intake.bets == 200 and intake.groups == len(seen) < 200
    assert sum(Decimal(a["1"]) for a in table.book.snapshot().values()) == 200
    journal.close()


def test_a_ref_is_the_players_own_two_players_may_use_the_same_one(tmp_path):
    """A ref is unique per player; another player's bet under
    the same ref on the same box is a bet of its own, not a duplicate."""
    path = tmp_path / "j.sqlite"
    table, journal = table_with_journal(path, "football")
    refs = BetRefs()
    ann, bob, ann_again = commit_bets(table, [BetRequest("common", "upper", Decimal("10"), ref="r1", player="ann"),
                                              BetRequest("common", "upper", Decimal("10"), ref="r1", player="bob"),
                                              BetRequest("common", "upper", Decimal("10"), ref="r1", player="ann")], refs)
    assert ann.ok and not ann.duplicate and bob.ok and not bob.duplicate
    assert ann_again.ok and ann_again.duplicate
    assert table.book.players_snapshot() == {"common": {"ann": {"upper": "10"}, "bob": {"upper": "10"}}}
    journal.close()
    again = mock_rig("football", seed=3).table
    journal = Journal(path)
    again.attach_journal(journal)
    from tablesim.journal.recovery import recover

    recover(again, journal)
    refs = BetRefs().load(journal, again.table_id)
    bob_retry, carol, seat = commit_bets(again, [BetRequest("common", "upper", Decimal("10"), ref="r1", player="bob"),
                                                 BetRequest("common", "upper", Decimal("10"), ref="r1", player="carol"),
                                                 BetRequest("common", "upper", Decimal("10"), ref="r1")], refs)
    assert bob_retry.duplicate and not carol.duplicate and carol.ok and seat.ok and not seat.duplicate
    assert again.book.players_snapshot() == {"common": {"ann": {"upper": "10"}, "bob": {"upper": "10"},
                                                        "carol": {"upper": "10"}, "common": {"upper": "10"}}}
    journal.close()


def test_a_journal_written_before_refs_named_their_player_still_refuses_a_second_bet(tmp_path):
    """An older journal's refs (``[ref, position, bet, amount]``, no player)
    still stand for whoever sends them: a retry is a duplicate, another bet
    under the ref is refused, as before."""
    path = tmp_path / "j.sqlite"
    table, journal = table_with_journal(path, "football")
    table.place_bet("common", "upper", "10", "ann")
    journal.append(table.table_id, table.round_id, "meta", "bet_refs", {"refs": [["r1", "common", "upper", "10"]]},
                   "intake")
    refs = BetRefs().load(journal, table.table_id)
    retry, other = commit_bets(table, [BetRequest("common", "upper", Decimal("10"), ref="r1", player="ann"),
                                       BetRequest("common", "odd", Decimal("10"), ref="r1", player="ann")], refs)
    assert retry.duplicate and not other.ok and "already used" in other.reason
    assert table.book.players_snapshot() == {"common": {"ann": {"upper": "10"}}}
    journal.close()


def test_a_failed_commit_takes_back_each_players_share_too(tmp_path):
    table, journal = table_with_journal(tmp_path / "j.sqlite", "football")
    commit_bets(table, [BetRequest("common", "upper", Decimal("10"), player="ann")])
    before = table.book.players_snapshot()
    inserts: list[str] = []
    # the disk "fails" at the group's one record: real SQLite aborts that INSERT
    journal.store.db.set_trace_callback(lambda sql: inserts.append(sql) if sql.startswith("INSERT") else None)
    journal.store.db.set_progress_handler(lambda: 1 if len(inserts) == 1 else 0, 1)
    with pytest.raises(sqlite3.OperationalError):
        commit_bets(table, [BetRequest("common", "upper", Decimal("5"), player="ann"),
                            BetRequest("common", "upper", Decimal("5"), player="bob")], BetRefs())
    journal.store.db.set_progress_handler(None, 1)
    journal.store.db.set_trace_callback(None)
    assert len(inserts) == 1 and table.book.players_snapshot() == before
    journal.close()


def test_a_bet_refused_after_its_records_were_written_leaves_none_of_them(tmp_path, monkeypatch):
    """A group keeps its records in memory until the commit: a bet refused
    half-way (its input already journaled) is cut from them, the rest of the
    group commits, and the keyed chain verifies."""
    from tablesim.journal.audit import verify

    table, journal = table_with_journal(tmp_path / "j.sqlite", "wheel")
    add = table.book.add

    def add_or_refuse(position, bet, value, player=None):
        if position == "bob":
            raise IllegalAction("bet", "refused half-way")
        add(position, bet, value, player)

    monkeypatch.setattr(table.book, "add", add_or_refuse)
    before = journal.seq
    outcomes = commit_bets(table, [BetRequest("alice", "1", Decimal("10"), ref="a"), BetRequest("bob", "1", Decimal("10"), ref="b"),
                                   BetRequest("carol", "5", Decimal("2"), ref="c")], BetRefs())
    assert [o.ok for o in outcomes] == [True, False, True] and outcomes[1].reason == "refused half-way"
    new = [(r.kind, r.name, [e[1] for e in r.data["bets"]]) for r in journal.records() if r.seq > before]
    assert new == [("input", "place_bets", ["alice", "carol"])]
    assert [r.seq for r in journal.records()] == list(range(1, journal.seq + 1))
    assert verify(journal).ok
    journal.close()


def test_a_refused_bet_that_wrote_to_the_journal_undoes_its_whole_group(tmp_path, monkeypatch):
    """A bet of a group takes no savepoint (it writes nothing of its own): one that wrote a
    record all the same and was then refused cannot be cut out alone, so the whole group
    fails, and nothing of it stands, neither in the journal nor in the book."""
    table, journal = table_with_journal(tmp_path / "j.sqlite", "wheel")
    add = table.book.add

    def write_then_refuse(position, bet, value, player=None):
        if position == "bob":
            journal.append(table.table_id, table.round_id, "event", "note", {"text": "half-way"}, "table")
            raise IllegalAction("bet", "refused after writing")
        add(position, bet, value, player)

    monkeypatch.setattr(table.book, "add", write_then_refuse)
    before, records = journal.seq, len(list(journal.records()))
    with pytest.raises(RuntimeError, match="ref 'b'.*wrote to the journal"):
        commit_bets(table, [BetRequest("alice", "1", Decimal("10"), ref="a"),
                            BetRequest("bob", "1", Decimal("10"), ref="b")], BetRefs())
    assert journal.seq == before and len(list(journal.records())) == records
    assert table.book.bets == {} and table.book.by_player == {}
    monkeypatch.setattr(table.book, "add", add)
    # the refs were not used up: the same bets place now
    assert [o.ok for o in commit_bets(table, [BetRequest("alice", "1", Decimal("10"), ref="a")], BetRefs())] == [True]
    journal.close()


def test_the_quickly_built_request_and_outcome_are_the_dataclasses_themselves():
    from dataclasses import fields

    from tablesim.server.intake import BetOutcome, _accepted, bet_request

    assert bet_request("p1", "1", Decimal("2"), "dealer:ana", "r", None) == BetRequest("p1", "1", Decimal("2"),
                                                                                     "dealer:ana", "r")
    assert _accepted("T-000001", "r") == BetOutcome(True, "T-000001", ref="r")
    assert list(vars(_accepted("T", None))) == [f.name for f in fields(BetOutcome)]
    assert list(vars(bet_request("p", "b", Decimal("1")))) == [f.name for f in fields(BetRequest)]


def test_a_ref_is_known_for_the_journals_whole_life_over_rounds_and_restarts(tmp_path):
    """Refs were kept for two rounds only: a ref acknowledged rounds ago was
    placed again. Every ref is indexed in the journal, for good."""
    path = tmp_path / "j.sqlite"
    table, journal = table_with_journal(path, "wheel")
    refs = BetRefs()
    first = table.round_id
    assert commit_bets(table, [BetRequest("alice", "1", Decimal("10"), ref="old")], refs)[0].ok
    for _ in range(4):  # rounds go by (voided: quick)
        table.void("dealer")
        table.open_round()
        assert commit_bets(table, [BetRequest("bob", "1", Decimal("1"), ref=f"b-{table.round_id}")], refs)[0].ok
    retry, other = commit_bets(table, [BetRequest("alice", "1", Decimal("10"), ref="old"),
                                       BetRequest("alice", "3", Decimal("10"), ref="old")], refs)
    assert retry.duplicate and retry.round_id == first
    assert not other.ok and "already used" in other.reason
    assert "alice" not in table.book.snapshot()
    journal.close()
    again = mock_rig("wheel", seed=3).table
    journal = Journal(path)
    again.attach_journal(journal)
    from tablesim.journal.recovery import recover

    recover(again, journal)
    refs = BetRefs().load(journal, again.table_id)
    (retry,) = commit_bets(again, [BetRequest("alice", "1", Decimal("10"), ref="old")], refs)
    assert retry.duplicate and retry.round_id == first and "alice" not in again.book.snapshot()
    assert refs.by_ref == {}  # nothing held in memory: the journal's index answers
    journal.close()


def test_the_index_is_built_again_from_the_chain_when_it_falls_short(tmp_path):
    """A journal whose index lost rows (or one from before the index): the
    start rebuilds it from the chained ``bet_refs`` records."""
    path = tmp_path / "j.sqlite"
    table, journal = table_with_journal(path, "wheel")
    assert commit_bets(table, [BetRequest("alice", "1", Decimal("10"), ref="a1")], BetRefs())[0].ok
    journal.store.db.execute("DELETE FROM bet_refs")
    refs = BetRefs().load(journal, table.table_id)
    (retry,) = commit_bets(table, [BetRequest("alice", "1", Decimal("10"), ref="a1")], refs)
    assert retry.duplicate
    journal.close()


def test_a_large_group_is_one_record_and_each_bet_is_proved_by_its_path_to_the_root(tmp_path):
    """A remote bet's receipt is its entry and its Merkle path: the group is one
    record (hashed, committed, signed once) however large, each bet provable alone."""
    table, journal = table_with_journal(tmp_path / "j.sqlite", game="wheel")
    seen = commits(journal)
    before = journal.seq
    refs = [f"w-{i}" for i in range(37)]
    outcomes = commit_bets(table, [BetRequest(str(i), "1", Decimal("1"), "bus", ref=r) for i, r in enumerate(refs)], BetRefs())
    assert seen == ["COMMIT"] and all(o.ok for o in outcomes)
    (record,) = [r for r in journal.records() if r.seq > before]
    assert (record.kind, record.name, record.actor) == ("input", "place_bets", "bus")
    entries = record.data["bets"]
    assert [e[0] for e in entries] == refs and record.data["root"] == betbatch.root(entries)
    for i, path in enumerate(betbatch.paths(entries)):
        assert betbatch.root_of_path(entries[i], i, len(entries), path) == record.data["root"]
    forged = [entries[3][0], entries[3][1], entries[3][2], "100", None]
    assert betbatch.root_of_path(forged, 3, len(entries), betbatch.paths(entries)[3]) != record.data["root"]
    again = commit_bets(table, [BetRequest(str(i), "1", Decimal("1"), "bus", ref=r) for i, r in enumerate(refs)], BetRefs())
    assert all(o.duplicate for o in again)  # every ref indexed
    journal.close()


def test_an_edited_bet_inside_a_group_record_is_named_by_the_audit(tmp_path):
    """A group of bets is one record: the audit catches one bet of it edited (its
    keyed link, and its bets against their Merkle root) and names the record."""
    import sqlite3 as sql

    from tablesim.journal.audit import verify

    path = tmp_path / "j.sqlite"
    table, journal = table_with_journal(path, "wheel")
    commit_bets(table, [BetRequest(f"p{i}", "1", Decimal("5"), "bus", ref=f"r{i}") for i in range(9)], BetRefs())
    (group,) = [r for r in journal.records() if r.name == "place_bets"]
    journal.close()
    with sql.connect(path) as db:
        db.execute("UPDATE records SET data = replace(data, '[\"r4\",\"p4\",\"1\",\"5\"', '[\"r4\",\"p4\",\"1\",\"50\"')"
                   " WHERE seq = ?", (group.seq,))
    opened = Journal(path, readonly=True)
    try:
        audit = verify(opened)
    finally:
        opened.close()
    assert not audit.ok and audit.verdict == "tampered" and audit.first_bad == group.seq
    assert f"record {group.seq} was altered or forged" in audit.reason
    assert "its 9 bets do not match their Merkle root (a bet of the group was edited)" in audit.reason


def test_history_and_the_journals_promises_read_a_group_record_as_its_bets(tmp_path):
    from tablesim.journal.history import round_actions, round_summary
    from tablesim.journal.invariants import check

    table, journal = table_with_journal(tmp_path / "j.sqlite", "wheel")
    commit_bets(table, [BetRequest("ann", "1", Decimal("5"), "bus", ref="a"),
                        BetRequest("bob", "joker", Decimal("3.00"), "dealer:ana"),
                        BetRequest("ann", "1", Decimal("1"), "bus", ref="b")], BetRefs())
    summary = round_summary(journal, table.round_id)
    assert summary["bets"] == {"ann": {"1": "6"}, "bob": {"joker": "3.00"}}  # (as the bet events summed)
    assert round_actions(journal, table.round_id)["bets_by"] == {"the platform (bus)": 2, "dealer ana": 1}
    assert check(journal) == []
    journal.close()
