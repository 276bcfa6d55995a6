"""A group of bets' record goes on the bus as the journal holds it: the
sealer does not search its texts for card codes (a round's thousands of
bets), which is right only while nothing of a bet is ever sealed."""

from __future__ import annotations

import json

from hypothesis import given, settings, strategies as st

from tablecore import betbatch
from tablesim.studio import wire
from tablesim.studio.sealed import CARD_CODE, Sealer, seal_fields

#: texts a player, a ref or a position may be, card codes among them
_TEXT = st.one_of(st.sampled_from(["AS", "10H", "7C^", "QD", "say AS", "$card", "$dealt", "text", "why"]),
                  st.text(min_size=1, max_size=12))
_ENTRY = st.builds(lambda ref, pos, bet, amount, player, actor: betbatch.entry(ref, pos, bet, amount, player, actor),
                   _TEXT, _TEXT, _TEXT, st.sampled_from(["1", "10.50", "0.01"]), st.none() | _TEXT,
                   st.none() | _TEXT)


@settings(max_examples=60, deadline=None)
@given(st.lists(_ENTRY, min_size=1, max_size=8))
def test_nothing_of_a_group_of_bets_is_ever_sealed(entries):
    data = {"bets": entries, "root": betbatch.root(entries)}
    out, sealed = seal_fields(betbatch.KIND, betbatch.NAME, data)
    assert sealed == [] and out == data


def _row(seq: int, kind: str, name: str, data: dict, round_id: str = "T-000001") -> dict:
    return {"seq": seq, "ts": "2026-12-07T22:00:00.000000+00:00", "table_id": "T", "round_id": round_id,
            "kind": kind, "name": name, "data": json.dumps(data, separators=(",", ":")), "actor": "bus",
            "prev_hash": "0" * 64, "hash": f"{seq:064x}"}


def test_a_group_of_bets_in_a_sealed_round_goes_as_it_is_and_its_result_opens_only_the_cards():
    seal = "ab" * 32
    card = _row(3, "event", "card", {"to": "dealer", "card": "AS"})
    entries = [betbatch.entry("AS", "10H", "pair_plus", "10", "QD"), betbatch.entry("r-2", "1", "ante", "5", None)]
    bets = _row(2, betbatch.KIND, betbatch.NAME, {"bets": entries, "root": betbatch.root(entries)})
    assert CARD_CODE.search(bets["data"])  # (it looks like it holds cards)
    result = _row(4, "event", "result", {"outcome": {}})
    rows = [_row(1, "meta", "round", {"seal": seal}), bets, card, result]

    def lookup(round_id=None, table_id=None, kind=None, names=None, upto=None, limit=None):
        found = [r for r in rows if (kind is None or r["kind"] == kind) and (names is None or r["name"] in names)
                 and (upto is None or r["seq"] <= upto)]
        return found[:limit] if limit else found

    sealer = Sealer(lookup)
    sealer.body(rows[0])
    assert sealer.body(bets) == wire.encode_row(bets)
    assert b'"AS"' not in sealer.body(card)  # (the dealer's card: sealed until the result)
    opened = json.loads(sealer.body(result))["opened"]
    assert [(v["seq"], v["value"]) for v in opened["values"]] == [(3, "AS")]
