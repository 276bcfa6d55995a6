"""A group of bets' record read back: the picture's refs (each amount read
once, by its text) and the players' recall (a player noted once a record,
however many of their bets it holds) are what reading each bet afresh, in
the record's order, makes."""

from __future__ import annotations

from collections import OrderedDict
from decimal import Decimal

from hypothesis import given, settings, strategies as st

from examples import examples
from tablecore.money import read_amount
from tablesim.platform import rounds as picture
from tablesim.platform.player.hub import Hub, tap
from tablesim.platform.player.recall import KEPT
from tablesim.platform.rounds import Ref, Rounds, TableState
from tablesim.platform.tables import Offer
from tablesim.studio.wire import WireRecord

TABLE = "WHEEL-1"
AMOUNTS = st.sampled_from(["1", "1.0", "2.50", "0.01", "10000", "-1", "1e2", "x", "", "0", "007"])


def _reference(entry: list, seq: int) -> Ref | None:
    """A bet's ref read as before (its amount read afresh)."""
    ref, position, bet, amount = entry[:4]
    player = entry[4] if len(entry) > 4 else None
    try:
        value = read_amount(str(amount))
    except ValueError:
        return None
    return Ref(str(ref), str(position), str(bet), value, str(player or position), seq)


@given(st.lists(st.tuples(st.integers(0, 5), st.sampled_from(["ann", "bob", "cy", "dee"]), AMOUNTS,
                          st.sampled_from([None, "ann", "eve"])), max_size=40))
def test_a_ref_read_off_a_record_is_the_ref_read_afresh(entries):
    for i, (ref, position, amount, player) in enumerate(entries * 2):  # (again: the amount remembered)
        entry = [f"d-{ref}", position, "5", amount, player]
        got, expected = picture._ref(entry, i), _reference(entry, i)
        assert got == expected and (got is None or str(got.amount) == str(expected.amount))
    assert len(picture._AMOUNTS) <= picture.AMOUNTS


def test_the_amounts_remembered_are_forgotten_at_once_past_the_most(monkeypatch):
    monkeypatch.setattr(picture, "_AMOUNTS", {})
    monkeypatch.setattr(picture, "AMOUNTS", 2)
    for n in range(1, 6):
        assert picture._ref([f"d-{n}", "ann", "5", str(n)], 1).amount == Decimal(n)
        assert len(picture._AMOUNTS) <= 2
    assert picture._AMOUNTS == {"5": Decimal(5)}


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.lists(st.tuples(st.sampled_from(["ann", "bob", "cy"]), st.integers(1, 3)), min_size=1,
                         max_size=12), min_size=1, max_size=2 * KEPT + 3))
def test_each_record_notes_its_players_rounds_as_noting_each_bet_did(records):
    offers = {TABLE: Offer(TABLE, "MOP", Decimal(1), "player", Decimal(10000), game="wheel")}
    rounds = Rounds()
    hub = Hub(offers, rounds)
    tap(rounds, hub)
    expected: dict[str, OrderedDict] = {}
    n = 0
    for seq, bets in enumerate(records, start=1):
        round_id = f"R-{seq % 5}"  # (rounds again: a round's later records)
        rounds.tables[TABLE] = TableState(TABLE, round_id, "betting_open")
        entries = []
        for player, amount in bets:
            n += 1
            entries.append([f"d-{n}", player, "5", str(amount), None])
            keys = expected.setdefault(player, OrderedDict())  # (as ``Recall.note`` a bet)
            keys[(TABLE, round_id)] = None
            while len(keys) > KEPT:
                keys.popitem(last=False)
        rounds.apply(WireRecord(seq, TABLE, round_id, "input", "place_bets", {"bets": entries}, "", "", b""), seq)
    assert {p: list(k) for p, k in hub.recall.index.items()} == {p: list(k) for p, k in expected.items()}
