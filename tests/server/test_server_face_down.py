"""Nothing face down leaves a served table on its open interfaces before
its reveal: every open route and every WebSocket message kind, walked
through the states of each game's round on emulated devices, with faults
that put cards into incidents (a misread the supervisor names, a card read
while the shoe is disarmed). Only the operator's console reads an
incident's card (``GET /api/incident``, with a token)."""

from __future__ import annotations

import json
import re
import sqlite3
import threading
import time

from hypothesis import given, strategies as st
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from tablecore.cards import DECK
from tablesim.web.redaction import hide_cards

from server_helpers import Served, ok
from test_server_devices import BETS, play

WAIT = 10.0
#: every open (token-free) route a client may read
OPEN_ROUTES = ("/api/table", "/api/events?since=0", "/api/history?last=5", "/api/results", "/api/health",
               "/board", "/")
#: Fortune 3's states from which the dealer's cards are public
REVEALED = {"dealer_reveal", "settlement", "complete"}


class Watcher:
    """A WebSocket client reading every message the table sends, in order."""

    def __init__(self, s: Served) -> None:
        self.ws = connect(s.url.replace("http", "ws") + "/ws?since=0", open_timeout=5)
        self.messages: list[dict] = []
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            for text in self.ws:
                self.messages.append(json.loads(text))
        except ConnectionClosed:
            pass

    def close(self) -> list[dict]:
        self.ws.close()
        self.thread.join(WAIT)
        return self.messages


def open_view(s: Served) -> tuple[str, str]:
    """(the table's state, everything the open routes show now)."""
    state = s.state()["state"]
    texts = [s.get(route).text for route in OPEN_ROUTES]
    assert s.state()["state"] == state  # (taken where the round waits)
    return state, "\n".join(texts)


def journal_secrets(s: Served) -> set[str]:
    """The cards dealt face down to the dealer and the misread cards the supervisor names, as the
    journal holds them (a card read while the shoe is disarmed is set aside face up: not one)."""
    db = sqlite3.connect(s.journal_path)
    try:
        rows = db.execute("SELECT name, data FROM records WHERE kind='event' AND name IN "
                          "('card', 'incident')").fetchall()
    finally:
        db.close()
    out = set()
    for name, data in rows:
        d = json.loads(data)
        if d.get("card") and (d.get("to") == "dealer" if name == "card" else d.get("blocking")):
            out.update(c.rstrip("^") for c in d["card"].split())
    return out


def shows(text: str, code: str) -> bool:
    return re.search(rf"(?<![A-Za-z0-9]){re.escape(code)}(?![A-Za-z0-9])", text) is not None


def assert_incidents_hidden(messages: list[dict], views: list[tuple[str, str]]) -> None:
    """No open incident, incident event or history entry carries its card."""
    for m in messages:
        if m["type"] == "event" and m["kind"] in ("incident", "incident_resolved"):
            assert m["data"].get("card") in (None, "??"), m
        for snap in (m.get("table"),):
            if snap and snap.get("incident"):
                assert snap["incident"]["card"] in (None, "??"), snap["incident"]
    for state, text in views:
        for route in text.split("\n"):
            if route.startswith("{") and '"incident"' in route:
                inc = json.loads(route).get("incident")
                assert inc is None or inc["card"] in (None, "??"), (state, inc)


def before_reveal(messages: list[dict]) -> list[dict]:
    """The stream's messages up to Fortune 3's reveal (or the round's end)."""
    out = []
    for m in messages:
        state = m.get("table", {}).get("state") if m["type"] in ("hello", "snapshot") else None
        if m["type"] == "event" and m["kind"] == "state":
            state = m["data"]["state"]
        if state in REVEALED or state == "void":
            break
        out.append(m)
    return out


def wait_incident(s: Served) -> dict:
    end = time.monotonic() + WAIT
    while (snap := s.state())["incident"] is None:
        assert time.monotonic() < end, f"no incident while {snap['state']}"
        time.sleep(0.01)
    return snap


def fortune3_round(s: Served, *, confirm: bool) -> list[tuple[str, str]]:
    views = [open_view(s)]
    ok(s.post("/api/actions/open_round"))
    ok(s.post("/api/bets", {"position": "1", "bet": "ante", "amount": "10"}))
    views.append(open_view(s))
    ok(s.post("/api/actions/close_betting"))
    ok(s.post("/api/actions/deal"))
    s.wait_state("dealing", timeout=WAIT)
    wait_incident(s)
    views.append(open_view(s))  # the misread holds the round: the reader's guess is the supervisor's
    assert s.get("/api/incident").status_code == 401
    card = ok(s.get("/api/incident", headers=s.auth("supervisor")))["incident"]["card"]
    assert card and card != "??" and not any(shows(text, card) for _, text in views)
    if not confirm:
        ok(s.post("/api/incident/resolve", {"decision": "reject", "why": f"not {card}"}, role="supervisor"))
        views.append(open_view(s) if s.wait_state("void", timeout=WAIT) else None)
        return views
    ok(s.post("/api/incident/resolve", {"decision": "confirm", "why": f"turned over: {card}", "card": card},
              role="supervisor"))
    s.wait_state("decisions", timeout=WAIT)
    views.append(open_view(s))
    ok(s.post("/api/actions/decide", {"box": "1", "decision": "play"}))
    s.wait_state("complete", timeout=WAIT)
    views.append(open_view(s))
    return views


def test_fortune3_dealer_cards_and_misread_guesses_stay_hidden_until_the_reveal(emulated):
    # card 2 is the dealer's first; the shoe, idle after the deal, then reads one card more (an incident)
    s = emulated("fortune3", faults=["shoe:misread@card=2", "shoe:disarmed@card=6"], seed=3)
    w = Watcher(s)
    views = fortune3_round(s, confirm=True)
    messages = w.close()
    secrets = journal_secrets(s)
    assert len(secrets) >= 3  # the dealer's three cards, the misread card among them
    kinds = {m["type"] for m in messages} | {m.get("kind") for m in messages}
    assert {"hello", "snapshot", "event", "incident", "incident_resolved", "card", "dealer"} <= kinds
    early = before_reveal(messages)
    for code in secrets:
        assert not any(shows(json.dumps(m), code) for m in early), code
        assert not any(shows(text, code) for state, text in views if state not in REVEALED), code
    assert_incidents_hidden(messages, views)
    # at the reveal the dealer's cards are public, as the game shows them
    revealed = next(m for m in messages if m["type"] == "event" and m["kind"] == "dealer")["data"]["cards"]
    assert set(revealed) <= secrets and shows(views[-1][1], revealed[0])


def test_a_rejected_misread_voids_the_round_without_showing_the_guess(emulated):
    s = emulated("fortune3", faults=["shoe:misread@card=4"], seed=5)
    w = Watcher(s)
    views = fortune3_round(s, confirm=False)
    messages = w.close()
    secrets = journal_secrets(s)
    assert secrets
    for code in secrets:
        assert not any(shows(json.dumps(m), code) for m in before_reveal(messages)), code
        assert not any(shows(text, code) for state, text in views if state != "void"), code
    assert_incidents_hidden(messages, views)


def test_football_and_wheel_incidents_show_no_card_on_the_open_interfaces(emulated):
    for game, fault in (("football", "shoe:disarmed"), ("wheel", "wheel:idle-motion")):
        s = emulated(game, faults=[fault])
        w = Watcher(s)
        views = [open_view(s)]
        assert play(s, BETS[game])["status"] in ("settled", "void")
        views.append(open_view(s))
        messages = w.close()
        assert any(m["type"] == "event" and m["kind"] == "incident" for m in messages), game
        assert_incidents_hidden(messages, views)


@given(st.lists(st.one_of(st.sampled_from([c.code for c in DECK] + ["10H", "7C^"]),
                          st.text("abcxyz 0123456789:.,()-", max_size=8)), max_size=8))
def test_free_texts_never_carry_a_card_code_openly(parts):
    text = " ".join(parts)
    hidden = hide_cards(text)
    assert not any(shows(hidden, c.code) for c in DECK) and not shows(hidden, "10H")
