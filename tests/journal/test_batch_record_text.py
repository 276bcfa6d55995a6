"""A group of bets' record is written from its entries' texts (as their
Merkle leaves hashed them), not by the encoder walking every bet again:
only where that text is byte for byte the journal's canonical JSON of the
record's data, which the chain covers and every reader checks."""

from __future__ import annotations

from hypothesis import example, given, settings, strategies as st

from tablecore import betbatch
from tablesim.journal.canonical import canonical

#: what a bet's fields may hold: plain ids and amounts, and texts the two encoders write apart
_TEXT = st.one_of(st.sampled_from(["p00001", "joker", "10.50", "d-3fa9c0e1d2b4", "Zoë", "a\x7fb", 'say "hi"',
                                   "back\\slash", "tab\there", "{brace}", "\u2028"]), st.text(max_size=10))
_FIELD = st.one_of(st.none(), _TEXT)
_ENTRY = st.one_of(st.lists(_FIELD, min_size=5, max_size=6),
                   st.lists(st.one_of(_FIELD, st.integers(), st.dictionaries(st.sampled_from(["b", "a"]), _TEXT)),
                            min_size=5, max_size=6))


@settings(max_examples=100, deadline=None)
@given(st.lists(_ENTRY, min_size=1, max_size=6))
@example([["r1", "p1", "joker", "10", "a\x7fb"]])  # (a DEL: escaped by one writing only)
@example([["r1", "p1", "joker", "10", "Zoë"]])  # (beyond ASCII: the same)
@example([["r1", "p1", "joker", "10", {"b": "1", "a": "2"}]])  # (an object: its keys sorted by one only)
def test_a_groups_record_text_is_its_canonical_json_or_none(entries):
    texts: list[str] = []
    tree = betbatch.levels(entries, texts)
    root = betbatch.root(entries, tree)
    text = betbatch.record_text(texts, root)
    if text is not None:
        assert text == canonical({"bets": entries, "root": root})


def test_a_usual_groups_record_text_is_made_from_its_leaves():
    entries = [betbatch.entry(f"d-{i:04x}", f"p{i}", "joker", "10", None if i % 2 else f"p{i}") for i in range(9)]
    texts: list[str] = []
    root = betbatch.root(entries, betbatch.levels(entries, texts))
    assert betbatch.record_text(texts, root) == canonical({"bets": entries, "root": root})
