"""Properties of any round: exact, consistent settlement; a void returns everything."""

from __future__ import annotations

from dataclasses import replace

import random
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.mock import MockShoe, ShuffledShoe
from drivers.mock.display import MockDisplay
from tablesim.games.football.draw import ScriptedDraw
from tablesim.games.football.machine import CARD_STATES, S
from tablesim.games.football.profile import BETS, load_profile
from tablesim.games.football.rules import total
from tablesim.games.football.profile import FootballSettings, default_limits
from tablesim.games.football.table import FootballTable
from examples import examples

PROFILE = load_profile()
POSITIONS = PROFILE.positions

amounts = st.decimals(min_value=1, max_value=10000, places=2, allow_nan=False, allow_infinity=False)
box_bets = st.dictionaries(st.sampled_from(BETS), amounts, min_size=1, max_size=5)
round_bets = st.dictionaries(st.sampled_from(POSITIONS), box_bets, min_size=1, max_size=11)


def make_table(decks: int, seed: int):
    source = ShuffledShoe(random.Random(seed), decks, reshuffle_each_load=True, exposed_rate=0.05)
    draws = ScriptedDraw()
    # Stakes in cents, paid to the ten-thousandth: every win is paid exactly.
    limits = replace(default_limits(), unit=Decimal("0.01"), payout_unit=Decimal("0.0001"))
    table = FootballTable(PROFILE, FootballSettings(decks=decks, limits=limits), display=MockDisplay(), shoe=MockShoe(source),
                          draws=draws, mode="script")
    events = []
    table.bus.subscribe(events.append)
    return table, draws, events


def play(table, draws, draw, bets, void_after=None):
    draws.next = draw
    table.open_round()
    table.await_draw()
    for box, per_box in bets.items():
        for bet, amount in per_box.items():
            table.place_bet(box, bet, amount)
    if void_after == -1:
        return table.void("operator")
    table.close_betting()
    table.start_dealing()
    while table.state in CARD_STATES:
        if void_after is not None and len(table.round_cards) >= void_after:
            return table.void("operator")
        table.handle(table.shoe.next_event(0))
    return table.result


@settings(max_examples=examples(150), deadline=None)
@given(draw=st.integers(1, 8), bets=round_bets, decks=st.integers(1, 8), seed=st.integers(0, 2**32))
def test_any_settled_round(draw, bets, decks, seed):
    table, draws, _ = make_table(decks, seed)
    result = play(table, draws, draw, bets)
    assert result.status == "settled"
    placed = {box: {bet: Decimal(a) for bet, a in per.items()} for box, per in bets.items()}
    assert set(result.results) == set(placed)
    boxes = result.outcome["boxes"]
    assert list(boxes) == [p for p in POSITIONS if p in placed and p != "common"] + ["common"]
    for box, info in boxes.items():
        dealt = [d.card for d in table.cards[box]]
        assert info["total"] == total(PROFILE, dealt)
        assert len(dealt) == (3 if total(PROFILE, dealt[:2]) in PROFILE.middle else 2)
    for box, per in result.results.items():
        assert result.net[box] == sum(per.values(), Decimal(0))
        assert set(per) == set(placed[box])
        for bet, value in per.items():
            stake = placed[box][bet]
            assert isinstance(value, Decimal)
            assert -stake <= value <= stake * PROFILE.pays[bet]  # never more than the pay ratio
            if value > 0:
                assert value == stake * PROFILE.pays[bet] * (1 - PROFILE.commission.get(bet, Decimal(0)))
            if value == 0:
                assert bet in ("upper", "lower") and boxes[box]["total"] in PROFILE.middle
    assert result.house_result() == -sum(result.net.values(), Decimal(0))


@settings(max_examples=examples(80), deadline=None)
@given(draw=st.integers(1, 8), bets=round_bets, seed=st.integers(0, 2**32), void_after=st.integers(-1, 20))
def test_a_void_returns_everything(draw, bets, seed, void_after):
    table, draws, events = make_table(1, seed)
    result = play(table, draws, draw, bets, void_after)
    if result.status == "settled":
        return  # the round ended before the void point
    assert result.results == {} and result.net == {}
    assert table.state is S.VOID
    returned = next(e.data["returned"] for e in events if e.kind == "void")
    assert {b: {k: Decimal(v) for k, v in per.items()} for b, per in returned.items()} == {
        box: {bet: Decimal(a) for bet, a in per.items()} for box, per in bets.items()
    }
