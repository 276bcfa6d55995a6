"""The shared remote hand on the dealer console (profile with ``[remote]``):
the console's view and, in Debian's Chromium, the remote hand's row: its
cards, how many remote players are in, how many still decide and the
decision timer counting down until it folds them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from browser import needs_chromium, until

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def remote_profile(tmp_path) -> str:
    text = (ROOT / "config" / "rules" / "fortune3-macau-2008-remote.toml").read_text()
    text = text.replace('name = "macau-2008-remote"', 'name = "test-remote"')
    path = tmp_path / "test-remote.toml"
    path.write_text(text.replace("decision_seconds = 20", "decision_seconds = 6"))
    return str(path)


def dealt(s) -> dict:
    s.post("/api/actions/open_round").raise_for_status()
    for player, bet, amount in (("ann", "ante", "10"), ("bob", "ante", "20"), ("cat", "pair_plus", "5")):
        r = s.post("/api/bets", {"position": "remote", "bet": bet, "amount": amount, "player": player})
        assert r.status_code == 200, r.text
    s.post("/api/bets", {"position": "2", "bet": "ante", "amount": "10"}).raise_for_status()
    s.post("/api/actions/close_betting").raise_for_status()
    s.post("/api/actions/deal").raise_for_status()
    return s.wait_state("decisions", timeout=60)


def test_the_console_view_has_the_remote_hand(serve, remote_profile):
    s = serve("fortune3", pace=0.02, seed=11, profile=remote_profile)
    view = dealt(s)["view"]
    remote = view["remote"]
    assert len(remote["cards"]) == 3 and remote["hand"]
    assert {k: remote[k] for k in ("players", "played", "folded", "pending", "seconds")} == {
        "players": 3, "played": 0, "folded": 0, "pending": 2, "seconds": 6}
    assert "remote" in view["pending_decisions"]
    s.post("/api/actions/decide", {"box": "2", "decision": "play"}).raise_for_status()
    r = s.post("/api/actions/decide", {"box": "remote", "decision": "play", "player": "ann"})
    assert r.status_code == 200, r.text
    r = s.post("/api/actions/decide", {"box": "remote", "decision": "play", "player": "cat"})
    assert r.status_code == 409 and "cat has no Ante on the remote hand" in r.text
    done = s.wait_state("complete", timeout=60)  # bob never decides: the timer folds him
    assert done["view"]["remote"] | {"cards": None, "hand": None} == {
        "cards": None, "hand": None, "players": 3, "played": 1, "folded": 1, "timed_out": 1, "pending": 0,
        "seconds": 6}
    timer = [r for r in s.records() if r[1] == "input" and r[2] == "close_decisions"]
    assert [r[-1] for r in timer] == ["timer"]


@needs_chromium
def test_the_console_shows_the_remote_hand_and_its_timer(serve, page, remote_profile):
    s = serve("fortune3", pace=0.02, seed=11, profile=remote_profile)
    page.goto(f"{s.url}/#token={s.dealer}")
    until(page, "document.body.dataset.live === '1'")
    dealt(s)
    until(page, "!!document.querySelector('#remote-timer')")
    # the remote players' bets on the shared hand: totals per spot (the dealer's book), not a list of players
    until(page, "document.querySelector('#remote-totals')?.textContent === 'Ante 30 · Pair Plus 5'")
    row = page.evaluate("document.querySelector('#remote-hand').textContent")
    assert "3 remote players in" in row and "2 still deciding" in row
    assert page.evaluate("document.querySelectorAll('#remote-hand .card').length") == 3
    first = page.evaluate("document.querySelector('#remote-timer').textContent")
    until(page, f"document.querySelector('#remote-timer').textContent !== {json.dumps(first)}")  # it counts down
    s.post("/api/actions/decide", {"box": "2", "decision": "fold"}).raise_for_status()
    until(page, "document.body.dataset.state === 'complete'")
    until(page, "document.querySelector('#remote-decided').textContent.includes('2 folded')")
    assert page.evaluate("document.querySelector('#remote-timer')") is None
    assert page.errors.real() == []
