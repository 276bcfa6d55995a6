"""``card_read`` (the shoe's cheap way to build a ``CardRead``) gives the
same frozen event as the dataclass's own constructor."""

from __future__ import annotations

import dataclasses
import pickle

import pytest
from hypothesis import given, strategies as st

from drivers.events import CardRead, card_read
from tablecore.cards import DECK


@given(st.text(max_size=20), st.integers(0, 500), st.sampled_from(DECK), st.booleans(), st.text(max_size=10))
def test_card_read_is_the_dataclass_event(round_id, index, card, exposed, device):
    cheap = card_read(round_id, index, card, exposed, device)
    full = CardRead(round_id, index, card, exposed, device=device)
    assert type(cheap) is CardRead
    assert cheap == full and hash(cheap) == hash(full) and repr(cheap) == repr(full)
    assert dataclasses.asdict(cheap) == dataclasses.asdict(full)
    assert pickle.loads(pickle.dumps(cheap)) == full


def test_card_read_stays_frozen():
    event = card_read("R-1", 0, DECK[0], False, "shoe")
    with pytest.raises(dataclasses.FrozenInstanceError):
        event.index = 1  # type: ignore[misc]
