"""The console's mock dealer (``tablesim serve --mock``) goes on with a round
through the game's own dealer, with people making the dealer's moves: it
takes one device report per step, at the console's pace, and never opens,
deals, decides or voids by itself."""

from __future__ import annotations

from tablesim.games import registry
from tablesim.games.console import MockDealer
from tablesim.games.rig import mock_rig


def _dealer(game: str, **options):
    rig = mock_rig(game, seed=3, options=options)
    return rig.table, MockDealer(registry.spec(game).part("console")(rig.table, rig))


def test_fortune3_one_card_a_step_and_no_dealer_moves():
    table, dealer = _dealer("fortune3", dealing="shoe")
    assert dealer.step() is None and table.state.value == "idle"  # nobody pressed "new round"
    table.open_round()
    table.place_bet("1", "ante", 10)
    assert dealer.step() is None and table.state.value == "betting_open"  # betting stays open
    table.close_betting()
    assert dealer.step() is None and table.state.value == "bets_closed"  # nobody pressed "deal"
    cards = []
    table.bus.subscribe(lambda event: event.kind == "card" and cards.append(event))
    table.start_dealing()
    steps = 0
    while table.state.value == "dealing":
        assert dealer.step() == 1.0  # a card, then the console waits a card's time
        steps += 1
    assert len(cards) == 6 and steps >= 6  # box 1 and the dealer, three cards each (an exposed card is replaced)
    assert table.state.value == "decisions" and table.pending_decisions() == ["1"]
    assert dealer.step() is None and table.pending_decisions() == ["1"]  # the player decides, not the mock
    table.decide("1", "play")
    assert table.state.value == "complete"


def test_wheel_spins_only_when_asked_and_a_quiet_sensor_voids_nothing():
    table, dealer = _dealer("wheel")
    table.open_round()
    table.place_bet("p1", "joker", 5)
    table.close_betting()
    state = table.state
    dealer.adapter.rig.spin_requested = False
    assert dealer.step() is None and table.state is state  # the sensor is quiet: nothing voids the round
    dealer.adapter.rig.spin_requested = True
    while table.state.value not in ("complete", "void"):
        assert dealer.step() is not None
    assert table.state.value == "complete"
