"""Properties of settlement, for any bets and any segment."""

from __future__ import annotations

from dataclasses import replace

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.mock.wheel import MockWheelSensor, ScriptedSpins, Spin
from tablesim.games.wheel.machine import S
from tablesim.games.wheel.profile import load_profile
from tablesim.games.wheel.profile import WheelSettings, default_limits
from tablesim.games.wheel.settle import settle
from tablesim.games.wheel.table import WheelTable
from examples import examples

PROFILE = load_profile()
SOURCE = ScriptedSpins()
SENSOR = MockWheelSensor(SOURCE)
TABLE = WheelTable(PROFILE, WheelSettings.for_profile(PROFILE, limits=replace(default_limits(PROFILE.spots), unit=Decimal("0.01"))),
                   sensor=SENSOR, table_id="PROP")

amounts = st.decimals(min_value=Decimal(1), max_value=Decimal(800), places=2, allow_nan=False, allow_infinity=False)
bets = st.lists(
    st.tuples(st.sampled_from(["ann", "ben", "cy", "7"]), st.sampled_from(PROFILE.spots), amounts),
    min_size=1,
    max_size=12,
)


def _stakes(placed):
    out: dict[tuple[str, str], Decimal] = {}
    for player, spot, amount in placed:
        out[(player, spot)] = out.get((player, spot), Decimal(0)) + amount
    return out


def _play(placed, spins):
    if TABLE.state not in (S.IDLE, S.COMPLETE, S.VOID):  # an earlier example stopped mid-round
        TABLE.void("reset")
    SENSOR.reset()
    SOURCE.clear()
    SOURCE.feed(spins)
    TABLE.open_round()
    for player, spot, amount in placed:
        TABLE.place_bet(player, spot, amount)
    TABLE.close_betting()


@settings(max_examples=examples(150), deadline=None)
@given(bets, st.integers(0, 51), st.integers(0, 3))
def test_exactly_the_bets_on_the_winning_symbol_win_stake_times_pay(placed, segment, no_spins):
    spins = [Spin((segment + 1) % 52, 2.5)] * no_spins + [Spin(segment, 4.5)]
    _play(placed, spins)
    while TABLE.state in (S.BETS_CLOSED, S.SPINNING):
        TABLE.handle(SENSOR.next_event(0))
    result = TABLE.result
    symbol = PROFILE.layout[segment]
    assert result.status == "settled"
    assert result.outcome == {"segment": segment, "symbol": symbol, "no_spins": no_spins}
    stakes = _stakes(placed)
    assert {(p, s) for p, r in result.results.items() for s in r} == set(stakes)
    for (player, spot), stake in stakes.items():
        value = result.results[player][spot]
        if spot == symbol:
            assert value == stake * PROFILE.pays(spot) and value > 0
        else:
            assert value == -stake
    for player, per in result.results.items():
        assert result.net[player] == sum(per.values(), Decimal(0))
    # the house result is what the players lost minus what they won
    assert result.house_result() == -sum(result.results[p][s] for p, s in stakes)
    # the pure function agrees with the table
    assert settle(PROFILE, placed, symbol) == result.results


@settings(max_examples=examples(60), deadline=None)
@given(bets, st.integers(0, 3))
def test_a_void_returns_every_bet(placed, steps):
    _play(placed, [Spin(0, 1.0), Spin(0, 1.5), Spin(0, 5.0)])
    for _ in range(steps):  # void at some point before settlement
        TABLE.handle(SENSOR.next_event(0))
    assert TABLE.state in (S.BETS_CLOSED, S.SPINNING)
    returned = []
    TABLE.bus.subscribe(lambda e: returned.append(e) if e.kind == "void" else None)
    try:
        result = TABLE.void("test")
    finally:
        TABLE.bus.subscribers = []
    assert result.status == "void" and result.results == {} and result.net == {}
    stakes = _stakes(placed)
    assert {(p, s): a for p, per in result.bets.items() for s, a in per.items()} == stakes
    assert sum(stakes.values(), Decimal(0)) == TABLE.book.total()
    assert returned[0].data["returned"] == TABLE.book.snapshot()
