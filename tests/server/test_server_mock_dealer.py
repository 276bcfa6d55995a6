"""The console's mock dealer (``tablesim serve --mock``) goes on with a round
through the game's own dealer, with people making the dealer's moves: it
takes one device report per step, at the console's pace, and never opens,
deals, decides or voids by itself."""

from __future__ import annotations

import time

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


def test_an_idle_served_table_rests_its_pump_and_a_deal_starts_at_once(serve):
    """Served with mock devices, a table with nothing to deal does not ask
    its mock dealer 20 times a second (a thread hop each, the table PC's
    CPU for nothing): the pump rests until a command may have given the
    hands something to do, and the dealer's "deal" starts dealing at once,
    not at the end of the rest."""
    from tablesim.server import devicefeed
    from server_helpers import ok

    s = serve("fortune3", pace=0.001, dealing="shoe")
    steps = []
    dealer = s.runner.mock_dealer
    step = dealer.step
    dealer.step = lambda *a: steps.append(time.monotonic()) or step(*a)  # (counted on the table's thread)
    time.sleep(1.0)  # idle: nobody opened a round
    assert len(steps) <= 5, len(steps)  # (it asked 20 times a second)
    ok(s.post("/api/actions/open_round"))
    ok(s.post("/api/bets", {"position": "1", "bet": "ante", "amount": "10"}))
    ok(s.post("/api/actions/close_betting"))
    asked = time.monotonic()
    ok(s.post("/api/actions/deal"))
    s.wait_state("decisions", "complete", "void")
    first = min(t for t in steps if t > asked)  # the hands' first move after the "deal"
    assert first - asked < devicefeed.IDLE_POLL * 0.8, (first - asked)


def test_a_resting_pump_told_to_stop_as_it_is_woken_stops(serve):
    """The table stops (Ctrl-C, SIGTERM) by cancelling its pump. A cancel that
    comes in the same turn as a command's wake-up must still end it: on
    Python 3.11 ``asyncio.wait_for`` returns the woken result and drops the
    cancel, and the table then never stopped (seen twice on a loaded machine)."""
    import asyncio

    s = serve("wheel", pace=0.001)
    runner = s.runner
    [pump] = [t for t in runner.tasks if t.get_name() == "pump"]
    time.sleep(0.2)  # (idle: the pump rests)

    def both() -> None:
        runner.feed.poke()
        pump.cancel()

    runner.loop.call_soon_threadsafe(both)

    async def ended() -> bool:
        await asyncio.wait([pump], timeout=5)
        return pump.done()

    assert asyncio.run_coroutine_threadsafe(ended(), runner.loop).result(10)


def _steps_once_betting(s) -> list[float]:
    """When the mock dealer's hands take each step from now on (on the table's thread),
    counted from once betting is open and the pump has come to rest."""
    from server_helpers import ok

    steps: list[float] = []
    dealer = s.runner.mock_dealer
    step = dealer.step
    dealer.step = lambda *a: steps.append(time.monotonic()) or step(*a)
    ok(s.post("/api/actions/open_round"))
    time.sleep(0.3)
    steps.clear()
    return steps


def test_a_group_of_bets_does_not_wake_the_resting_pump_and_an_action_still_does(serve, monkeypatch):
    """Bets change no state the mock dealer's hands wait on: a group of bets leaves the
    resting pump asleep (woken, it ran a command of its own on the table's thread after
    every group), and the next action still wakes it at once. The pump's own rest is made
    longer than the test, so every step counted is a wake-up (with its 0.5 s rest, the
    20 bets took 1.8 s in a full run under load: four rests of its own, counted as more
    than the three allowed)."""
    from server_helpers import ok
    from tablesim.server import devicefeed

    rest = devicefeed.IDLE_POLL
    monkeypatch.setattr(devicefeed, "IDLE_POLL", 60.0)
    s = serve("wheel", pace=0.001)
    steps = _steps_once_betting(s)
    for i in range(20):
        ok(s.post("/api/bets", {"position": f"p{i}", "bet": "joker", "amount": "1"}))
    assert steps == []  # (woken by each bet: 20 steps or more)
    assert s.runner.table.book.snapshot()["p19"] == {"joker": "1"}
    asked = time.monotonic()
    ok(s.post("/api/actions/close_betting"))
    deadline = time.monotonic() + 5
    while not steps and time.monotonic() < deadline:
        time.sleep(0.01)
    assert steps and steps[0] - asked < rest * 0.8  # (woken at once: its own rest would have been a minute)


def test_bets_spread_over_the_views_interval_leave_the_pump_asleep(serve, monkeypatch):
    """Bets that come slower than the view's rebuilds (``SNAPSHOT_EVERY``: a loaded machine's
    bets) have the view rebuilt later, on the table's thread; that rebuild gives the mock
    dealer's hands nothing to do and leaves the resting pump asleep (it woke the pump once a
    rebuild: the test above then counted four steps in 0.6 s under load). The pump's own
    rest is made longer than the test, so every step counted is a wake-up."""
    from server_helpers import ok
    from tablesim.server import devicefeed, snapshot

    monkeypatch.setattr(devicefeed, "IDLE_POLL", 60.0)
    s = serve("wheel", pace=0.001)
    steps = _steps_once_betting(s)
    for i in range(8):
        ok(s.post("/api/bets", {"position": f"p{i}", "bet": "joker", "amount": "1"}))
        time.sleep(snapshot.SNAPSHOT_EVERY / 2)
    time.sleep(snapshot.SNAPSHOT_EVERY * 2)  # (the last rebuild due)
    assert steps == []
    ok(s.post("/api/actions/close_betting"))  # an action still wakes it
    deadline = time.monotonic() + 5
    while not steps and time.monotonic() < deadline:
        time.sleep(0.01)
    assert steps
