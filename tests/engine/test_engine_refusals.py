"""``table.can(action)`` / ``table.refusal(action)`` answer from the rules the
machine declares, in the words the refusal itself uses.

Each game's table is driven through a round on mock devices; in every state
it passes through, every public action is asked (with and without
arguments). Where the table says it would refuse, the action is tried: it
must raise ``IllegalAction`` with exactly that reason and change nothing.
Where it says it would accept, the action is tried on a twin table (same
round replayed) and must not be refused.
"""

from __future__ import annotations

import copy

import pytest

from drivers.mock import MockShoe, ScriptedCards
from drivers.mock.display import MockDisplay
from drivers.mock.wheel import MockWheelSensor, ScriptedSpins, Spin
from tablecore.cards import parse_dealt
from tablecore.errors import IllegalAction, InputError
from tablesim.games.football.draw import ScriptedDraw
from tablesim.games.football.profile import load_profile as load_fb
from tablesim.games.football.profile import FootballSettings
from tablesim.games.football.table import FootballTable
from tablesim.games.fortune3.profile import load_profile as load_f3
from tablesim.games.fortune3.profile import Fortune3Settings
from tablesim.games.fortune3.table import Fortune3Table
from tablesim.games.wheel.profile import load_profile as load_wheel
from tablesim.games.wheel.profile import WheelSettings
from tablesim.games.wheel.table import WheelTable

F3_CARDS = "AS 9D KS AH TD QC 7C JD 4H".split()  # boxes 1 and 3, then the dealer


def f3_table():
    shoe = MockShoe(ScriptedCards(parse_dealt(c) for c in F3_CARDS))
    return Fortune3Table(load_f3(), Fortune3Settings(dealing="shoe"), shoe=shoe, table_id="RF")


def f3_round(t):
    """The states of a Fortune 3 round, one after the other."""
    yield
    t.open_round()
    yield
    t.place_bet("1", "ante", 10)
    t.place_bet("3", "ante", 10)
    t.place_bet("3", "pair_plus", 5)
    yield
    t.close_betting()
    yield
    t.start_dealing()
    yield
    while (event := t.shoe.next_event(0)) is not None:
        t.handle(event)
        yield
    t.decide("1", "play")
    yield
    t.decide("3", "fold")
    yield


F3_ASKS = {
    "open_round": [()],
    "place_bet": [(), ("1", "ante", 5), ("9", "ante", 5)],
    "withdraw_bet": [(), ("1", "ante")],
    "close_betting": [()],
    "start_dealing": [()],
    "decide": [(), ("1", "play"), ("1", "maybe"), ("2", "play"), ("3", "fold")],
    "misdeal": [()],
    "stray": [()],
    "void": [("test",)],
    "pause": [()],
    "resume": [()],
    "resolve_incident": [(), ("confirm",), ("perhaps",)],
}


def fb_table():
    shoe = MockShoe(ScriptedCards(parse_dealt(c) for c in "4S 5H KS 7D 6C".split()))
    display = MockDisplay(())
    draws = ScriptedDraw()
    draws.next = 3
    return FootballTable(load_fb(), FootballSettings(decks=1), display=display, shoe=shoe, draws=draws,
                         mode="script", table_id="RB")


def fb_round(t):
    yield
    t.open_round()
    yield
    t.await_draw()
    yield
    t.place_bet("1", "upper", 10)
    yield
    t.close_betting()
    yield
    t.start_dealing()
    yield
    t.handle(t.shoe.next_event(0))
    yield
    while (event := t.shoe.next_event(0)) is not None:
        t.handle(event)
        yield


FB_ASKS = {
    "open_round": [()],
    "place_bet": [(), ("1", "upper", 5)],
    "withdraw_bet": [(), ("1", "upper")],
    "close_betting": [()],
    "start_dealing": [()],
    "settle": [()],
    "void": [("test",)],
    "pause": [()],
    "resume": [()],
}


def wheel_table():
    profile = load_wheel()
    sensor = MockWheelSensor(ScriptedSpins([Spin(17, 2.4), Spin(3, 4.1)]), ())
    return WheelTable(profile, WheelSettings.for_profile(profile), sensor=sensor, table_id="RW")


def wheel_round(t):
    yield
    t.open_round()
    yield
    t.place_bet("alice", "5", 10)
    yield
    t.close_betting()
    yield
    while (event := t.sensor.next_event(0)) is not None:
        t.handle(event)
        yield


WHEEL_ASKS = {
    "open_round": [()],
    "place_bet": [(), ("bob", "5", 5), ("bob", "nothing", 5)],
    "change_bet": [(), ("alice", "5", 20), ("alice", "joker", 20), ("bob", "5", 20), ("alice", "5", "lots")],
    "withdraw_bet": [(), ("alice", "5")],
    "close_betting": [()],
    "declare_no_spin": [()],
    "void": [("test",)],
    "pause": [()],
    "resume": [()],
}

GAMES = {
    "fortune3": (f3_table, f3_round, F3_ASKS),
    "football": (fb_table, fb_round, FB_ASKS),
    "wheel": (wheel_table, wheel_round, WHEEL_ASKS),
}


def fingerprint(t):
    return (t.state, t.round_id, t.paused, t.incident, copy.deepcopy(t.book.bets), t.result is None)


def replay_to(make, drive, steps):
    t = make()
    walk = drive(t)
    for _ in range(steps + 1):
        next(walk)
    return t


@pytest.mark.parametrize("game", list(GAMES))
@pytest.mark.parametrize("paused", [False, True], ids=["running", "paused"])
def test_refusal_is_what_the_action_says(game, paused):
    make, drive, asks = GAMES[game]
    assert set(asks) <= set(make().action_specs), "ask only the table's actions"
    table = make()
    states = []
    for n, _ in enumerate(drive(table)):
        states.append(table.state)
        # A twin table replayed to this state for each question, taken again by the next question
        # while it refused (a refusal is checked to change nothing), replayed anew once an action
        # was taken (the replays were most of the test's CPU: the module 5.2-5.3 -> 2.3-2.5 CPU-s)
        twins: dict[bool, object] = {}
        for name, arg_sets in asks.items():
            for args in arg_sets:
                pause = paused and name != "resume"
                t = twins.pop(pause, None)
                if t is None:
                    t = replay_to(make, drive, n)
                    if pause:
                        t.pause(actor="test", why="test")
                why = t.refusal(name, *args)
                assert t.can(name, *args) is (why is None)
                if why is None:
                    if len(args) < max(len(a) for a in arg_sets) and name not in ("open_round", "close_betting",
                                                                                   "start_dealing", "misdeal",
                                                                                   "stray", "settle", "pause",
                                                                                   "resume", "declare_no_spin"):
                        twins[pause] = t  # (only asked: the twin serves the next question)
                        continue  # asked without its arguments: nothing to try
                    try:
                        getattr(t, name)(*args, **_keywords(name))
                    except IllegalAction as exc:
                        pytest.fail(f"{game} {t.state}: can({name}{args}) but refused: {exc}")
                    except InputError:
                        pass  # bad arguments the rules do not judge (e.g. a card code)
                    continue
                before = fingerprint(t)
                with pytest.raises(IllegalAction) as exc:
                    getattr(t, name)(*args, **_keywords(name))
                assert exc.value.reason == why, (game, t.state, name, args)
                assert fingerprint(t) == before, "a refused action changed the table"
                twins[pause] = t
    assert len(set(states)) >= 4


def _keywords(name):
    return {"actor": "test", "why": "test"} if name in ("pause", "resume", "resolve_incident") else {}


def test_paused_refusal_names_the_action_and_the_pause():
    t = f3_table()
    t.open_round()
    t.pause(actor="test", why="test")
    assert t.refusal("place_bet", "1", "ante", 5) == "the table is paused"
    with pytest.raises(IllegalAction) as exc:
        t.place_bet("1", "ante", 5)
    assert str(exc.value) == "place bet refused: the table is paused"
    assert t.can("void") and t.can("resume") and not t.can("pause")


def test_refusal_without_arguments_asks_only_the_state():
    t = f3_table()
    for _ in f3_round(t):
        if t.state.value == "decisions":
            break
    assert t.can("decide")  # some decision may be taken now
    assert t.refusal("decide", "2", "play") == "box 2 has no Ante: it has no decision to make"
    assert t.refusal("decide", "1", "maybe") == "unknown decision 'maybe' (play or fold)"
    assert t.refusal("start_dealing") == "dealing starts after betting closes (the round is decisions)"


def test_unknown_action_is_an_error_not_a_refusal():
    with pytest.raises(ValueError):
        f3_table().can("fly")
