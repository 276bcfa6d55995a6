"""The texts the table makes (refusals, incidents, device faults) carry a
message id and its values, and every id is in the catalogs: a walk of the
source for every id the code names (and for a refusal written in plain
English), a walk of every game's round asking every action in every state
(each refusal an id of the catalogs, its English the en catalog's, its
values filling every language's placeholders), and the device fault codes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

import drivers.events
from drivers.mock import MockShoe, ScriptedCards
from drivers.mock.display import MockDisplay
from drivers.mock.wheel import MockWheelSensor, ScriptedSpins, Spin
from tablecore.cards import parse_dealt
from tablecore.errors import IllegalAction, InputError
from tablecore.said import DEVICE_FAULTS, Said, device_text, fill
from tablesim.games import registry
from tablesim.games.football.draw import ScriptedDraw
from tablesim.games.football.profile import load_profile as load_fb
from tablesim.games.football.settings import FootballSettings
from tablesim.games.football.table import FootballTable
from tablesim.games.fortune3.profile import load_profile as load_f3
from tablesim.games.fortune3.settings import Fortune3Settings
from tablesim.games.fortune3.table import Fortune3Table
from tablesim.games.wheel.profile import load_profile as load_wheel
from tablesim.games.wheel.settings import WheelSettings
from tablesim.games.wheel.table import WheelTable
from tablesim.i18n import CORE_FOLDERS, LANGUAGES, merged, placeholders
from tablesim.studio import bus_bets

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = [*CORE_FOLDERS] + [registry.spec(g).catalog_dir() for g in registry.names()]
CATALOGS = {lang: merged(lang, FOLDERS) for lang in LANGUAGES}
SOURCES = [p for d in ("tablesim", "drivers", "tablecore") for p in (ROOT / d).rglob("*.py")]
#: a message made where the code names its id: ``W("refusal.no_bet", ...)``, ``WORDS(f"...")``
MADE = re.compile(r"""\b(?:W|C|WORDS|CORE_WORDS)\(\s*(f?)(["'])([a-z0-9_.{}]+)\2""")
#: a refusal or an incident written as a plain English text, not from a catalog
PLAIN = re.compile(r"""\bRefused\(\s*f?["']|\bIllegalAction\(\s*["'][^"']*["']\s*,\s*f?["']|"""
                   r"""\bopen_incident\(\s*[\w.]+\s*,\s*f?["']""")


def made_ids() -> dict[str, str]:
    """Every message id the code makes a text of (an f-string's as a pattern) -> where."""
    out: dict[str, str] = {}
    for path in SOURCES:
        text = path.read_text(encoding="utf-8")
        for m in MADE.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            out.setdefault(("f:" if m.group(1) else "") + m.group(3), f"{path.relative_to(ROOT)}:{line}")
    return out


def known(msg_id: str) -> bool:
    if not msg_id.startswith("f:"):
        return msg_id in CATALOGS["en"]
    pattern = re.compile(re.sub(r"\\\{[^}]*\\\}", "[a-z0-9_]*", re.escape(msg_id[2:])))
    return any(pattern.fullmatch(k) for k in CATALOGS["en"])


def test_every_id_the_code_makes_is_in_every_catalog():
    ids = made_ids()
    assert len(ids) > 60  # the scan sees the code's ids
    missing = {i: where for i, where in ids.items() if not known(i)}
    assert not missing, missing


def test_the_scan_fails_on_an_id_in_no_catalog(tmp_path):
    assert not known("refusal.no_such_thing") and not known("f:wheel.incident.{key}.no_such")
    assert known("refusal.no_bet") and known("f:refusal.under_minimum{of}") and known("f:wheel.incident.{k}.no_round")


def test_no_refusal_or_incident_is_written_in_plain_english():
    plain = []
    for path in SOURCES:
        text = path.read_text(encoding="utf-8")
        plain += [f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}" for m in PLAIN.finditer(text)]
    assert not plain, plain
    assert PLAIN.search('raise Refused(f"box {box} is taken")') and PLAIN.search('IllegalAction("bet", "no")')


def test_every_device_fault_code_is_named_in_every_language():
    codes = {v for k, v in vars(drivers.events).items() if k.isupper() and isinstance(v, int) and 200 <= v < 600}
    assert codes >= DEVICE_FAULTS and len(codes) >= 15
    for lang, cat in CATALOGS.items():
        missing = sorted(c for c in codes if f"fault.{c}" not in cat)
        assert not missing, f"{lang}: no words for device faults {missing}"
    # an incident a device's fault opened is worded by its code; the studio's 301 (a stalled link) never is
    assert device_text(201, "card misread") == {"id": "fault.201", "args": {"text": "card misread"}}
    assert device_text(301, "studio link stopped publishing") is None


# --- every refusal of every game, in every state ------------------------------------------


def f3_table():
    shoe = MockShoe(ScriptedCards(parse_dealt(c) for c in "AS 9D KS AH TD QC 7C JD 4H".split()))
    return Fortune3Table(load_f3(), Fortune3Settings(dealing="shoe"), shoe=shoe, table_id="RF")


def f3_round(t):
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


def fb_table():
    shoe = MockShoe(ScriptedCards(parse_dealt(c) for c in "4S 5H KS 7D 6C".split()))
    draws = ScriptedDraw()
    draws.next = 3
    return FootballTable(load_fb(), FootballSettings(decks=1), display=MockDisplay(()), shoe=shoe, draws=draws,
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
    while (event := t.shoe.next_event(0)) is not None:
        t.handle(event)
        yield


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


BET_ASKS = [(), ("1", "ante", 5), ("9", "ante", 5), ("1", "nothing", 5), ("1", "ante", "0.5"), ("1", "ante", "7.5"),
            ("1", "ante", "99999999"), ("1", "ante", "-1"), ("1", "ante", "ten"), ("1", "ante", 5, " ann"),
            ("1", "ante", 5, "2"), ("1", "ante", 5, "ann"), ("3", "ante", 5, "ann")]
ASKS = {
    "fortune3": (f3_table, f3_round, {
        "open_round": [()], "place_bet": BET_ASKS, "withdraw_bet": [(), ("1", "ante"), ("1", "ante", "bob")],
        "close_betting": [()], "start_dealing": [()], "misdeal": [()], "stray": [(), ("QH",)],
        "decide": [(), ("1", "play"), ("1", "maybe"), ("2", "play"), ("3", "fold"), ("1", "play", "bob")],
        "void": [("test",)], "pause": [()], "resume": [()], "resolve_incident": [(), ("confirm",), ("perhaps",)],
        "set_dealing": [("shoe",), ("shuffler",), ("dice",)], "confirm_shuffler": [()]}),
    "football": (fb_table, fb_round, {
        "open_round": [()], "place_bet": [(), ("1", "upper", 5), ("99", "upper", 5), ("1", "upper", "0.5"),
                                          ("1", "upper", "99999999"), ("1", "side", 5)],
        "withdraw_bet": [(), ("1", "upper")], "close_betting": [()], "start_dealing": [()], "settle": [()],
        "void": [("test",)], "pause": [()], "resume": [()], "resolve_incident": [("perhaps",)]}),
    "wheel": (wheel_table, wheel_round, {
        "open_round": [()], "place_bet": [(), ("bob", "5", 5), ("bob", "nothing", 5), ("bob", "5", "0.5"),
                                          ("bob", "5", "99999999")],
        "change_bet": [(), ("alice", "5", 20), ("alice", "joker", 20), ("bob", "5", 20), ("alice", "5", "lots"),
                       ("alice", "5", "99999999")],
        "withdraw_bet": [(), ("alice", "5")], "close_betting": [()], "declare_no_spin": [()],
        "void": [("test",)], "pause": [()], "resume": [()]}),
}


def check_worded(why: str, where: str) -> None:
    """A refusal: a message of the catalogs, its English the en catalog's text
    with its values, and every language's placeholders filled by them."""
    assert isinstance(why, Said) and why.msg_id, f"{where}: a refusal without a message id: {why!r}"
    assert why.msg_id in CATALOGS["en"], f"{where}: {why.msg_id} is in no catalog"
    assert str(why) == fill(CATALOGS["en"][why.msg_id], why.params), f"{where}: {why!r} is not the en catalog's"
    for lang, cat in CATALOGS.items():
        assert placeholders(cat[why.msg_id]) <= set(why.args), f"{where}: {lang} {why.msg_id} needs {cat[why.msg_id]}"


def walk(game: str):
    """Each state of the game's round, each action with each of its asks, on
    a fresh table driven to that state (an action tried changes it)."""
    make, drive, asks = ASKS[game]
    assert set(asks) <= set(make().action_specs)
    for n, _ in enumerate(drive(make())):
        for name, arg_sets in asks.items():
            for args in arg_sets:
                t = make()
                steps = drive(t)
                for _ in range(n + 1):
                    next(steps)
                yield t, name, args


def ask_and_try(t, name: str, args: tuple, where: str) -> set[str]:
    """The ids of the refusal the table says and of the one the action raises."""
    seen = set()
    why = t.refusal(name, *args)
    if why is not None:
        check_worded(why, where)
        seen.add(why.msg_id)
    keywords = {"actor": "test", "why": "test"} if name in SUPERVISED else {}
    try:
        getattr(t, name)(*args, **keywords)
    except IllegalAction as exc:
        check_worded(exc.reason, where)
        seen.add(exc.reason.msg_id)
    except (InputError, TypeError, ValueError):
        pass  # a call the walk makes without its arguments, or a bad card code
    return seen


SUPERVISED = ("pause", "resume", "void", "resolve_incident", "set_dealing", "confirm_shuffler")


@pytest.mark.parametrize("game", list(ASKS))
def test_every_refusal_of_every_state_is_worded_from_the_catalogs(game):
    seen = set()
    for t, name, args in walk(game):
        seen |= ask_and_try(t, name, args, f"{game} {t.state.value} {name}{args}")
    assert len(seen) >= 8, seen
    # paused, every action but resume is held (and resume of a running table refused)
    make, drive, asks = ASKS[game]
    t = make()
    t.open_round()
    t.pause(actor="test", why="test")
    held = set()
    for name, arg_sets in asks.items():
        for args in arg_sets:
            held |= ask_and_try(t, name, args, f"{game} paused {name}{args}")
    assert "refusal.table_paused" in held and "refusal.already_paused" in held


@settings(max_examples=60, deadline=None)
@given(position=st.sampled_from(["1", "3", "7", "8", "0", "common"]), bet=st.sampled_from(["ante", "pair_plus", "x"]),
       amount=st.one_of(st.integers(-5, 10**9), st.decimals(allow_nan=False, allow_infinity=False, places=3).map(str),
                        st.text(max_size=6)),
       player=st.one_of(st.none(), st.sampled_from(["ann", "bob", " x", "1", ""])))
def test_any_bet_refused_is_worded_from_the_catalogs(position, bet, amount, player):
    t = f3_table()
    t.open_round()
    t.place_bet("3", "ante", 10, "cy")
    try:
        t.place_bet(position, bet, amount, player)
    except IllegalAction as exc:
        check_worded(exc.reason, f"bet {position} {bet} {amount!r} {player!r}")


@settings(max_examples=80, deadline=None)
@given(doc=st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
                        lambda inner: st.lists(inner, max_size=3)
                        | st.dictionaries(st.sampled_from(["v", "bets", "ref", "position", "bet", "amount", "player",
                                                           "round", "x"]), inner, max_size=6), max_leaves=12))
def test_a_bad_bet_over_the_bus_is_worded_from_the_catalogs(doc):
    body = json.dumps(doc).encode()
    try:
        parsed = bus_bets.parse_request(body)
    except InputError as exc:
        check_worded(exc.message, f"request {doc!r}")
        return
    for result in parsed:
        if "error" in result:
            said = result["say"]
            assert result["detail"] == fill(CATALOGS["en"][said["id"]], said["args"]), result
