"""The dealer console on the screen it is for (1280x800), through a whole
round of each game: nothing scrolls, the layout, the result and the round's
summary stay in view, and a dealer can pay chips from it: every bet's own
result on its spot, each player's on a shared box, the Play as a spot, the
total in play, hand names with their rank. The board shows each player's
result. The NEXT line says what to do also after a recovery and while a
supervisor holds the round."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

import access
from browser import needs_chromium, screenshot, until
from server_helpers import ok, stop

pytestmark = needs_chromium
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"

FITS = """() => {
  const over = (el) => el.scrollHeight > el.clientHeight + 1;
  const bad = [];
  if (document.scrollingElement.scrollHeight > innerHeight) bad.push('page ' + document.scrollingElement.scrollHeight);
  for (const id of ['layout', 'panel']) if (over(document.getElementById(id))) bad.push(id + ' ' + document.getElementById(id).scrollHeight);
  return bad;
}"""

IN_VIEW = """(sel) => [...document.querySelectorAll(sel)].filter((el) => {
  const r = el.getBoundingClientRect();
  return !(r.width > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth);
}).map((el) => el.id || el.dataset.box || el.dataset.result || el.className)"""

KEY = ["#instruction", "#in-play", "#layout", "#dealer-actions button", "#supervisor-actions button", "#log"]


def wait(page, expression: str):
    return until(page, expression)


def assert_fits(page, *selectors: str) -> None:
    assert page.evaluate(FITS) == []
    assert page.viewport_size == {"width": 1280, "height": 800}
    for sel in (*KEY, *selectors):
        assert page.query_selector(sel) is not None, sel
        assert page.evaluate(IN_VIEW, sel) == [], sel


def signed(v: str) -> str:
    return v if v.startswith("-") or v == "0" else "+" + v


def text(page, selector: str) -> str:
    return page.evaluate("(s) => document.querySelector(s).textContent", selector)


def open_console(page, s) -> None:
    page.goto(f"{s.url}/#token={s.dealer}")
    wait(page, "document.body.dataset.live === '1' && document.body.dataset.signedIn === '1'")


def test_football_fits_and_pays_each_player_of_the_common_box(serve, page):
    s = serve("football", pace=0.005, seed=2)
    open_console(page, s)
    ok(s.post("/api/actions/open_round"))
    s.wait_state("betting_open")
    for box in [str(b) for b in range(1, 11)] + ["common"]:
        ok(s.post("/api/bets/batch", {"bets": [{"position": box, "bet": bet, "amount": "10"}
                                               for bet in ("upper", "lower", "odd", "even", "middle")]}))
    ok(s.post("/api/bets", {"position": "common", "bet": "upper", "amount": "15", "player": "ann"}))
    wait(page, "document.querySelector('[data-pos=\"common\"][data-bet=\"middle\"] .amt').textContent === '10'")
    wait(page, "document.querySelector('#in-play').textContent === 'in play 565'")
    # the remote players on the common box, counted (waited for: the page draws the book and its players apart)
    wait(page, "document.querySelector('[data-box=\"common\"] .head .dim').textContent === 'players: 1'")
    # each spot of the common box: the total of every bet on it (the seat's 10 and ann's 15), as the dealer pays it
    wait(page, "document.querySelector('[data-pos=\"common\"][data-bet=\"upper\"] .amt').textContent === '25'")
    assert_fits(page, '[data-box="common"]', '[data-box="10"]')
    ok(s.post("/api/actions/close_betting"))
    ok(s.post("/api/actions/deal"))
    wait(page, "document.body.dataset.state === 'complete' && !!document.querySelector('#result')")
    result = s.book()["result"]
    assert_fits(page, '[data-box="common"]', "#result", "#player-results", "[data-result]")
    # every bet's own result on its spot, as the table settled it
    for box, per in result["results"].items():
        for bet, value in per.items():
            assert text(page, f'[data-result="{box}:{bet}"]') == signed(value), (box, bet)
    # the common box is paid player by player: its seat and ann, each bet of each
    for player in ("common", "ann"):
        for bet, value in result["players"][player]["results"]["common"].items():
            assert text(page, f'[data-result="common:{player}:{bet}"]') == signed(value), (player, bet)
    assert text(page, '[data-players="common"] [data-player="ann"]').startswith("ann: Upper 15 ")
    page.goto(f"{s.url}/board")  # (open: each box's net, never a player's)
    wait(page, f"!!document.querySelector('[data-round=\"{result['round_id']}\"] [data-player=\"common\"]')")
    for box, net in result["net"].items():
        label = "common" if box == "common" else f"box {box}"
        assert text(page, f'[data-round="{result["round_id"]}"] [data-player="{box}"]') == f"{label} {signed(net)}"
    assert page.query_selector('[data-player="ann"]') is None
    assert page.errors.real() == []


def test_fortune3_fits_shows_the_play_and_each_bets_result(serve, page):
    s = serve("fortune3", pace=0.005, seed=11)
    open_console(page, s)
    ok(s.post("/api/actions/open_round"))
    s.wait_state("betting_open")
    bets = [{"position": str(b), "bet": "ante", "amount": "10"} for b in range(1, 8)]
    bets += [{"position": str(b), "bet": "pair_plus", "amount": "5"} for b in range(1, 8)]
    ok(s.post("/api/bets/batch", {"bets": bets}))
    wait(page, "document.querySelector('#in-play').textContent === 'in play 105'")
    assert_fits(page, '[data-box="7"]')
    ok(s.post("/api/actions/close_betting"))
    ok(s.post("/api/actions/deal"))
    wait(page, "document.querySelectorAll('[data-decision=\"play\"]').length === 7")
    assert text(page, "#instruction-text").startswith("players decide: play or fold")
    assert_fits(page, '[data-box="7"] [data-decision="fold"]')
    for box in range(1, 8):
        page.click(f'[data-box="{box}"][data-decision="{"fold" if box == 4 else "play"}"]')
    wait(page, "document.body.dataset.state === 'complete' && !!document.querySelector('#result')")
    snap = s.state()
    result = snap["result"]
    assert_fits(page, "#result", "#dealer", '[data-box="7"]')
    wait(page, "document.querySelector('#in-play').textContent === 'in play 165'")  # six Plays of 10 made
    assert text(page, '[data-pos="1"][data-bet="play"] .amt') == "10"  # the Play: a spot of its own
    assert text(page, '[data-pos="4"][data-bet="play"] .amt') == ""  # folded: no Play
    for box, per in result["results"].items():
        for bet, value in per.items():
            if bet == "ante_bonus" and value == "0":
                assert page.query_selector(f'[data-result="{box}:ante_bonus"]') is None
            else:
                assert text(page, f'[data-result="{box}:{bet}"]') == signed(value), (box, bet)
    # a hand's name says the rank that makes it
    for box, info in result["outcome"]["boxes"].items():
        shown = text(page, f'[data-hand="{box}"]')
        if info["hand"] == "high_card":
            top = max(info["cards"], key=lambda c: "23456789TJQKA".index(c[0]))[0]
            assert shown == f"{'10' if top == 'T' else top} high", (box, info)
    page.goto(f"{s.url}/board")
    wait(page, f"!!document.querySelector('[data-round=\"{result['round_id']}\"] [data-player=\"1\"]')")
    for box, net in result["net"].items():
        assert text(page, f'[data-round="{result["round_id"]}"] [data-player="{box}"]') == f"box {box} {signed(net)}"
    assert page.errors.real() == []


def test_wheel_fits_and_shows_each_players_result_on_each_symbol(serve, page):
    s = serve("wheel", pace=0.005, seed=5)
    open_console(page, s)
    ok(s.post("/api/actions/open_round"))
    s.wait_state("betting_open")
    bets = [("alice", "1", "10"), ("bob", "1", "5"), ("bob", "joker", "2"), ("carol", "5", "3"), ("dave", "logo", "1")]
    ok(s.post("/api/bets/batch", {"bets": [{"position": p, "bet": b, "amount": a} for p, b, a in bets]}))
    wait(page, "document.querySelector('#in-play').textContent === 'in play 21'")
    assert_fits(page, "#wheel-result", '[data-symbol="logo"]')
    ok(s.post("/api/actions/close_betting"))
    for _ in range(20):  # a short spin is a no-spin: spin again
        ok(s.post("/api/actions/spin"))
        snap, end = s.state(), time.monotonic() + 60  # pure waiting: generous
        while not (snap["state"] in ("complete", "void") or
                   (snap["state"] == "bets_closed" and not snap["view"]["spin_requested"])):
            assert time.monotonic() < end, snap["state"]
            time.sleep(0.01)
            snap = s.state()
        if snap["state"] != "bets_closed":
            break
    wait(page, "document.body.dataset.state === 'complete' && !!document.querySelector('#result')")
    result = s.book()["result"]
    assert_fits(page, "#result", "#wheel-result", '[data-symbol="logo"]')
    for player, per in result["results"].items():
        for symbol, value in per.items():
            assert text(page, f'[data-result="{player}:{symbol}"]') == signed(value), (player, symbol)
    page.goto(f"{s.url}/board")  # (open: the round, never a player: the wheel's positions are its players)
    wait(page, f"!!document.querySelector('[data-round=\"{result['round_id']}\"]')")
    assert page.query_selector("[data-player]") is None and "bob" not in text(page, "body")
    assert page.errors.real() == []


def test_the_next_line_after_a_recovery_and_while_a_supervisor_holds_the_round(serve, page, tmp_path):
    path = tmp_path / "f3.sqlite"
    s = serve("fortune3", pace=0.005, seed=11, journal=str(path))
    ok(s.post("/api/actions/open_round"))
    ok(s.post("/api/bets", {"position": "2", "bet": "ante", "amount": "10"}))
    ok(s.post("/api/actions/close_betting"))
    ok(s.post("/api/actions/deal"))
    s.wait_state("decisions", timeout=60)
    stop(s)
    s = serve("fortune3", pace=0.005, seed=11, journal=str(path))  # the table comes back from its journal
    assert s.state()["state"] == "decisions" and s.state()["recovery"]
    open_console(page, s)
    wait(page, "document.body.dataset.state === 'decisions'")
    assert text(page, "#instruction-text") == "players decide: play or fold (box 2)"
    ok(s.post("/api/actions/misdeal"))  # the dealer's call: the round waits for a supervisor
    incident = s.state()["incident"]
    wait(page, "!document.querySelector('#incident').hidden")
    assert text(page, "#instruction-text") == \
        f"wait: the supervisor resolves incident {incident['id']} ({incident['text']})"
    assert json.loads(json.dumps(page.errors.real())) == []


def test_the_next_line_during_a_misread_is_the_supervisors_wait(emulated, page):
    """The reader misread the dealer's first card: the round waits for the
    supervisor to name it; the console does not tell the dealer to deal that
    card again."""
    s = emulated("fortune3", faults=["shoe:misread@card=2"])
    open_console(page, s)
    ok(s.post("/api/actions/open_round"))
    ok(s.post("/api/bets", {"position": "4", "bet": "ante", "amount": "10"}))
    ok(s.post("/api/actions/close_betting"))
    ok(s.post("/api/actions/deal"))
    wait(page, "!document.querySelector('#incident').hidden")
    incident = s.state()["incident"]
    assert incident["blocking"] and s.state()["instruction"] == "card 1 to the dealer"  # as announced
    assert text(page, "#instruction-text") == \
        f"wait: the supervisor resolves incident {incident['id']} ({incident['text']})"
    screenshot(page, ARTIFACTS / "console-misread.png")
    assert_fits(page, "#incident")
    # The open view hides the reader's guess (the dealer's face-down card); the
    # signed-in console reads it from the operator's route to resolve the incident.
    assert incident["card"] == "??"
    guess = s.get("/api/incident", headers=s.auth("dealer")).json()["incident"]["card"]
    assert guess not in ("??", None)
    page.click("#incident-resolve")
    wait(page, "document.querySelector('#modal').open")
    assert page.evaluate("document.querySelector('#modal-fields [name=\"card\"]').value") == guess
    assert page.errors.real() == []


def test_a_failed_shuffler_is_shown_and_its_replacement_confirmed_from_the_console(emulated, page):
    """Art. 11(4): after a shuffler failure voids the round, the console says the
    shuffler is out of service, and the supervisor confirms its replacement
    from the screen (journaled with who and why)."""
    from test_server_devices import BETS, play

    s = emulated("fortune3", dealing="shuffler", faults=["shuffler:jam@hand=2"])
    open_console(page, s)
    assert play(s, BETS["fortune3"])["void_reason"] == "shuffler_fault"
    wait(page, "!!document.querySelector('#shuffler-out')")
    assert "out of service" in text(page, "#shuffler-out")
    assert_fits(page, "#shuffler-out")
    page.click("#act-confirm_shuffler")
    wait(page, "document.querySelector('#modal').open")
    page.click("#modal-fields .quick button")
    page.click("#modal-ok")
    wait(page, "document.querySelector('#modal').open && document.querySelector('#modal-title').textContent === 'Supervisor needed'")
    page.keyboard.insert_text(s.supervisor)
    page.keyboard.press("Enter")
    wait(page, "!document.querySelector('#shuffler-out')")
    assert s.state()["view"]["shuffler_out_of_service"] is None
    assert page.errors.real() == []


@pytest.mark.slow
def test_each_console_fits_1280x800_in_each_language_and_says_the_shift_once(serve, page):
    """Signed in as the dealer, in English, Portuguese and Traditional
    Chinese: no horizontal scroll, the header on one line (the round's id
    unwrapped), the shift's state said once (no "no dealer on duty" beside
    the signed-in dealer: the way to start the shift instead); every control
    labelled, every text at WCAG AA contrast, and (in English) every control
    reached by Tab (tests/access.py)."""
    for game in ("wheel", "fortune3", "football"):
        s = serve(game, pace=0.005, seed=5)
        open_console(page, s)
        ok(s.post("/api/actions/open_round"))
        s.wait_state("betting_open")
        for lang, start in (("en", "Sign in to the shift"), ("pt", "Iniciar o turno"), ("zh-Hant", "登記上班")):
            page.select_option("#lang", lang)
            wait(page, f"document.documentElement.lang === {lang!r}")
            where = (game, lang)
            assert page.evaluate("document.documentElement.scrollWidth") <= 1280, where
            assert page.evaluate("document.getElementById('top').scrollWidth") <= 1280, where
            line = page.evaluate("parseFloat(getComputedStyle(document.getElementById('round-id')).lineHeight) || 24")
            assert page.evaluate("document.getElementById('round-id').offsetHeight") <= line * 1.5, where
            assert page.evaluate(IN_VIEW, "#top > *:not([hidden]):not(.spacer)") == [], where
            assert text(page, "#duty") == start and "mock-dealer" in text(page, "#operator"), where
            assert_fits(page)
            assert not access.outside(page), (where, access.outside(page))
            assert not access.unlabelled(page), (where, access.unlabelled(page))
            assert not access.illegible(page), (where, access.illegible(page))
            if lang == "en":
                assert not access.unreachable(page), (where, access.unreachable(page))
        ok(s.post("/api/shift/sign-in", {}))
        wait(page, "document.querySelector('#duty').textContent.includes('mock-dealer')")
        assert "mock-dealer" not in text(page, "#operator")  # (named once: on the duty button)
        assert page.errors.real() == []
