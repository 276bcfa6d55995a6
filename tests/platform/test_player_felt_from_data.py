"""The player's page lays out each game's felt and a shared hand's decisions
from what the table's line says (the game's remote view: ``felt``, ``hand``),
never from the game's name: football's spots in its two rows, the wheel's
symbols in one row (four to a row on a phone), Fortune 3's betting circles,
a game with no felt of its own its bets in one row; and one button per
decision the shared hand offers, in the game's words, else the page's,
else the decision's id, in each language.

The page runs in Chromium, served its own files and words by a small
server in the test, its WebSocket a stand-in the test speaks for the
platform: no broker, wallet or table (the real round is
``test_player_page.py``'s)."""

from __future__ import annotations

import json
import threading
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from browser import WAIT_MS, needs_chromium, until
from tablesim.games import registry
from tablesim.i18n.web import WORDS_JS, catalog_json
from tablesim.platform.player.layouts import table_layout
from tablesim.platform.player.routes import CATALOG, STATIC
from tablesim.platform.tables import Offer

pytestmark = needs_chromium

PHONE, DESKTOP = {"width": 390, "height": 844}, {"width": 1280, "height": 800}
#: a made-up game's own words: one of its decisions has a word of its own in each language
DICE_WORDS = {"en": "Raise", "pt": "Aumentar", "zh-Hant": "加注"}

#: the page's WebSocket, played by the test: what the page sends is kept, what the test pushes arrives
FAKE_SOCKET = """
sessionStorage.setItem("tablesim.session", "S-1");
window.__sent = [];
window.WebSocket = class {
  constructor(url) { this.readyState = 0; window.__ws = this; setTimeout(() => { this.readyState = 1; this.onopen && this.onopen(); }, 0); }
  send(d) { window.__sent.push(JSON.parse(d)); }
  close() {}
};
window.__push = (m) => window.__ws.onmessage({ data: JSON.stringify(m) });
"""


class _Files(BaseHTTPRequestHandler):
    folders = [CATALOG, *(registry.spec(g).catalog_dir() for g in registry.names())]

    def do_GET(self):  # noqa: N802
        path = self.path.split("?")[0]
        if path == "/":
            self._send((STATIC / "index.html").read_bytes(), "text/html")
        elif path.startswith("/player/") and (STATIC / path[8:]).is_file():
            kind = {"js": "text/javascript", "css": "text/css", "svg": "image/svg+xml"}[path.rpartition(".")[2]]
            self._send((STATIC / path[8:]).read_bytes(), kind)
        elif path == "/i18n/words.js":
            self._send(WORDS_JS.read_bytes(), "text/javascript")
        elif path.startswith("/i18n/") and path.endswith(".json"):
            lang = path[6:-5]
            lang = "en" if lang == "auto" else lang
            doc = catalog_json(lang, self.folders)
            doc["messages"]["dice.decision.raise"] = DICE_WORDS[lang]
            self._send(json.dumps(doc).encode(), "application/json")
        else:
            self.send_error(404)

    def _send(self, body: bytes, kind: str) -> None:
        self.send_response(200)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture(scope="module")
def site():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Files)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


def line(of: str, position: str = "box", **more) -> dict:
    """A table's line as the platform sends it (game ``of``'s own remote view), ``more`` over it."""
    table_id = registry.spec(of).table_id("DEMO")
    return {**table_layout(Offer(table_id, "MOP", Decimal(1), position, Decimal(100), of)),
            "state": "idle", "round_id": None, "players": 0, "last": [], **more}


def open_page(chromium, site, tables: list[dict], viewport=DESKTOP, locale="en-US"):
    # (motion reduced: a headless browser draws animation frames in software; the layout is the same)
    context = chromium.new_context(viewport=viewport, locale=locale, device_scale_factor=1, reduced_motion="reduce")
    context.set_default_timeout(WAIT_MS)
    context.add_init_script(FAKE_SOCKET)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page._host.run(lambda: setattr(page._obj, "errors", errors))
    page.goto(site + "/")
    until(page, "window.__sent.length > 0")  # (the hello)
    page.evaluate("m => window.__push(m)", {"type": "welcome", "player": "ann", "currency": "MOP", "balance": "100",
                                            "now": 0, "recall": [], "missed": [], "tables": tables})
    return context, page


def show(page, table: dict, **more) -> None:
    """The table opened from the lobby, its line as the platform answers the watch."""
    page.click(f".table-card[data-table='{table['table']}'] button")
    page.evaluate("m => window.__push(m)", {"type": "table", **table, "events": [], "roadmap": [], "mine": [], **more})
    page.wait_for_selector(".spot")


BOXES = """() => [...document.querySelectorAll('#spots .spot')].map((el) => {
  const r = el.getBoundingClientRect(); const s = getComputedStyle(el);
  return { bet: el.dataset.bet, x: Math.round(r.left), y: Math.round(r.top), w: Math.round(r.width), round: s.borderTopLeftRadius };
})"""


def rows_of(boxes: list[dict]) -> list[list[str]]:
    """The spots by row, top to bottom, each row left to right."""
    tops = sorted({b["y"] for b in boxes})
    return [[b["bet"] for b in sorted((b for b in boxes if b["y"] == y), key=lambda b: b["x"])] for y in tops]


def test_each_felt_lies_as_its_game_says_with_no_game_named_on_the_page(chromium, site):
    lines = {g: line(g, "player" if g == "wheel" else "box") for g in ("football", "wheel", "fortune3")}
    assert lines["football"]["felt"] == {"rows": [["upper", "lower"], ["odd", "even", "middle"]], "circles": False}
    for viewport in (DESKTOP, PHONE):
        context, page = open_page(chromium, site, list(lines.values()), viewport)
        try:
            shown = {}
            for game, tb in lines.items():
                show(page, tb)
                shown[game] = page.evaluate(BOXES)
                page.click("#to-lobby")
            assert page.errors == []
        finally:
            context.close()
        football = {b["bet"]: b for b in shown["football"]}
        # two rows as on the table: the halves, then odd, even and the middle; a half as wide as one and a half
        assert rows_of(shown["football"]) == [["upper", "lower"], ["odd", "even", "middle"]]
        assert abs(football["upper"]["w"] - 1.5 * football["odd"]["w"]) < 8, football
        # the wheel's seven symbols in one row; on a phone four to a row
        wheel = rows_of(shown["wheel"])
        assert [len(r) for r in wheel] == ([7] if viewport is DESKTOP else [4, 3]), wheel
        # Fortune 3: its two betting circles side by side, centred, no wider than a circle; the others boxes
        circles = shown["fortune3"]
        assert rows_of(circles) == [["ante", "pair_plus"]] and all(b["w"] <= 12 * 16 + 1 for b in circles), circles
        assert all("%" in b["round"] for b in circles)
        assert not any("%" in b["round"] for b in shown["football"] + shown["wheel"])
        middle = (circles[0]["x"] + circles[1]["x"] + circles[1]["w"]) / 2
        assert abs(middle - page_middle(shown["wheel"])) < 20


def page_middle(boxes: list[dict]) -> float:
    return (min(b["x"] for b in boxes) + max(b["x"] + b["w"] for b in boxes)) / 2


def test_a_game_with_no_felt_of_its_own_gets_its_bets_in_a_row_and_rows_that_wrap(chromium, site):
    plain = line("fortune3", table="COIN-1", game="dice", scene="", hand=None, felt={"rows": [], "circles": False})
    plain["layout"] = {**plain["layout"], "bets": ["heads", "tails", "edge"], "rules": {}}
    plain["limits"] = {b: {"min": "1", "max": "100"} for b in plain["layout"]["bets"]}
    # a felt naming a bet the layout lacks, and leaving one out: the rows it names, then the rest
    odd = {**plain, "table": "COIN-2", "felt": {"rows": [["tails", "nowhere"]], "circles": False}}
    context, page = open_page(chromium, site, [plain, odd])
    try:
        show(page, plain)
        assert rows_of(page.evaluate(BOXES)) == [["heads", "tails", "edge"]]
        page.click("#to-lobby")
        show(page, odd)
        assert rows_of(page.evaluate(BOXES)) == [["tails"], ["heads", "edge"]]
        assert page.errors == []
    finally:
        context.close()


def test_the_decisions_are_the_ones_the_shared_hand_offers_in_the_games_words(chromium, site):
    fortune3 = line("fortune3", state="decisions", round_id="R-1")
    assert fortune3["hand"]["decisions"] == ["play", "fold"]
    hand = {"deciding": "acting", "decisions": ["raise", "check", "fold"], "default": "check", "stakes": {"raise": "ante"}}
    dice = {**fortune3, "table": "DICE-1", "game": "dice", "hand": hand, "state": "acting"}
    for locale, words in (("en-US", ("Play", "Fold", "Fold")), ("pt-PT", ("Jogar", "Desistir", "Desistir")),
                          ("zh-TW", ("跟注", "棄牌", "棄牌"))):
        lang = {"en-US": "en", "pt-PT": "pt", "zh-TW": "zh-Hant"}[locale]
        context, page = open_page(chromium, site, [fortune3, dice], locale=locale)
        try:
            show(page, fortune3)
            page.wait_for_selector("#decide:not([hidden])")
            buttons = page.eval_on_selector_all("#decide button", "bs => bs.map((b) => [b.dataset.decision, b.textContent])")
            assert buttons == [["play", words[0]], ["fold", words[1]]]
            assert words[0] in page.inner_text("#decide-notice")  # (the game's own notice names its decisions)
            page.click("#decide-play")
            until(page, "window.__sent.some((m) => m.type === 'decide')")
            sent = page.evaluate("() => window.__sent.filter((m) => m.type === 'decide')")
            assert sent == [{"type": "decide", "id": sent[0]["id"], "table": "F3-DEMO", "round": "R-1", "decision": "play"}]
            page.click("#to-lobby")
            # another game's hand: its decisions, its word where its catalog has one, the page's, else the id;
            # its decision timer runs in its own deciding state
            show(page, dice, events=[{"type": "event", "table": "DICE-1", "round_id": "R-1", "kind": "remote_decisions",
                                      "ts": "2026-01-01T00:00:00Z", "data": {"seconds": 3600 * 24 * 365 * 100}}])
            page.wait_for_selector("#decide:not([hidden])")
            until(page, "document.querySelector('#ring-secs').textContent !== ''", timeout=10)  # (the timer's seconds)
            buttons = page.eval_on_selector_all("#decide button", "bs => bs.map((b) => [b.id, b.textContent])")
            assert buttons == [["decide-raise", DICE_WORDS[lang]], ["decide-check", "check"], ["decide-fold", words[2]]]
            notice = page.inner_text("#decide-notice")
            assert DICE_WORDS[lang] in notice and "check" in notice
            page.click("#decide-check")
            until(page, "window.__sent.filter((m) => m.type === 'decide').length === 2")
            assert page.evaluate("() => window.__sent.filter((m) => m.type === 'decide')[1].decision") == "check"
            # not in its deciding state: no buttons shown
            page.evaluate("m => window.__push(m)", {"type": "event", "table": "DICE-1", "round_id": "R-1", "kind": "state",
                                                    "data": {"state": "settled", "previous": "acting"}, "ts": "x"})
            page.wait_for_selector("#decide", state="hidden")
            assert page.errors == []
        finally:
            context.close()
