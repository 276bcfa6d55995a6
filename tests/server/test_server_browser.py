"""The dealer console in a real browser: Debian's headless Chromium opens the
console served on 127.0.0.1, a dealer places bets by tapping the layout,
closes betting, deals, takes the decisions and watches the round settle;
then a void goes through the supervisor's token. Screenshots go to
``artifacts/`` (git-ignored)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from browser import needs_chromium, screenshot, until

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"

pytestmark = needs_chromium


@pytest.fixture
def browser(page):
    return page


def wait(page, expression: str, timeout: float = 60.0):
    """Wait until the page's ``expression`` is truthy (pure waiting: generous); its value."""
    return until(page, expression, timeout)


def state_is(*states: str) -> str:
    return " || ".join(f"document.body.dataset.state === {json.dumps(s)}" for s in states)


@pytest.mark.slow
def test_a_dealer_plays_a_round_on_the_console(serve, browser):
    s = serve("fortune3", pace=0.02, seed=11)
    b = browser
    b.goto(f"{s.url}/#token={s.dealer}")
    wait(b, "document.body.dataset.live === '1' && document.body.dataset.state === 'idle'")
    assert b.evaluate("location.hash") == ""  # the token is not left in the address bar
    wait(b, "document.querySelector('#operator').textContent === 'dealer: mock-dealer'")

    b.click("#act-open_round")
    wait(b, state_is("betting_open"))
    # a refused withdrawal shows the table's reason and changes nothing
    b.click("#mode-withdraw")
    b.click('[data-pos="4"][data-bet="ante"]')
    wait(b, "!document.querySelector('#toast').hidden")
    assert "no ante bet on 4" in b.evaluate("document.querySelector('#toast').textContent")
    b.click("#toast")  # tapped away
    b.click("#mode-bet")
    b.click('[data-chip="25"]')
    b.click('[data-pos="2"][data-bet="ante"]')
    b.click('[data-pos="2"][data-bet="pair_plus"]')
    b.click('[data-chip="10"]')
    b.click('[data-pos="6"][data-bet="ante"]')
    # Each tap is its own request, and the browser may send them on separate
    # connections: the table can take them in any order. The layout shows the
    # table's own bets, so every amount on it means every bet was taken.
    amount = "document.querySelector('[data-pos=\"{}\"][data-bet=\"{}\"] .amt').textContent === '{}'"
    wait(b, " && ".join(amount.format(*spot) for spot in (("2", "ante", "25"), ("2", "pair_plus", "25"), ("6", "ante", "10"))))
    assert s.state()["bets"] == {"2": {"ante": "25", "pair_plus": "25"}, "6": {"ante": "10"}}

    b.click("#act-close_betting")
    wait(b, state_is("bets_closed"))
    assert b.evaluate("document.querySelector('[data-pos=\"1\"][data-bet=\"ante\"]').disabled")
    b.click("#act-deal")
    wait(b, state_is("decisions"))
    assert b.evaluate("[...document.querySelectorAll('#dealer .card')].every(c => c.classList.contains('back'))")
    assert b.evaluate("document.querySelectorAll('[data-box=\"2\"] .card').length") == 3
    b.click('[data-box="2"][data-decision="play"]')
    b.click('[data-box="6"][data-decision="fold"]')
    wait(b, state_is("complete"))
    wait(b, "!!document.querySelector('#result') && document.querySelectorAll('#dealer .card:not(.back)').length === 3")
    result = s.state()["result"]
    assert result["status"] == "settled" and result["outcome"]["boxes"]["6"]["decision"] == "fold"
    shown = b.evaluate("document.querySelector('[data-net=\"2\"]').textContent")
    net2 = result["net"]["2"]
    assert shown == (net2 if net2.startswith("-") or net2 == "0" else "+" + net2)
    assert b.evaluate("document.querySelector('#log').textContent").count("result: settled") == 1
    time.sleep(0.3)  # let the card animation finish
    screenshot(b, ARTIFACTS / "console.png")

    inputs = [r for r in s.records() if r[1] == "input" and r[2] != "handle"]
    assert {actor for *_, actor in inputs} == {"dealer:mock-dealer"}
    assert [r[2] for r in inputs] == ["open_round", "place_bets", "place_bets", "place_bets", "close_betting",
                                      "start_dealing", "decide", "decide"]

    # the results board shows the round
    b.goto(f"{s.url}/board")
    wait(b, f"!!document.querySelector('[data-round=\"{result['round_id']}\"]')")
    screenshot(b, ARTIFACTS / "board.png")
    assert b.errors.real() == []


def test_a_void_needs_the_supervisor_token(serve, browser):
    s = serve("football", pace=0.02)
    b = browser
    b.goto(f"{s.url}/#token={s.dealer}")
    wait(b, "document.body.dataset.live === '1'")
    b.click("#act-open_round")
    wait(b, state_is("betting_open"))
    wait(b, "document.querySelectorAll('#draw .digit').length > 0")
    b.click('[data-pos="common"][data-bet="middle"]')
    wait(b, "document.querySelector('[data-pos=\"common\"][data-bet=\"middle\"] .amt').textContent === '10'")
    screenshot(b, ARTIFACTS / "console-football.png")
    b.click("#act-void")
    wait(b, "document.querySelector('#modal').open")
    b.click("#modal-fields .quick button")  # a quick reason
    b.click("#modal-ok")
    wait(b, "document.querySelector('#modal').open && document.querySelector('#modal-title').textContent === 'Supervisor needed'")
    assert s.state()["state"] == "betting_open"  # the dealer's token changed nothing
    b.keyboard.insert_text(s.supervisor)
    b.keyboard.press("Enter")  # Enter in the field is OK, not Cancel
    wait(b, state_is("void"))
    summary = s.get("/api/history", params={"last": 1}).json()[0]
    void = [e for e in summary["events"] if e["kind"] == "void"][0]
    assert void["actor"] == "supervisor:mock-supervisor" and void["why"] == "dealing error"
    assert void["returned"] == {"common": {"middle": "10"}}
    assert b.evaluate("document.querySelector('#operator').textContent") == "dealer: mock-dealer"  # not kept
    assert b.errors.real() == []


def test_the_wheel_console(serve, browser):
    s = serve("wheel", pace=0.01, seed=5)
    b = browser
    b.goto(f"{s.url}/#token={s.dealer}")
    wait(b, "document.body.dataset.live === '1'")
    b.click("#act-open_round")
    wait(b, state_is("betting_open"))
    b.click('[data-symbol="joker"]')
    b.click('[data-symbol="3"]')
    wait(b, "document.querySelectorAll('.symbol.placed').length === 2")
    assert s.book()["bets"] == {"P1": {"joker": "10", "3": "10"}}
    assert s.state()["bets"] == {"all": {"joker": "10", "3": "10"}} and s.state()["players_count"] == 1
    b.click("#act-close_betting")
    for _ in range(20):  # a short spin is a no-spin: spin again
        b.click("#act-spin")
        wait(b, "!document.querySelector('#act-spin') || document.querySelector('#act-spin').disabled")
        wait(b, f"({state_is('complete')}) || !document.querySelector('#act-spin').disabled")
        if b.evaluate("document.body.dataset.state") == "complete":
            break
    symbol = s.state()["result"]["outcome"]["symbol"]
    wait(b, f"document.querySelector('#wheel-result .big').textContent === {json.dumps(symbol)}")
    screenshot(b, ARTIFACTS / "console-wheel.png")
    assert b.errors.real() == []
    # the board draws the wheel's result with the game's own piece: the symbol, its segment
    round_id = s.state()["result"]["round_id"]
    segment = s.state()["result"]["outcome"]["segment"]
    b.goto(f"{s.url}/board")
    wait(b, f"!!document.querySelector('[data-round=\"{round_id}\"] .pill')")
    assert b.evaluate(f"document.querySelector('[data-round=\"{round_id}\"] .pill').textContent") == symbol
    assert b.evaluate(f"document.querySelector('[data-round=\"{round_id}\"] .detail').textContent") == f"segment {segment}"
    assert b.evaluate("document.querySelector('#strip .pill').textContent") == symbol
    assert b.errors.real() == []


# --- a page load, signed out, and no live stream -------------------------------

NO_WEBSOCKET = """
window.WebSocket = class { constructor() { this.readyState = 0; } send() {} close() {} };
"""


def without_websocket(b):
    """Pages opened from now on in this test's context get a WebSocket that never connects (a proxy that drops it)."""
    b.context.add_init_script(NO_WEBSOCKET)


def test_signed_out_nothing_can_be_pressed(serve, browser):
    from server_helpers import ok

    s = serve("fortune3", pace=0.01, seed=3)
    b = browser
    ok(s.post("/api/actions/open_round"))
    ok(s.post("/api/bets", {"position": "2", "bet": "ante", "amount": "10"}))
    b.goto(f"{s.url}/")
    wait(b, "document.body.dataset.live === '1' && document.body.dataset.state === 'betting_open'")
    assert b.evaluate("document.querySelector('#operator').textContent") == "Sign in"
    buttons = "[...document.querySelectorAll('#dealer-actions button, #supervisor-actions button')]"
    assert b.evaluate(f"{buttons}.length") >= 4
    assert b.evaluate(f"{buttons}.every(x => x.disabled)"), b.evaluate(f"{buttons}.map(x => x.id + ':' + x.disabled)")
    assert b.evaluate("[...document.querySelectorAll('.spot')].every(x => x.disabled)")
    assert b.evaluate("document.querySelector('#mode-bet').disabled && document.querySelector('#mode-withdraw').disabled")
    ok(s.post("/api/actions/close_betting"))
    ok(s.post("/api/actions/deal"))
    wait(b, "document.querySelectorAll('[data-decision]').length === 2")
    assert b.evaluate("[...document.querySelectorAll('[data-decision]')].every(x => x.disabled)")  # PLAY, FOLD
    assert b.evaluate("document.querySelector('#act-misdeal').disabled")
    assert b.errors.real() == []


def test_place_is_enabled_only_while_betting_is_open(serve, browser):
    s = serve("wheel", pace=0.01, seed=5)
    b = browser
    b.goto(f"{s.url}/#token={s.dealer}")
    # the stream opens, the operator is known and the table is drawn, in whatever order they come
    wait(b, "document.body.dataset.live === '1' && document.body.dataset.signedIn === '1' && document.body.dataset.state !== 'loading'")
    assert b.evaluate("document.body.dataset.state") == "idle"
    assert b.evaluate("document.querySelector('#mode-bet').disabled && document.querySelector('[data-chip=\"25\"]').disabled")
    assert not b.evaluate("document.querySelector('#act-open_round').disabled")
    b.click("#act-open_round")
    wait(b, state_is("betting_open"))
    wait(b, "!document.querySelector('#mode-bet').disabled && !document.querySelector('[data-chip=\"25\"]').disabled")
    b.click("#act-close_betting")
    wait(b, state_is("bets_closed"))
    wait(b, "document.querySelector('#mode-bet').disabled")
    assert b.errors.real() == []


def test_the_events_panel_shows_recent_events_after_a_page_load(serve, browser):
    from server_helpers import play_round

    s = serve("football", pace=0.005, seed=2)
    play_round(s, [("1", "upper", "10"), ("4", "odd", "5"), ("common", "middle", "5")])
    b = browser
    b.goto(f"{s.url}/#token={s.dealer}")
    wait(b, "document.body.dataset.live === '1'")
    wait(b, "document.querySelectorAll('#log li').length > 10")
    seqs = b.evaluate("[...document.querySelectorAll('#log li')].map(li => Number(li.dataset.seq))")
    assert seqs == sorted(seqs, reverse=True) and len(seqs) == len(set(seqs))  # newest first, no repeats
    assert "result: settled" in b.evaluate("document.querySelector('#log').textContent")
    assert seqs[0] == s.state()["seq"] or seqs[0] <= s.state()["seq"]
    # a new event arrives live on top, once
    newest = seqs[0]
    b.click("#act-open_round")
    wait(b, f"Number(document.querySelector('#log li').dataset.seq) > {newest}")
    wait(b, "document.querySelector('#log').textContent.includes('→ drawing')")
    seqs = b.evaluate("[...document.querySelectorAll('#log li')].map(li => Number(li.dataset.seq))")
    assert len(seqs) == len(set(seqs)) and seqs == sorted(seqs, reverse=True)
    assert b.errors.real() == []


def test_console_and_board_render_before_the_stream_is_up(serve, browser):
    from server_helpers import play_round

    s = serve("wheel", pace=0.005, seed=4)
    result = play_round(s)
    b = browser
    without_websocket(b)
    b.goto(f"{s.url}/board")
    wait(b, f"!!document.querySelector('[data-round=\"{result['round_id']}\"]')")
    assert b.evaluate("document.querySelector('#state-badge').textContent") == "complete"
    assert b.evaluate("document.querySelector('#conn').classList.contains('off')")  # no stream indeed
    b.goto(f"{s.url}/#token={s.dealer}")
    wait(b, "document.body.dataset.state === 'complete'")
    assert b.evaluate("document.querySelector('#state-badge').textContent") == "complete"
    assert b.evaluate("document.body.dataset.live") != "1"
    wait(b, f"document.querySelector('#wheel-result .big').textContent === {json.dumps(result['outcome']['symbol'])}")
    wait(b, "document.querySelectorAll('#log li').length > 5")
    assert b.errors.real() == []


def test_a_shuffler_table_on_the_console_players_a_stray_hand_and_the_dealing_mode(serve, browser):
    """Players on the console: a bet names its player and the box shows
    whose it is; a hand dealt to a box with no bet is declared stray with the
    Stray card button (the deal goes on); after the round the players' nets
    are shown; the supervisor switches the table to the shoe (Art. 11(4))
    through the Dealing mode button, and the console shows the mode."""
    s = serve("fortune3", pace=0.02, seed=11, dealing="shuffler")
    b = browser
    b.goto(f"{s.url}/#token={s.dealer}")
    wait(b, "document.body.dataset.live === '1' && document.body.dataset.state === 'idle'")
    assert b.evaluate("document.querySelector('#dealing-mode').textContent") == "dealing by shuffler"
    b.click("#act-open_round")
    wait(b, state_is("betting_open"))
    b.evaluate("document.querySelector('#box-player').value = 'ann'")
    b.click('[data-chip="10"]')
    b.click('[data-pos="3"][data-bet="ante"]')
    wait(b, "!!document.querySelector('[data-players=\"3\"]')")
    assert b.evaluate("document.querySelector('[data-players=\"3\"]').textContent") == "ann: Ante 10"
    assert s.book()["players"] == {"3": {"ann": {"ante": "10"}}}
    b.click("#act-close_betting")
    wait(b, state_is("bets_closed"))
    b.click("#act-deal")
    wait(b, state_is("decisions"))
    # the dealer's hand (the last one) went to an empty box: declared stray, the dealer gets the next
    wait(b, "!document.querySelector('#act-stray').disabled")
    b.click("#act-stray")
    end = time.monotonic() + 20
    while not ((snap := s.state())["state"] == "decisions" and len(snap["view"]["set_aside"]) == 3):
        assert time.monotonic() < end, snap["state"]
        time.sleep(0.02)
    # the console has caught up with the new deal: the dealer's new hand is in
    wait(b, f"{state_is('decisions')} && Number(document.querySelector('#log li').dataset.seq) >= {snap['seq']}")
    b.click('[data-box="3"][data-decision="play"]')
    wait(b, state_is("complete"))
    wait(b, "!!document.querySelector('#player-results')")
    result = s.book()["result"]
    net = result["players"]["ann"]["net"]
    assert b.evaluate("document.querySelector('#player-results').textContent") == \
        f"ann {net if net.startswith('-') or net == '0' else '+' + net}"
    b.click("#act-set_dealing")
    wait(b, "document.querySelector('#modal').open")
    b.click("#modal-fields .quick button")  # "shuffler failure (Art. 11(4))"; the mode offered is the shoe
    b.click("#modal-ok")
    wait(b, "document.querySelector('#modal').open && document.querySelector('#modal-title').textContent === 'Supervisor needed'")
    b.keyboard.insert_text(s.supervisor)
    b.keyboard.press("Enter")
    wait(b, "document.querySelector('#dealing-mode').textContent === 'dealing by shoe'")
    assert s.state()["view"]["dealing"] == "shoe"
    # the results board (open) shows each box's net, never a player
    b.goto(f"{s.url}/board")
    wait(b, "!!document.querySelector('[data-player=\"3\"]')")
    box = result["net"]["3"]
    assert b.evaluate("document.querySelector('[data-player=\"3\"]').textContent") == \
        f"box 3 {box if box.startswith('-') or box == '0' else '+' + box}"
    assert b.evaluate("document.querySelector('[data-player=\"ann\"]')") is None
    assert "ann" not in b.evaluate("document.body.textContent")
    assert b.errors.real() == []


def test_a_misdeal_called_after_the_last_card_on_the_console_needs_the_supervisor(serve, browser):
    """Art. 11(1): once the cards are out the dealer's Misdeal
    is a call, not a void: the round waits (incident banner, decisions
    refused) until a supervisor confirms it; then every bet is returned."""
    s = serve("fortune3", pace=0.01, seed=5)
    b = browser
    b.goto(f"{s.url}/#token={s.dealer}")
    wait(b, "document.body.dataset.live === '1' && document.body.dataset.state === 'idle'")
    b.click("#act-open_round")
    wait(b, state_is("betting_open"))
    b.click('[data-chip="10"]')
    b.click('[data-pos="2"][data-bet="ante"]')
    wait(b, "document.querySelector('[data-pos=\"2\"][data-bet=\"ante\"] .amt').textContent === '10'")
    b.click("#act-close_betting")
    wait(b, state_is("bets_closed"))
    b.click("#act-deal")
    wait(b, state_is("decisions"))
    b.click("#act-misdeal")
    wait(b, "!document.querySelector('#incident').hidden")
    assert "misdeal" in b.evaluate("document.querySelector('#incident-text').textContent")
    assert s.state()["state"] == "decisions"  # the dealer's call alone voided nothing
    wait(b, "document.querySelector('[data-box=\"2\"][data-decision=\"play\"]') !== null")
    b.click("#incident-resolve")
    wait(b, "document.querySelector('#modal').open")
    assert b.evaluate("document.querySelector('#modal-fields [name=\"card\"]')") is None  # a misdeal call names no card
    b.evaluate("document.querySelector('#modal-fields [name=\"decision\"]').value = 'confirm'")
    b.click("#modal-fields .quick button")
    b.click("#modal-ok")
    wait(b, "document.querySelector('#modal').open && document.querySelector('#modal-title').textContent === 'Supervisor needed'")
    b.keyboard.insert_text(s.supervisor)
    b.keyboard.press("Enter")
    wait(b, state_is("void"))
    result = s.state()["result"]
    assert result["void_reason"] == "misdeal"
    (void,) = [e for e in s.get("/api/history", params={"last": 1}).json()[0]["events"] if e["kind"] == "void"]
    assert void["actor"] == "supervisor:mock-supervisor" and void["returned"] == {"2": {"ante": "10"}}
    assert b.errors.real() == []


def test_the_console_shows_the_coalesced_bets_and_a_big_book_sent_apart(serve, browser):
    """Bets placed by others reach the console coalesced (one log line for
    many); a book of more positions than a snapshot carries (wheel players)
    comes apart and the console shows every player and the totals."""
    from tablesim.server.snapshot import BOOK_INLINE

    s = serve("wheel", pace=0.005, seed=3)
    b = browser
    b.goto(f"{s.url}/#token={s.dealer}")
    wait(b, "document.body.dataset.live === '1' && document.body.dataset.state === 'idle'")
    ok_post = s.post("/api/actions/open_round")
    assert ok_post.status_code == 200
    wait(b, state_is("betting_open"))
    players = BOOK_INLINE + 6
    bets = [{"position": f"p{i:03d}", "bet": "1", "amount": "2"} for i in range(players)]
    assert s.post("/api/bets/batch", {"bets": bets}).json()["accepted"] == players
    wait(b, f"document.querySelector('#in-play').textContent === 'in play {2 * players}'")
    wait(b, f"document.querySelector('#layout').textContent.includes('Players: {players}')")
    wait(b, f"document.querySelector('#layout').textContent.includes('all {2 * players}')")
    log = b.evaluate("[...document.querySelectorAll('#log li.ev-bets')].map(li => li.textContent)")
    assert log and all("placed" in line for line in log) and len(log) < players
    assert not b.evaluate("document.querySelectorAll('#log li.ev-bet').length")
    assert b.errors.real() == []
