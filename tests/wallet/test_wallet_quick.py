"""The wallet's quick ways for the common write: what they take is exactly
what the full reading takes, byte for byte what it answered before."""

from __future__ import annotations

import json
import sqlite3
from decimal import Decimal

from tablecore.money import fmt
from tablesim.wallet import batch, protocol as p
from tablesim.wallet.ledger import SCHEMA
from tablesim.wallet.metrics import WalletMetrics

BASE = {"transaction_id": "d-1", "player": "p1", "currency": "MOP", "amount": "1.50", "table": "T1", "round": "r-1"}
ODD = [None, 1, 1.5, True, "", " x", "x ", "é", "a" * 101, "-1", "0", "0.00", "1e5", "1E+2", " 1", "NaN",
       "Infinity", "1_000", "０", "01", "1.", ".5", "abc", ["x"], {"a": 1}]


def _full(data):
    try:
        return p.parse("debit", data)
    except p.Refused as refused:
        return refused


def test_quick_debit_takes_only_what_parse_takes_and_reads_it_the_same():
    cases = [BASE, {**BASE, "extra": 1}]
    for field in BASE:
        cases += [{**BASE, field: value} for value in ODD]
        cases.append({k: v for k, v in BASE.items() if k != field})
    taken = 0
    for case in cases:
        quick, full = p.quick_debit(case), _full(case)
        if quick is not None:
            taken += 1
            assert quick == full, case
    assert p.quick_debit(BASE) == p.Debit("d-1", "p1", "MOP", Decimal("1.50"), "T1", "r-1")
    assert taken > 10


def test_a_quick_debit_is_the_record_its_constructor_makes():
    """Its slots filled by their descriptors: the same type, fields, hash and repr, and as frozen."""
    import dataclasses

    import pytest

    quick, made = p.quick_debit(BASE), p.Debit("d-1", "p1", "MOP", Decimal("1.50"), "T1", "r-1")
    assert type(quick) is p.Debit and dataclasses.astuple(quick) == dataclasses.astuple(made)
    assert hash(quick) == hash(made) and repr(quick) == repr(made) and quick == made
    with pytest.raises(dataclasses.FrozenInstanceError):
        quick.amount = Decimal(1)


def test_a_batch_refuses_a_bad_debit_in_the_full_readings_words():
    _, items = batch.parse({"request_id": "b-1", "calls": [
        {"call": "debit", "request": BASE}, {"call": "debit", "request": {**BASE, "amount": " 2"}}]})
    assert items[0] == p.Debit("d-1", "p1", "MOP", Decimal("1.50"), "T1", "r-1")
    assert isinstance(items[1], p.Refused) and "has spaces around it" in items[1].message


def test_canonical_and_answers_are_the_bytes_json_dumps_made():
    """A repeated transaction id is matched by its digest and answered with its kept bytes:
    the encoders made once must write what ``json.dumps`` wrote before them."""
    records = [p.Debit("d-1", "p1", "MOP", Decimal("1.50"), "T", "r"),
               p.Credit("c", "p", "MOP", Decimal("0"), "T", "r", ("a", "b")), p.Cancel("x", "p", "T", "r", "d")]
    for record in records:
        fields = {k: (fmt(v) if isinstance(v, Decimal) else list(v) if isinstance(v, tuple) else v)
                  for k, v in ((name, getattr(record, name)) for name in record.__slots__)}
        assert p.canonical(record) == json.dumps([type(record).__name__, fields], sort_keys=True,
                                                 separators=(",", ":")).encode()
    answer = {"status": "ok", "transaction_id": "é\u2028", "balance": "1.00", "message": None}
    assert p.encode(answer) == json.dumps(answer, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def test_a_debit_s_canonical_and_ok_answer_put_in_place_are_the_bytes_json_dumps_made(tmp_path):
    """A debit's content and its ok answer are written field by field (no
    encoder): the same bytes as ``json.dumps`` for every id the protocol takes,
    and for a record made otherwise (quotes, backslashes, controls, non-ASCII)."""
    from tablesim.wallet.ledger import Ledger
    from tablesim.wallet.players import Limits, Player, Roster

    def dumped(record) -> bytes:
        fields = {k: (fmt(v) if isinstance(v, Decimal) else v) for k, v in
                  ((name, getattr(record, name)) for name in record.__slots__)}
        return json.dumps([type(record).__name__, fields], sort_keys=True, separators=(",", ":")).encode()

    odd = ["a/b:c.d-e_f", "Z" * 100, 'q"uote', "back\\slash", "tab\t", "é", "\u2028", "\x7f", ""]
    for value in odd:
        for field in ("transaction_id", "player", "table", "round"):
            record = p.Debit(**{**dict(transaction_id="d-1", player="p1", currency="MOP", amount=Decimal("1.50"),
                                       table="T1", round="r-1"), field: value})
            assert p.canonical(record) == dumped(record), (field, value)
    for amount in ("0.01", "1", "1000", "12.50", "1E+3"):
        record = p.Debit("d-1", "p1", "MOP", Decimal(amount), "T1", "r-1")
        assert p.canonical(record) == dumped(record)
    ledger = Ledger(tmp_path / "w.db")
    ledger.load(Roster({"MOP": Decimal("0.01"), "JPY": Decimal("1")},
                       (Player("p1", "MOP", Decimal("10"), Limits()), Player("p2", "JPY", Decimal("10"), Limits()))))
    for tid, player, currency in (("d-1", "p1", "MOP"), ('d"2', "p1", "MOP"), ("d-3", "p2", "JPY"),
                                  ("d\u00e94", "p2", "JPY")):
        status, body = ledger.write(p.Debit(tid, player, currency, Decimal("1"), "T1", "r-1"))
        balance = ledger.text(ledger._player(player)[1], currency)
        assert body == json.dumps({"status": "ok", "transaction_id": tid, "balance": balance, "message": None},
                                  separators=(",", ":")).encode(), tid


def test_a_batch_s_writes_counted_by_kind_and_status():
    m = WalletMetrics()
    items = [p.Debit("a", "p", "MOP", Decimal(1), "T", "r"), p.Refused(p.Status.INVALID_REQUEST, "no"),
             p.Debit("b", "p", "MOP", Decimal(1), "T", "r"), p.Cancel("c", "p", "T", "r", "a")]
    results = [(p.Status.OK, b""), (p.Status.INSUFFICIENT_FUNDS, b""), (p.Status.OK, b"")]
    m.batch_writes(items, results)
    m.batch_writes(items, results)
    got = {(s.labels["kind"], s.labels["status"]): s.value for metric in m.registry.collect()
           for s in metric.samples if s.name == "tablesim_wallet_writes_total"}
    assert got == {("debit", "ok"): 2, ("debit", "insufficient_funds"): 2, ("cancel", "ok"): 2,
                   ("credit", "ok"): 0, ("refused_write", "invalid_request"): 2}  # (each kind's ok from the start)


def test_whether_a_round_is_credited_is_one_lookup_of_the_credits_only():
    db = sqlite3.connect(":memory:")
    db.executescript(SCHEMA)
    plan = db.execute("EXPLAIN QUERY PLAN SELECT 1 FROM tx WHERE tbl=? AND round=? AND player=? AND "
                      "kind='credit' AND status='ok'", ("T", "r", "p")).fetchall()
    assert "tx_credited" in str(plan)


def _roster():
    from tablesim.wallet.players import Limits, Player, Roster

    return Roster({"MOP": Decimal("0.01")}, tuple(Player(f"p{i}", "MOP", Decimal("100"), Limits()) for i in range(3)))


def test_a_group_answers_each_write_as_it_would_alone(tmp_path):
    """A group reads its ids' kept rows and cancels once: every write of it still
    answers what it answers alone, in order, even where an earlier write of the
    same group changed what a later one finds (a repeat, a cancel before its debit)."""
    from tablesim.wallet.ledger import Ledger

    def debit(tid, player="p0", amount="10"):
        return p.Debit(tid, player, "MOP", Decimal(amount), "T1", "r1")

    def cancel(tid, debit_id, player="p0"):
        return p.Cancel(tid, player, "T1", "r1", debit_id)

    before = [debit("old-1"), cancel("old-c", "old-2")]
    writes = [debit("d-1"), debit("d-1"), debit("d-1", amount="20"), cancel("c-2", "d-2"), debit("d-2"),
              cancel("c-1", "d-1"), debit("d-1"), debit("old-1"), debit("old-2"), cancel("c-1", "d-1"),
              debit("d-3", "p1", "500"), debit("d-4", "p2"), cancel("c-4", "d-4", "p2"), cancel("c-4b", "d-4", "p2")]
    grouped, alone = Ledger(tmp_path / "a.db"), Ledger(tmp_path / "b.db")
    for ledger in (grouped, alone):
        ledger.load(_roster())
        ledger.write_many(before)
    together = grouped.write_many(writes)
    one_by_one = []
    for w in writes:
        try:
            one_by_one.append(alone.write(w))
        except p.Refused as refusal:
            one_by_one.append(refusal)
    show = [(r.status, r.message) if isinstance(r, p.Refused) else r for r in together]
    assert show == [(r.status, r.message) if isinstance(r, p.Refused) else r for r in one_by_one]
    statuses = [r[0].value if isinstance(r, tuple) else r.status.value for r in together]
    assert statuses[:5] == ["ok", "ok", "id_reused", "ok", "already_cancelled"]
    assert statuses[8] == "already_cancelled"


def test_the_ids_a_quick_debit_remembers_change_nothing_it_takes():
    """The players, tables and rounds read lately are remembered as right:
    every case read again, after the right ones were remembered, reads the same."""
    cases = [BASE]
    for field in ("player", "table", "round", "currency"):
        cases += [{**BASE, field: value} for value in ODD + ["p1", "T1", "r-1", "MOP"]]
    first = [p.quick_debit(case) for case in cases]
    again = [p.quick_debit(case) for case in cases]
    assert first == again
    for case, quick in zip(cases, again):
        if quick is not None:
            assert quick == _full(case), case
        else:
            assert p.quick_debit(case) is None


def test_a_batch_item_is_exactly_a_call_and_a_request():
    request = dict(BASE)
    odd = [[], "x", {"call": "debit"}, {"call": "debit", "req": request}, {"call": "debit", "request": request, "x": 1},
           {"call": "debit", "request": [request]}, {"kall": "debit", "request": request}]
    _, items = batch.parse({"request_id": "b-1", "calls": odd + [{"call": "debit", "request": request}]})
    assert [type(i).__name__ for i in items] == ["Refused"] * len(odd) + ["Debit"]
    assert all("expected {\"call\": NAME" in i.message for i in items[:-1])
