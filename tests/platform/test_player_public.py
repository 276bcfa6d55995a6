"""Nothing face down reaches a player before its reveal, and nothing of
another player at all: real journals of each game (mock tables played by
``tablesim run``) walked record by record through the platform's hub, as
its follower hands them over, every message a watching player is sent
checked against what the table held at that moment."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablesim.platform.player.hub import Client, Hub, tap
from tablesim.platform.player.public import SHOWN, PublicTable
from tablesim.platform.rounds import Rounds
from tablesim.platform.tables import Offer
from tablesim.studio import wire
from examples import examples

ROOT = Path(__file__).resolve().parents[2]
GAMES = {"wheel": ("WHEEL-MOCK", []), "football": ("FB-MOCK", []), "fortune3": ("F3-MOCK", []),
         "fortune3-shuffler": ("F3-MOCK", ["--dealing", "shuffler"])}
CARD = re.compile(r"(?<![A-Za-z0-9])(?:10|[2-9TJQKA])[SHDC](?![A-Za-z0-9])")


def table_env(folder: Path) -> dict:
    """The environment of a ``tablesim run`` that makes a journal: the test
    process's own (its locale among it: a command run so is forked from the
    tests' helper, tests/forkserver.py, not a fresh interpreter's start and
    imports, about 1 s of CPU each), the data folder its own."""
    return {**os.environ, "XDG_DATA_HOME": str(folder / "xdg"), "PYTHONPATH": str(ROOT)}


@pytest.fixture(scope="module")
def journals(tmp_path_factory):
    folder = tmp_path_factory.mktemp("journals")
    out, runs = {}, []
    for name, (_, extra) in GAMES.items():  # (side by side: each is a process of its own)
        path = out[name] = folder / f"{name}.sqlite"
        runs.append(subprocess.Popen(
            [sys.executable, "-m", "tablesim.cli.main", "run", "--game", name.split("-")[0], "--mock", "--rounds",
             "4", "--seed", "5", "--quiet", "--journal", str(path), *extra], cwd=ROOT, stdout=subprocess.DEVNULL,
            env=table_env(folder)))
    assert [r.wait(120) for r in runs] == [0] * len(runs)
    return out


def records(path: Path) -> list[wire.WireRecord]:
    db = wire.open_reader(str(path))
    try:
        return [wire.decode(body) for _, _, _, body in wire.read_rows(db, 0, 1_000_000)]
    finally:
        db.close()


def offer(table: str) -> Offer:
    return Offer(table, "MOP", Decimal(1), "player" if table.startswith("WHEEL") else "box", Decimal(10000),
                 bet_seconds=15)


def walk(recs: list[wire.WireRecord], table: str):
    """Each record through the picture and the hub: (record, the messages a watcher got for it)."""
    rounds = Rounds()
    hub = Hub({table: offer(table)}, rounds)
    tap(rounds, hub)
    watcher = Client("nobody", limit=100_000)
    hub.clients.add(watcher)
    hub.watch(watcher, table)
    for i, rec in enumerate(recs):
        rounds.apply(rec, i + 1)
        got = []
        while not watcher.queue.empty():
            got.append(json.loads(watcher.queue.get_nowait()))
        yield rec, got


@pytest.mark.parametrize("name", GAMES)
def test_a_player_sees_no_card_before_its_reveal_and_no_other_player(journals, name):
    table = GAMES[name][0]
    recs = records(journals[name])
    players = {str(r.data.get("position")) for r in recs if r.name == "bet"} if table.startswith("WHEEL") else set()
    face_down: set[str] = set()  # the round's dealer cards, until the dealer's reveal
    states, shown_kinds = set(), set()
    for rec, got in walk(recs, table):
        if rec.name == "card" and rec.data.get("to") == "dealer":
            face_down.add(str(rec.data["card"]))
        if rec.name == "dealer":  # the reveal: from now on they are the table's to show
            face_down.clear()
        for msg in got:
            text = json.dumps(msg)
            assert not set(CARD.findall(text)) & face_down, (rec.seq, msg, face_down)
            assert not any(f'"{p}"' in text for p in players), (rec.seq, msg)
            if msg["type"] == "event":
                assert msg["kind"] in SHOWN and rec.kind == "event" and msg["seq"] == rec.seq
                shown_kinds.add(msg["kind"])
        if rec.name == "state":
            states.add(rec.data["state"])
        if rec.kind != "event":
            assert not [m for m in got if m["type"] == "event"], rec
    assert {"betting_open", "settlement", "complete"} <= states
    assert "state" in shown_kinds and len(states) >= 5, states
    if name.startswith("fortune3"):
        assert "dealer" in shown_kinds and "card" in shown_kinds


def test_the_dealers_cards_are_hidden_in_every_state_before_the_reveal(journals):
    """The Fortune 3 rule on its own: a dealer's card event shows ``??``,
    whatever state the view is in, until the reveal's own event."""
    recs = records(journals["fortune3"])
    view = PublicTable("F3-MOCK", "fortune3")
    dealer_cards = [view.shown(r) for r in recs if r.name in ("card", "state") and r.kind == "event"]
    hidden = [m for m in dealer_cards if m and m["kind"] == "card" and m["data"].get("to") == "dealer"]
    assert hidden and all(m["data"]["card"] == "??" for m in hidden)
    reveal = next(view.shown(r) for r in recs if r.name == "dealer")
    assert all(CARD.fullmatch(c) for c in reveal["data"]["cards"])


def test_an_incidents_card_and_card_codes_in_texts_are_hidden():
    view = PublicTable("F3-MOCK", "fortune3")
    rec = wire.WireRecord(9, "F3-MOCK", "R1", "event", "incident", {"card": "AS", "text": "misread KH at the shoe",
                          "player": "ann"}, "", "", b"")
    msg = view.shown(rec)
    assert msg["data"]["card"] == "??" and "KH" not in msg["data"]["text"] and "player" not in msg["data"]
    for kind in ("input", "operator", "meta"):
        assert view.shown(wire.WireRecord(10, "F3-MOCK", "R1", kind, "handle", {"card": "AS"}, "", "", b"")) is None
    assert view.shown(wire.WireRecord(11, "F3-MOCK", "R1", "event", "bet", {"position": "ann"}, "", "", b"")) is None


def test_the_remote_hands_decision_timer_reaches_the_players_with_when_it_started():
    """The page counts the remote players' decision down from the table's own start of it."""
    view = PublicTable("F3-MOCK", "fortune3")
    ts = "2026-12-02T04:00:00.000000+00:00"
    msg = view.shown(wire.WireRecord(12, "F3-MOCK", "R1", "event", "remote_decisions",
                                     {"players": 3, "pending": 3, "seconds": 20}, "", "", b"", ts))
    assert msg["kind"] == "remote_decisions" and msg["ts"] == ts
    # (a field named ``players`` is never shown, whatever it holds: here a count, elsewhere names)
    assert msg["data"] == {"pending": 3, "seconds": 20}


def test_the_hub_serialises_once_and_drops_a_slow_player_without_waiting(journals):
    recs = [r for r in records(journals["wheel"]) if r.kind == "event"][:40]
    rounds = Rounds()
    hub = Hub({"WHEEL-MOCK": offer("WHEEL-MOCK")}, rounds)
    tap(rounds, hub)
    quick, other, slow = (hub.join(p) for p in ("ann", "amy", "abe"))
    slow.queue = type(slow.queue)(3)
    for c in (quick, other, slow):
        hub.watch(c, "WHEEL-MOCK")
    for i, rec in enumerate(recs):
        rounds.apply(rec, i + 1)
    assert slow.gone == "too_slow" and slow not in hub.clients and hub.counts["dropped"] == 1
    a = [quick.queue.get_nowait() for _ in range(quick.queue.qsize())]
    b = [other.queue.get_nowait() for _ in range(other.queue.qsize())]
    assert len(a) == len(b) > 5 and all(x is y for x, y in zip(a, b))  # one text for all
    assert slow.queue.get_nowait() is None  # its writer is told to close


def test_a_tables_file_names_a_tables_game_and_bet_timer_or_is_refused_in_one_line(tmp_path):
    from tablecore.errors import InputError
    from tablesim.platform.player.layouts import game_of
    from tablesim.platform.tables import load_tables

    path = tmp_path / "tables.toml"
    path.write_text('[tables.ROULETTE-9]\ncurrency = "MOP"\nunit = "1"\ngame = "football"\nbet_seconds = 12\n'
                    '[tables.F3-01]\ncurrency = "MOP"\nunit = "1"\n')
    offers = load_tables(path)
    assert (game_of(offers["ROULETTE-9"]), offers["ROULETTE-9"].bet_seconds) == ("football", 12)
    assert (game_of(offers["F3-01"]), offers["F3-01"].bet_seconds) == ("fortune3", None)
    for bad, why in (('game = "poker"', "game: 'poker'"), ("bet_seconds = 0", "bet_seconds: 0"),
                     ('bet_seconds = "9"', "bet_seconds: '9'")):
        path.write_text(f'[tables.T1]\ncurrency = "MOP"\nunit = "1"\n{bad}\n')
        with pytest.raises(InputError, match=why):
            load_tables(path)


@given(st.one_of(st.text(max_size=1500), st.text(min_size=4097, max_size=4200), st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
                                                       lambda kids: st.lists(kids) | st.dictionaries(st.text(), kids),
                                                       max_leaves=20).map(json.dumps)))
@settings(max_examples=examples(80), deadline=None)
def test_any_message_a_socket_sends_is_read_or_refused_in_one_line(text):
    from tablesim.platform.betdesk import Answer
    from tablesim.platform.player.socket import MAX_MESSAGE, read

    got = read(text)
    if isinstance(got, Answer):
        assert got.body["ok"] is False and "\n" not in got.body["message"]
        assert got.body["status"] in ("too_large", "bad_input")
    else:
        assert isinstance(got["type"], str) and len(text.encode()) <= MAX_MESSAGE


def test_each_bet_of_a_round_is_noted_for_recall_once_not_again_with_every_later_bet():
    """A round's bets come in many bet_refs records; noting every bet of the
    round again at each one cost the platform the square of the bets."""
    rounds = Rounds()
    hub = Hub({"WHEEL-MOCK": offer("WHEEL-MOCK")}, rounds)
    tap(rounds, hub)
    noted = []
    note = hub.recall.note
    hub.recall.note = lambda owner, table, round_id: (noted.append(owner), note(owner, table, round_id))
    for seq, owner in enumerate(["ann", "amy", "abe", "ann"], start=1):
        refs = [[f"d{seq}", owner, "1", "1", owner]]
        rounds.apply(wire.WireRecord(seq, "WHEEL-MOCK", "R1", "event", "bet_refs", {"refs": refs}, "", "", b""), seq)
    assert noted == ["ann", "amy", "abe", "ann"]  # (before: 1 + 2 + 3 + 4 notes)
    assert set(hub.recall.index) == {"ann", "amy", "abe"}


def test_a_player_watching_learns_of_their_bet_when_its_record_is_read():
    """The answer ``placed`` comes from the table before its record reaches the
    picture: a page reloaded in between shows no bet until the record comes,
    then gets its standing bets (``mine``); nobody else gets them."""
    rounds = Rounds()
    hub = Hub({"WHEEL-MOCK": offer("WHEEL-MOCK")}, rounds)
    tap(rounds, hub)
    ann, amy = hub.join("ann"), hub.join("amy")
    rounds.apply(wire.WireRecord(1, "WHEEL-MOCK", "R1", "event", "state", {"state": "betting_open"}, "", "", b""), 1)
    for c in (ann, amy):
        assert hub.watch(c, "WHEEL-MOCK")["mine"] == []  # (the page came back before the record)
        while not c.queue.empty():
            c.queue.get_nowait()
    refs = [["d1", "ann", "3", "25", "ann"], ["d2", "ann", "3", "5", "ann"]]
    rounds.apply(wire.WireRecord(2, "WHEEL-MOCK", "R1", "event", "bet_refs", {"refs": refs}, "", "", b""), 2)
    sent = [json.loads(ann.queue.get_nowait()) for _ in range(ann.queue.qsize())]
    assert [m for m in sent if m["type"] == "mine"] == [
        {"type": "mine", "table": "WHEEL-MOCK", "round_id": "R1", "mine": [{"position": "ann", "bet": "3", "amount": "30", "ids": ["d1", "d2"]}]}]
    assert all(json.loads(amy.queue.get_nowait())["type"] != "mine" for _ in range(amy.queue.qsize()))


def test_a_page_answered_placed_for_its_bets_is_not_sent_them_again_another_page_is():
    """The connection that placed a bet (answered ``placed``) shows it already;
    the player's other page, and the same page for a bet it was not answered
    for (another page placed it, or the answer was lost), get ``mine``."""
    rounds = Rounds()
    hub = Hub({"WHEEL-MOCK": offer("WHEEL-MOCK")}, rounds)
    tap(rounds, hub)
    phone, laptop = hub.join("ann"), hub.join("ann")
    rounds.apply(wire.WireRecord(1, "WHEEL-MOCK", "R1", "event", "state", {"state": "betting_open"}, "", "", b""), 1)

    def mines(c) -> list[dict]:
        sent = [json.loads(c.queue.get_nowait()) for _ in range(c.queue.qsize())]
        return [m["mine"] for m in sent if m["type"] == "mine"]

    for c in (phone, laptop):
        hub.watch(c, "WHEEL-MOCK")
        mines(c)
    phone.placed("d1")
    phone.placed("d2")
    refs = [["d1", "ann", "3", "25", "ann"], ["d2", "ann", "3", "5", "ann"]]
    rounds.apply(wire.WireRecord(2, "WHEEL-MOCK", "R1", "event", "bet_refs", {"refs": refs}, "", "", b""), 2)
    assert mines(phone) == []
    assert mines(laptop) == [[{"position": "ann", "bet": "3", "amount": "30", "ids": ["d1", "d2"]}]]
    rounds.apply(wire.WireRecord(3, "WHEEL-MOCK", "R1", "event", "bet_refs", {"refs": [["d3", "ann", "7", "2", "ann"]]},
                                 "", "", b""), 3)
    standing = [{"position": "ann", "bet": "3", "amount": "30", "ids": ["d1", "d2"]},
                {"position": "ann", "bet": "7", "amount": "2", "ids": ["d3"]}]
    assert mines(phone) == [standing] and mines(laptop) == [standing]


class _Desk:
    """The desk as a socket uses it: takes a bet under an id, answers it when told."""

    def __init__(self) -> None:
        self.waiting: dict[str, object] = {}

    def submit(self, session, body, done):
        bet_id = f"d{len(self.waiting) + 1}"
        self.waiting[bet_id] = done
        return bet_id


def _socket_of(hub: Hub, player: str, desk: _Desk):
    from types import SimpleNamespace

    from tablesim.platform.player.socket import PlayerSocket

    sock = PlayerSocket(None, SimpleNamespace(desk=desk), hub)
    sock.client, sock.session = hub.join(player), SimpleNamespace(player=player)
    return sock


@pytest.mark.parametrize("answer", ["placed", "table_unavailable"])
def test_a_record_read_before_its_bets_answer_waits_for_the_answer(answer):
    """The table's record of a bet usually reaches the platform before the
    table's reply does. The page that placed the bet is told by its answer:
    ``placed`` says it and no ``mine`` follows (at 2,000 bets a second that
    list, sent for nearly every bet, was a tenth of the platform's CPU); any
    other answer, for a bet the record holds, is followed by ``mine``. The
    player's other page gets ``mine`` when the record comes."""
    from tablesim.platform.betdesk import Answer, refused

    rounds = Rounds()
    hub = Hub({"WHEEL-MOCK": offer("WHEEL-MOCK")}, rounds)
    tap(rounds, hub)
    desk = _Desk()
    phone, laptop = _socket_of(hub, "ann", desk), hub.join("ann")
    rounds.apply(wire.WireRecord(1, "WHEEL-MOCK", "R1", "event", "state", {"state": "betting_open"}, "", "", b""), 1)

    def sent(c) -> list[dict]:
        return [json.loads(c.queue.get_nowait()) for _ in range(c.queue.qsize())]

    for c in (phone.client, laptop):
        hub.watch(c, "WHEEL-MOCK")
        sent(c)
    phone._take(json.dumps({"type": "bet", "id": 7, "table": "WHEEL-MOCK", "bet": "3", "amount": "25"}))
    assert list(desk.waiting) == ["d1"] and phone.client.coming == {"d1"}
    rounds.apply(wire.WireRecord(2, "WHEEL-MOCK", "R1", "event", "bet_refs", {"refs": [["d1", "ann", "3", "25", "ann"]]},
                                 "", "", b""), 2)
    standing = [{"position": "ann", "bet": "3", "amount": "25", "ids": ["d1"]}]
    assert sent(phone.client) == []
    assert [m["mine"] for m in sent(laptop) if m["type"] == "mine"] == [standing]
    if answer == "placed":
        desk.waiting["d1"](Answer(200, {"ok": True, "status": "placed", "bet_id": "d1"}))
    else:
        desk.waiting["d1"](refused(503, "table_unavailable", "table WHEEL-MOCK did not answer", bet_id="d1"))
    got = sent(phone.client)
    assert [(m["type"], m.get("status")) for m in got][:1] == [("answer", answer)]
    assert [m["mine"] for m in got if m["type"] == "mine"] == ([] if answer == "placed" else [standing])
    assert phone.client.coming == set() and phone.client.owed == {} and phone.betting == 0
    # (a later record of the same bet's player: the page answered ``placed`` is not sent it again)
    rounds.apply(wire.WireRecord(3, "WHEEL-MOCK", "R1", "event", "bet_refs", {"refs": [["d1", "ann", "3", "25", "ann"]]},
                                 "", "", b""), 3)
    assert [m["type"] for m in sent(phone.client)] == ([] if answer == "placed" else ["mine"])


def test_the_roadmap_keeps_a_tables_last_50_results_newest_first(tmp_path):
    """A wheel table's 55 rounds (a real journal) read through the hub: after
    each result the table's roadmap is its last results as the journal
    settled them, newest first, at most 50: the 51st drops the oldest and
    the order stays; a player who comes to the table then is given those 50,
    and the lobby the first 10 of them."""
    from tablesim.platform.player.hub import LAST_RESULTS, ROADMAP

    assert ROADMAP == 50
    path = tmp_path / "wheel.sqlite"
    subprocess.run([sys.executable, "-m", "tablesim.cli.main", "run", "--game", "wheel", "--mock", "--rounds", "55",
                    "--seed", "5", "--quiet", "--journal", str(path)], cwd=ROOT, stdout=subprocess.DEVNULL, check=True,
                   timeout=120, env=table_env(tmp_path))
    rounds = Rounds()
    hub = Hub({"WHEEL-MOCK": offer("WHEEL-MOCK")}, rounds)
    tap(rounds, hub)
    live = hub.tables["WHEEL-MOCK"]
    settled: list[dict] = []  # the journal's own results, oldest first
    for i, rec in enumerate(records(path)):
        rounds.apply(rec, i + 1)
        if rec.kind == "event" and rec.name == "result":
            settled.append({"round_id": rec.round_id, "status": rec.data["status"],
                            "symbol": (rec.data.get("outcome") or {}).get("symbol") if rec.data["status"] == "settled" else None})
            kept = [{k: r.get(k) for k in ("round_id", "status", "symbol")} for r in live.results]
            assert kept == settled[::-1][:ROADMAP], len(settled)
    assert len(settled) == 55 and len({r["round_id"] for r in settled}) == 55
    late = hub.join("ann")  # (a player who comes to the table now)
    roadmap = hub.watch(late, "WHEEL-MOCK")["roadmap"]
    assert [r["round_id"] for r in roadmap] == [r["round_id"] for r in reversed(settled[5:])]  # the 55th to the 6th
    assert len(roadmap) == ROADMAP and roadmap[-1]["round_id"] == settled[5]["round_id"]  # the first five dropped
    assert [r["round_id"] for r in hub.lobby()["tables"][0]["last"]] == [r["round_id"] for r in roadmap[:LAST_RESULTS]]


def test_a_balance_settlement_moved_goes_to_each_page_of_that_player_only():
    from tablesim.platform import balances

    rounds = Rounds()
    hub = Hub({"WHEEL-MOCK": offer("WHEEL-MOCK")}, rounds)
    phone, laptop, amy = hub.join("ann"), hub.join("ann"), hub.join("amy")
    hub.watch(phone, "WHEEL-MOCK")  # (whether in the lobby or at a table)
    for c in (phone, laptop, amy):
        while not c.queue.empty():
            c.queue.get_nowait()
    got = balances.read(balances.note("ann", "MOP", Decimal("1045.50")))
    assert got == ("ann", "MOP", "1045.50")
    hub.balance(*got)
    for c in (phone, laptop):
        assert [json.loads(c.queue.get_nowait()) for _ in range(c.queue.qsize())] == [
            {"type": "balance", "balance": "1045.50", "currency": "MOP"}]
    assert amy.queue.empty()
    hub.balance("nobody-here", "MOP", "1")  # (a player of another process: nothing to do)
    for junk in (b"", b"{", b"[]", b'{"player":"ann","currency":"MOP"}', b'{"player":1,"currency":"MOP","balance":"1"}',
                 b'{"player":"ann","currency":"MOP","balance":"NaN"}', b'{"player":"ann","currency":"MOP","balance":"x"}',
                 b'{"player":"' + b"a" * 65 + b'","currency":"MOP","balance":"1"}'):
        assert balances.read(junk) is None, junk
