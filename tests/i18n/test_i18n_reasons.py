"""The texts the table makes (refusals, incidents, device faults) carry a
message id and its values, and every id is in the catalogs: a walk of the
source for every id the code names (and for a refusal written in plain
English), a walk of every game's round asking every action in every state
(each refusal an id of the catalogs, its English the en catalog's, its
values filling every language's placeholders), and the device fault codes."""

from __future__ import annotations

import copy
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
from tablecore.wording import CORE_WORDS, DEVICE_FAULTS, Said, device_text, fill
from tablesim.games import registry
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
from tablesim.i18n import CORE_FOLDERS, LANGUAGES, merged, placeholders
from tablesim.studio import bus_bets
from examples import examples

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = [*CORE_FOLDERS] + [d for g in registry.names() if (d := registry.spec(g).catalog_dir()) is not None]
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


def found(pattern: re.Pattern) -> list[str]:
    """Where the code has a match of ``pattern``: file:line."""
    out = []
    for path in SOURCES:
        text = path.read_text(encoding="utf-8")
        out += [f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}" for m in pattern.finditer(text)]
    return out


def test_no_refusal_or_incident_is_written_in_plain_english():
    plain = found(PLAIN)
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
    a table driven to that state (an action tried changes it). The table is
    driven anew for each ask, unless the last ask's action was refused and
    left it as it was (state, round, pause, incident, bets, result: what a
    refusal is checked to leave alone, tests/engine/test_engine_refusals.py):
    then the next ask takes it (the walk is told by ``send``). Replaying the
    round for every ask was most of the test's CPU."""
    make, drive, asks = ASKS[game]
    assert set(asks) <= set(make().action_specs)
    for n, _ in enumerate(drive(make())):
        t = None
        for name, arg_sets in asks.items():
            for args in arg_sets:
                if t is None:
                    t = make()
                    steps = drive(t)
                    for _ in range(n + 1):
                        next(steps)
                before = _fingerprint(t)
                refused = yield t, name, args
                if not (refused and _fingerprint(t) == before):
                    t = None


def _fingerprint(t) -> tuple:
    return (t.state, t.round_id, t.paused, t.incident, copy.deepcopy(t.book.bets), t.result is None)


def ask_and_try(t, name: str, args: tuple, where: str, refused: list | None = None) -> set[str]:
    """The ids of the refusal the table says and of the one the action raises
    (``refused``: a True appended when the action raised ``IllegalAction``)."""
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
        if refused is not None:
            refused.append(True)
    except (InputError, TypeError, ValueError):
        pass  # a call the walk makes without its arguments, or a bad card code
    return seen


SUPERVISED = ("pause", "resume", "void", "resolve_incident", "set_dealing", "confirm_shuffler")


@pytest.mark.parametrize("game", list(ASKS))
def test_every_refusal_of_every_state_is_worded_from_the_catalogs(game):
    seen = set()
    asks = walk(game)
    ask = next(asks, None)
    while ask is not None:
        t, name, args = ask
        refused: list = []
        seen |= ask_and_try(t, name, args, f"{game} {t.state.value} {name}{args}", refused)
        try:
            ask = asks.send(bool(refused))
        except StopIteration:
            ask = None
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


@settings(max_examples=examples(60), deadline=None)
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


@settings(max_examples=examples(80), deadline=None)
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


# --- the dealer's instructions, void reasons, the APIs' 422s, the platform's refusals -------

#: an instruction to the dealer written as an English text, not from a catalog
PLAIN_INSTRUCTION = re.compile(r"""\bInstruction\(\s*text=\s*(?:f?["'(])""")
#: a round made void by its code: ``self.void("misdeal")``, ``void("misread" if ... else "shoe_fault")``
VOIDED = re.compile(r"""\.void\(([^)\n]*)\)""")
CODE = re.compile(r"""(?<![=\w])["']([a-z][a-z0-9_]*)["']""")
COMPARED = re.compile(r"""[=!]=\s*["'][^"']*["']""")
KEYWORD = re.compile(r"""(?:^|,)\s*[a-z_]+\s*=(?!=)[^,]*""")
CONSTANT = re.compile(r"""^([A-Z][A-Z0-9_]*)\s*=\s*["']([a-z][a-z0-9_]*)["']""", re.M)


def codes_voided(text: str) -> list[tuple[str, int]]:
    """The void reasons a source gives (a literal, or a module's constant), with their offsets."""
    constants = dict(CONSTANT.findall(text))
    out = []
    for m in VOIDED.finditer(text):
        args = KEYWORD.sub("", COMPARED.sub("", m.group(1)))  # (actor=..., why=..., == "x": not the reason)
        names = [constants[n] for n in re.findall(r"\b[A-Z][A-Z0-9_]*\b", args) if n in constants]
        out += [(code, m.start()) for code in CODE.findall(args) + names]
    return out


def void_codes() -> dict[str, str]:
    """Every void reason the code gives -> where."""
    out: dict[str, str] = {}
    for path in SOURCES:
        text = path.read_text(encoding="utf-8")
        for code, at in codes_voided(text):
            out.setdefault(code, f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, at) + 1}")
    return out


def test_no_instruction_is_written_in_plain_english():
    plain = found(PLAIN_INSTRUCTION)
    assert not plain, plain
    assert PLAIN_INSTRUCTION.search('self.emit(Instruction(text="place your bets"))')
    assert PLAIN_INSTRUCTION.search('Instruction(text=f"card {n} to box {who}", to=who)')
    assert not PLAIN_INSTRUCTION.search('Instruction(text=W("fortune3.next.reveal"))')


def test_every_void_reason_the_code_gives_is_worded_in_every_language():
    codes = void_codes()
    assert {"misdeal", "misread", "shoe_fault", "sensor_fault", "interrupted", "device_link_lost"} <= set(codes), codes
    for lang, cat in CATALOGS.items():
        missing = {c: where for c, where in codes.items() if f"void.{c}" not in cat}
        assert not missing, f"{lang}: void reasons without words: {missing}"
    # the supervisor's own void (the console's default reason) too
    assert all("void.supervisor" in cat for cat in CATALOGS.values())


def test_the_void_scan_sees_a_code_in_no_catalog():
    text = ('X = "sensor_fault"\nself.void("misread" if e.code == M else "shoe_fault", actor="ann")\nself.void(X)\n'
            'self.void("a_fault" if self.dealing == "shuffler" else "b_fault")\n')
    assert [c for c, _ in codes_voided(text)] == ["misread", "shoe_fault", "sensor_fault", "a_fault", "b_fault"]
    assert "void.no_such_code" not in CATALOGS["en"]


ROUNDS = {"fortune3": (f3_table, f3_round), "football": (fb_table, fb_round), "wheel": (wheel_table, wheel_round)}


@pytest.mark.parametrize("game", list(ROUNDS))
def test_every_instruction_of_a_round_is_worded_from_the_catalogs(game):
    make, drive = ROUNDS[game]
    t = make()
    seen = []
    t.bus.subscribe(lambda e: seen.append(e) if e.kind == "instruction" else None)
    for _ in drive(t):
        pass
    assert len(seen) >= 3, [e.data for e in seen]
    for e in seen:
        said = e.data.get("say")
        assert said and said["id"] in CATALOGS["en"], f"{game}: an instruction without a message id: {e.data}"
        # the English text the journal keeps is the catalog's, with the values the message carries
        assert e.data["text"] == fill(CATALOGS["en"][said["id"]], said["args"]), e.data
        for lang, cat in CATALOGS.items():
            assert placeholders(cat[said["id"]]) <= set(said["args"]), f"{lang} {said['id']}: {said['args']}"


def test_an_instruction_journaled_by_an_earlier_release_reads_as_it_did():
    from tablecore.codec import decode
    from tablecore.records import Instruction

    old = decode({"$record": "Instruction", "text": "place your bets"})  # no message id: its text stands
    assert old == Instruction(text="place your bets") and "say" not in old.as_data()
    new = Instruction(text=CORE_WORDS("instruction.place_bets"))
    assert new.as_data() == {"text": "place your bets", "say": {"id": "instruction.place_bets", "args": {}}}
    assert decode(json.loads(json.dumps({"$record": "Instruction", **new.as_data()}))) == new


def test_a_storage_refusal_is_worded_from_the_catalogs():
    from tablesim.journal.storage import StorageError

    for retry in (True, False):
        exc = StorageError("/data/T1.sqlite", "database or disk is full", retry=retry)
        check_worded(exc.reason, f"storage retry={retry}")
        assert str(exc.reason).startswith("journal /data/T1.sqlite: database or disk is full: ")


def test_a_storage_refusal_names_the_journal_by_its_file_only_in_its_values_too():
    from types import SimpleNamespace

    from tablesim.journal.storage import StorageError
    from tablesim.server.betrequests import refusal

    body = refusal(StorageError("/data/studio/T1.sqlite", "database or disk is full"),
                   SimpleNamespace(path="/data/studio/T1.sqlite"))
    assert "/data/studio" not in json.dumps(body), body
    assert body["say"] == {"id": "refusal.journal_retry", "args": {"path": "T1.sqlite", "why": "database or disk is full"}}


# the bodies of the APIs (the table's and the games' consoles'): whatever a client sends, a 422 is worded

def body_models():
    from pydantic import BaseModel

    import tablesim.games.console as console
    import tablesim.server.betrequests  # noqa: F401 (the bet and batch bodies, on console.Body)
    import tablesim.server.routes.operator  # noqa: F401 (its bodies)
    for g in registry.names():
        registry.spec(g).part("console")  # (each game's console, wherever it is: its own bodies)
    out, todo = [], [console.Body]
    while todo:
        cls = todo.pop()
        todo += cls.__subclasses__()
        if issubclass(cls, BaseModel) and cls.model_fields:
            out.append(cls)
    return out


FIELDS = st.sampled_from(["position", "bet", "amount", "ref", "player", "bets", "why", "reason", "decision", "card",
                          "box", "mode", "x"])
VALUES = st.recursive(st.none() | st.booleans() | st.integers(-10, 10**20) | st.floats(allow_nan=False)
                      | st.text(max_size=600), lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(FIELDS, inner, max_size=4), max_leaves=8)


@settings(max_examples=examples(150), deadline=None)
@given(which=st.integers(0, 100), doc=st.one_of(VALUES, st.dictionaries(FIELDS, VALUES, max_size=7)))
def test_any_bad_body_of_the_apis_is_worded_from_the_catalogs(which, doc):
    from pydantic import ValidationError

    from tablesim.server.bodyerrors import parts, readable, said

    models = body_models()
    model = models[which % len(models)]
    try:
        model.model_validate(doc)
    except ValidationError as exc:
        errors = exc.errors()
        worded = said(errors)
        assert readable(errors) == "; ".join(f"{w}: {t}" if w else t for w, t, _, _ in parts(errors))
        for part in worded:
            assert part["id"] in CATALOGS["en"], f"{model.__name__} {doc!r}: {part} is in no catalog"
            for lang, cat in CATALOGS.items():
                assert placeholders(cat[part["id"]]) <= set(part["args"]), f"{lang} {part}"


def test_the_body_models_are_seen():
    names = {m.__name__ for m in body_models()}
    assert {"BetBody", "BatchBody", "VoidBody", "ResolveBody", "DecideBody", "DealingBody"} <= names, names


def test_every_refusal_of_the_platform_is_worded_by_its_status():
    from tablesim.i18n import read_catalog
    from tablesim.platform.betdesk import refused
    from tablesim.platform.player.routes import CATALOG
    from tablesim.wallet.protocol import Status

    literal = re.compile(r"""\brefused\(\s*\d{3}\s*,\s*["']([a-z_]+)["']""")
    statuses = {s.value for s in Status if s is not Status.OK}
    for path in (ROOT / "tablesim/platform").rglob("*.py"):
        statuses |= set(literal.findall(path.read_text(encoding="utf-8")))
    assert {"bad_input", "betting_closed", "rate_limited", "no_session", "insufficient_funds"} <= statuses
    for lang in LANGUAGES:
        cat = read_catalog(CATALOG / f"{lang}.po")
        missing = sorted(s for s in statuses if f"player.refusal.{s}" not in cat)
        assert not missing, f"{lang}: platform refusals without words: {missing}"
    # a refusal of the platform's own carries its id; the table's own words, given, stand
    assert refused(409, "betting_closed", "table T is not taking bets").body["reason"] == {
        "id": "player.refusal.betting_closed", "args": {}}
    theirs = {"id": "wheel.refusal.unknown_spot", "args": {"spot": "'7'"}}
    assert refused(409, "refused_by_table", "unknown spot", reason=theirs).body["reason"] == theirs


def test_an_incident_event_carries_its_message_id_and_an_old_one_its_text():
    from tablecore.codec import decode
    from tablecore.records import IncidentOpened

    t = f3_table()
    seen = []
    t.bus.subscribe(lambda e: seen.append(e.data) if e.kind == "incident" else None)
    steps = f3_round(t)
    for _ in range(6):  # (dealt: the players decide)
        next(steps)
    while (event := t.shoe.next_event(0)) is not None:
        t.handle(event)
    t.misdeal()
    assert seen and seen[-1]["say"] == {"id": "fortune3.incident.misdeal", "args": {}}, seen
    assert seen[-1]["text"] == fill(CATALOGS["en"]["fortune3.incident.misdeal"], {})
    old = decode({"$record": "IncidentOpened", "id": 1, "code": 999, "text": "a misdeal", "blocking": True, "card": None})
    assert "say" not in old.as_data()  # (an earlier release's: its English stands)
    fault = IncidentOpened(id=2, code=201, text="card misread", blocking=True, card=None)
    assert fault.as_data()["say"] == {"id": "fault.201", "args": {"text": "card misread"}}
