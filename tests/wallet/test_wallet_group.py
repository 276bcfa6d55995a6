"""A group of writes (one commit) leaves the ledger as its writes one by one
would: the same answers, byte for byte, and the same rows, whatever the
group's own writes change for the ones after them (a cancel of one of its
debits, a credit, a repeat, a refusal, a daily limit read as it stands)."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from examples import examples
from tablesim.wallet import protocol as p
from tablesim.wallet.ledger import Ledger
from tablesim.wallet.players import Limits, Player, Roster

ROSTER = Roster({"MOP": Decimal("0.01"), "HKD": Decimal("0.10")}, (
    Player("p0", "MOP", Decimal("100"), Limits()),
    Player("p1", "MOP", Decimal("7.50"), Limits()),
    Player("bob", "HKD", Decimal("500"), Limits(Decimal("100"), Decimal("300"), "Bob's limit.")),
    Player("dee", "MOP", Decimal("50"), Limits(None, Decimal("12"), "Dee's day."))))  # (a day's stake, no bet's)

#: every column but the time stamp (a group's rows share one; one by one they differ)
COLUMNS = "seq, id, kind, player, currency, tbl, round, amount, debits, debit, status, effect, digest, answer"


def _debit(tid, player="p0", amount="10", rnd="r1", currency=None):
    currency = currency or ("HKD" if player == "bob" else "MOP")
    return p.Debit(tid, player, currency, Decimal(amount), "T1", rnd)


def _cancel(tid, debit, player="p0", rnd="r1"):
    return p.Cancel(tid, player, "T1", rnd, debit)


def _credit(tid, debits, player="p0", amount="15", rnd="r1"):
    return p.Credit(tid, player, "HKD" if player == "bob" else "MOP", Decimal(amount), "T1", rnd, tuple(debits))


def _ledgers(tmp_path, before=()):
    grouped, alone = Ledger(tmp_path / "grouped.db"), Ledger(tmp_path / "alone.db")
    for ledger in (grouped, alone):
        ledger.load(ROSTER)
        for w in before:
            _one(ledger, w)
    return grouped, alone


def _one(ledger, write):
    try:
        return ledger.write(write)
    except p.Refused as refusal:
        return refusal


def _shown(results):
    return [(r.status, r.message) if isinstance(r, p.Refused) else r for r in results]


def _rows(ledger):
    db = ledger.db
    return (db.execute(f"SELECT {COLUMNS} FROM tx ORDER BY seq").fetchall(),
            db.execute("SELECT player, moved FROM account ORDER BY player").fetchall(),
            db.execute("SELECT debit, credit FROM settled ORDER BY debit").fetchall())


def _same(tmp_path, writes, before=()):
    grouped, alone = _ledgers(tmp_path, before)
    together = grouped.write_many(list(writes))
    one_by_one = [_one(alone, w) for w in writes]
    assert _shown(together) == _shown(one_by_one)
    assert _rows(grouped) == _rows(alone)
    return together, grouped


def test_a_mixed_group_answers_and_writes_as_one_by_one(tmp_path):
    writes = [_debit("d1"), _debit("d2", amount="20"), _cancel("c1", "d1"), _debit("d1"),  # a repeat
              _debit("d2", amount="21"),  # its id reused: refused, nothing kept
              _debit("d3", amount="0.001"),  # finer than the unit: refused
              _credit("k1", ["d2"]), _debit("d4"),  # after its round's credit: already settled
              _cancel("c2", "d2"),  # a credited debit
              _cancel("c3", "d9", rnd="r2"), _debit("d9", rnd="r2"),  # a cancel before its debit, then it
              _debit("d5", "p1", "7.60"), _debit("d6", "p1", "7.50"), _debit("d7", "nobody"),
              _debit("d8", "p0", "1", currency="HKD"),
              _debit("b1", "bob", "100"), _debit("b2", "bob", "100"), _debit("b3", "bob", "100"),
              _debit("b4", "bob", "1"),  # past bob's day: the stake of the group's own debits counts
              _cancel("bc", "b3", "bob"), _debit("b5", "bob", "1"),  # back within it once one is cancelled
              _credit("k2", ["d9"], rnd="r2"), _credit("k3", ["d2"]), _cancel("c1", "d1"), _debit("d1")]
    together, grouped = _same(tmp_path, writes)
    statuses = [r[0].value if isinstance(r, tuple) else r.status.value for r in together]
    assert statuses == ["ok", "ok", "ok", "ok", "id_reused", "invalid_request", "ok", "already_settled",
                        "already_settled", "ok", "already_cancelled", "insufficient_funds", "ok",
                        "unknown_player", "wrong_currency", "ok", "ok", "ok", "limit_reached", "ok", "ok",
                        "already_cancelled", "already_settled", "ok", "ok"]
    stamps = {at for (at,) in grouped.db.execute("SELECT at FROM tx")}
    assert len(stamps) == 1 and p.TIME.fullmatch(stamps.pop())  # one stamp a group: its rows commit together
    # blobs bound as bytearrays and a debit's NULLs written in its statement: stored as bytes and NULLs were
    kinds = set(grouped.db.execute("SELECT kind, typeof(digest), typeof(answer), typeof(debits), typeof(debit), "
                                   "typeof(currency) FROM tx"))
    assert kinds == {("debit", "blob", "blob", "null", "null", "text"), ("cancel", "blob", "blob", "null", "text",
                     "text"), ("credit", "blob", "blob", "text", "null", "text")}
    for tid, digest, answer in grouped.db.execute("SELECT id, digest, answer FROM tx"):
        assert type(digest) is bytes and type(answer) is bytes
        assert answer == next(r[1] for w, r in zip(writes, together) if w.transaction_id == tid
                              and isinstance(r, tuple))


def test_a_refusal_after_rows_kept_back_were_written_is_no_change_of_its_own(tmp_path):
    """A group's rows wait to be written together until a statement reads the
    ledger; a write refused after such a read (rows written, none of its own)
    is a refusal like any, not a refusal after a change (which fails the group)."""
    writes = [_debit("d1"), _cancel("c1", "d1"),  # the cancel reads its debit: d1's row written first
              _debit("d2", amount="0.001"),  # refused
              _debit("d3"), _debit("d5", "p1", "1"),
              _debit("d3", amount="20"),  # reads its id as written: the rows held written (with their sums), refused
              _credit("k1", ["d3"]), _credit("k2", ["d3"], amount="0.001"), _debit("d4", rnd="r2")]
    together, _ = _same(tmp_path, writes)
    assert [type(r).__name__ for r in together] == ["tuple", "tuple", "Refused", "tuple", "tuple", "Refused",
                                                    "tuple", "Refused", "tuple"]


def test_a_days_stake_counts_the_groups_own_debits_of_a_player_with_no_other_limit(tmp_path):
    """A player with a day's stake limit and no limit a bet: each of their
    debits is checked against the day, the group's own earlier ones counted
    (none of them is taken as plainly accepted)."""
    writes = [_debit("e1", "dee", "7.5"), _debit("e2", "dee", "5"), _debit("e3", "dee", "4.5"), _debit("e4", "p0", "5")]
    together, _ = _same(tmp_path, writes)
    assert [r[0].value if isinstance(r, tuple) else r.status.value for r in together] == [
        "ok", "limit_reached", "ok", "ok"]


op = st.tuples(st.sampled_from(["debit", "credit", "cancel", "repeat"]), st.sampled_from(["p0", "p1", "bob", "dee"]),
               st.integers(0, 1), st.sampled_from(["1", "5", "7.5", "100", "0.001"]), st.integers(0, 9))


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(op, max_size=30), st.lists(op, max_size=30))
def test_any_group_answers_and_writes_as_one_by_one(tmp_path_factory, before, group):
    def writes(ops, tag):
        out = []
        for kind, player, rnd, amount, n in ops:
            if kind == "debit":
                out.append(_debit(f"d{n}", player, amount, f"r{rnd}"))
            elif kind == "credit":
                out.append(_credit(f"k{tag}{n}", [f"d{n}", f"d{(n + 1) % 10}"][:1 + n % 2], player, amount,
                                   f"r{rnd}"))
            elif kind == "cancel":
                out.append(_cancel(f"c{n}", f"d{n}", player, f"r{rnd}"))
            elif out:
                out.append(out[n % len(out)])
        return out

    _same(tmp_path_factory.mktemp("group"), writes(group, "g"), writes(before, "b"))
