"""The player's page in Debian's Chromium, on real processes (a broker, the
reference wallet, a wheel and a football table on mock devices, one
platform; and a Fortune 3 table on the remote profile with its own):
two players in different languages at the same table play a full round of
each game and see the same outcome and their own results (on the shared
remote hand each decides on their own: one plays, one lets the timer fold
them); a reload mid-round keeps the bet and shows its result, and one in
the middle of the decisions shows the hand again and takes the decision;
the lobby and the table views at a phone's 390x844 and at 1280x800, in
English, Portuguese and Traditional Chinese (screenshots: artifacts/player;
the docs' are made by scripts/docs_screenshots.py)."""

from __future__ import annotations

import json
import re
import time
from decimal import Decimal
from pathlib import Path

import pytest

import access
import f3rig
from tablecore.cards import card as card_of
from tablesim.games import registry
from tablesim.games.fortune3.hands import classify
from tablesim.i18n import read_catalog
from tablesim.platform.player.layouts import game_layout
import reaper
import rig as rigs
from browser import WAIT_MS, clipped, needs_chromium, screenshot, until
from natsserver import NATS_SERVER
from playerrig import FOOTBALL, FORTUNE3, WHEEL, PlayerRig
import webclient

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "artifacts" / "player"  # (the docs' pictures: scripts/docs_screenshots.py)
PHONE, DESKTOP = {"width": 390, "height": 844}, {"width": 1280, "height": 800}
VIEWS = ROOT / "artifacts" / "player-views"

pytestmark = [needs_chromium, pytest.mark.slow]


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    if NATS_SERVER is None:
        pytest.skip("nats-server is not installed (Debian package nats-server)")
    folder = tmp_path_factory.mktemp("player")
    def make(folder, broker):
        r = PlayerRig(folder, broker)
        reaper._STARTED.remove(r.platform.proc)  # (the module's, not reaped after each test)
        return r

    with rigs.on_own_broker(folder, make) as r:
        yield r


def player(chromium, setup, who: str, locale: str, viewport=DESKTOP, *, url: str | None = None, first: str = WHEEL,
           motion: str = "reduce"):
    """A browser page of ``who``, opened with a launch token, in a browser of
    ``locale`` (and ``motion``: its reduced-motion preference), on the rig's
    platform (or ``url``'s) once its lobby shows ``first``.

    Motion is reduced unless a test asks for it (the tests of the wheel's
    turn do): headless Chromium draws each animation frame in software, and
    the scene's animations (the last seconds' pulse, a card's turn, the
    banner) were a third of a page's CPU in the tests (the shared remote
    hand's test: 4.9-5.5 s of Chromium's CPU with motion, 3.5-3.7 s reduced).
    The layout is the same either way; only the animations are left out."""
    context = chromium.new_context(viewport=viewport, locale=locale, device_scale_factor=1, reduced_motion=motion)
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page._host.run(lambda: setattr(page._obj, "errors", errors))
    page.goto(f"{url or setup.platform.url}/?token={setup.token(who)}")
    page.wait_for_selector(f".table-card[data-table='{first}']")
    return context, page


def text(page, selector: str) -> str:
    return page.locator(selector).first.inner_text()


def bet(page, spot: str, chip: str) -> None:
    page.click(f".chip[data-amount='{chip}']")
    page.click(f".spot[data-bet='{spot}']")
    page.click("#place")
    until(page, f"document.querySelector(\".spot[data-bet='{spot}'] .stake\").textContent.match(/\\d/)")


def open_table(page, table: str) -> None:
    page.click(f".table-card[data-table='{table}'] button")
    page.wait_for_selector(".spot")


def betting_on(setup, table, pages, spot: str) -> str:
    """A round of ``table`` taking bets, seen so on each page (``spot`` open): its id."""
    round_id = table.open_round()
    setup.seen_betting(table, round_id)
    for p in pages:
        p.wait_for_selector(f".spot[data-bet='{spot}']:not([disabled])")
    return round_id


def shot(page, name: str) -> None:
    screenshot(page, SHOTS / f"{name}.png")


def test_two_players_in_two_languages_play_a_wheel_round(chromium, setup):
    (c1, ann), (c2, amy) = (player(chromium, setup, "ann", "zh-TW", motion="no-preference"),
                            player(chromium, setup, "amy", "pt-PT", motion="reduce"))
    try:
        assert ann.evaluate("document.documentElement.lang") == "zh-Hant"
        assert amy.evaluate("document.documentElement.lang") == "pt"
        assert "餘額" in text(ann, "header") and "Saldo" in text(amy, "header")
        assert re.search(r"1[.,]000", text(ann, "#balance"))  # thousands grouped, in MOP
        shot(amy, "lobby-desktop")
        shot(ann, "lobby-desktop-zh")
        for p in (ann, amy):
            open_table(p, WHEEL)
        round_id = betting_on(setup, setup.wheel, (ann, amy), "1")
        assert "秒後停止下注" in text(ann, "#timer") and "fecham" in text(amy, "#timer")
        # the felt: a chip of its own colour per value, the table's smallest chosen from the start; each spot its pay and limits
        chips = ann.evaluate("[...document.querySelectorAll('#chips .chip')].map((c) => [c.dataset.amount,"
                             " getComputedStyle(c).backgroundColor, c.getAttribute('aria-pressed')])")
        assert len({colour for _, colour, _ in chips}) == len(chips) == 5, chips
        assert [amount for amount, _, pressed in chips if pressed == "true"] == ["1"], chips
        for spot in amy.evaluate("[...document.querySelectorAll('.spot')].map((s) => s.innerText)"):
            assert re.search(r"paga \d+ para 1", spot) and re.search(r"1 – 10\D?000", spot), spot
        for s in ("1", "3", "5", "10", "20", "joker", "logo"):
            bet(ann, s, "5")  # one of them wins whatever the wheel says
        bet(amy, "joker", "1")
        assert text(ann, "#total-bet") == "35 MOP" and text(amy, "#total-bet") == "1 MOP"
        # placed (the table's) and waiting (not sent yet) chips are stacked apart, drawn differently
        amy.click(".spot[data-bet='joker']")
        kinds = amy.evaluate("[...document.querySelectorAll(\".spot[data-bet='joker'] .stack .mini\")].map((c) =>"
                             " [c.classList.contains('placed'), getComputedStyle(c).borderStyle])")
        assert kinds == [[True, kinds[0][1]], [False, kinds[1][1]]] and kinds[0][1] != kinds[1][1], kinds
        amy.click("#clear")
        shot(amy, "wheel-desktop")
        setup.wheel.act("close_betting")
        setup.wheel.act("spin")
        # the wheel turns while the sensor reports motion (a picture of it when this look is in time for it)
        if until(ann, "document.querySelector('.wheel-box.moving') ? 'moving' : document.querySelector('#spin').dataset.symbol") == "moving":
            shot(ann, "wheel-spinning-desktop-zh")
        setup.wheel.wait_state("complete")
        for p in (ann, amy):
            p.wait_for_selector("#result:not([hidden]) .round-net")
        symbols = {p.get_attribute("#spin", "data-symbol") for p in (ann, amy)}
        assert len(symbols) == 1 and symbols != {""}
        symbol = symbols.pop()
        # the wheel drawn from the table's own layout, at rest with the reported segment under the pointer
        segments, under = ann.evaluate("(() => { const r = document.querySelector('#rotor'); const n = r.querySelectorAll('path').length;"
                                       " return [n, ((Math.round(-Number(r.dataset.angle) / (360 / n)) % n) + n) % n]; })()")
        wheel = game_layout("wheel")["layout"]["wheel"]
        assert segments == len(wheel) == 52 and wheel[under] == symbol
        # amy's browser asks for reduced motion: her wheel is put at rest without turning there; ann's turns
        assert amy.evaluate("document.querySelector('#rotor').getAnimations().length") == 0
        assert amy.evaluate("document.getAnimations().length") == 0  # (nothing else moves on her page: banner, cards, timer)
        assert ann.evaluate("document.querySelector('#rotor').classList.contains('settle')")
        assert abs(float(amy.evaluate("document.querySelector('#rotor').dataset.angle")) + under * 360 / 52) < 1e-6
        assert "voltas" in text(amy, "#spin") and "圈" in text(ann, "#spin")  # the turns the sensor counted
        assert text(ann, "#roadmap .road:last-child") == {"joker": "J", "logo": "\u2605"}.get(symbol, symbol)
        assert "本局" in text(ann, "#result") and "Ronda" in text(amy, "#result")
        assert text(ann, "#result").count("MOP") >= 7  # each of her bets, with its result
        amy_net = text(amy, "#result .round-net b")
        assert amy_net.startswith("+45" if symbol == "joker" else "\u22121"), amy_net  # her own, not ann's, signed
        # her balance as her credit left it, told by the platform as soon as the wallet confirmed it
        amy.wait_for_function("(want) => document.querySelector('#balance').textContent.replace(/\\D/g, '')"
                              ".startsWith(want)", arg="1045" if symbol == "joker" else "999")
        # the banner: a win celebrated with its net, a loss said plainly with its own; the last win kept beside the total bet
        for p in (ann, amy):
            net = text(p, "#result .round-net b")
            assert text(p, "#banner-net") == net
            assert p.get_attribute("#banner", "class") == ("banner win" if net.startswith("+") else "banner loss"), net
            assert text(p, "#last-win") == (net[1:] if net.startswith("+") else "—")
        assert amy.locator("#result li").count() == 1 and ann.locator("#result li").count() == 7
        ann.wait_for_selector(f"#recall li[data-round='{round_id}']")
        shot(amy, "wheel-result-desktop")
        shot(ann, "wheel-result-desktop-zh")
        assert not ann.errors and not amy.errors, (ann.errors, amy.errors)
    finally:
        c1.close()
        c2.close()


def test_two_players_play_a_football_round_on_the_common_box(chromium, setup):
    (c1, kim), (c2, lea) = player(chromium, setup, "kim", "en-US"), player(chromium, setup, "lea", "zh-HK")
    try:
        for p in (kim, lea):
            open_table(p, FOOTBALL)
        assert "Upper" in text(kim, ".spot[data-bet='upper']") and "上" in text(lea, ".spot[data-bet='upper']")
        betting_on(setup, setup.football, (kim, lea), "odd")
        bet(kim, "odd", "25")
        bet(kim, "even", "5")
        bet(lea, "middle", "1")
        shot(kim, "football-desktop")
        setup.football.play_out()
        for p in (kim, lea):
            p.wait_for_selector("#result:not([hidden]) .round-net")
            p.wait_for_selector("#common-total")
        assert text(kim, "#common-cards") == text(lea, "#common-cards") != ""
        # the draw as the display shows it: its upper and lower sets, the fixed middle numbers
        assert [len(kim.locator(f"#draw .draw-row.{r} .num").all_inner_texts()) for r in ("up", "mid", "down")] == [4, 2, 4]
        assert kim.locator("#draw .draw-row.mid .num").all_inner_texts() == ["0", "9"]
        assert "5 % commission" in text(kim, ".spot[data-bet='upper']") and "Odd" in text(kim, "#paytable")
        assert text(kim, "#common-total").split()[-1] == text(lea, "#common-total").split()[-1]
        assert "Odd" in text(kim, "#result") and "Even" in text(kim, "#result") and "Odd" not in text(lea, "#result")
        shot(kim, "football-result-desktop")
        shot(lea, "football-result-desktop-zh")
        assert not kim.errors and not lea.errors, (kim.errors, lea.errors)
    finally:
        c1.close()
        c2.close()


#: the changes made to each element of ``ids`` (its text, its attributes) in 2.1 seconds
WRITES = """(ids) => new Promise((done) => {
  const seen = Object.fromEntries(ids.map((id) => [id, 0]));
  const watch = new MutationObserver((changes) => { for (const c of changes) {
    const el = c.target.nodeType === 1 ? c.target : c.target.parentElement; seen[el.closest('[id]').id] += 1; } });
  for (const id of ids) watch.observe(document.getElementById(id), { childList: true, characterData: true, subtree: true, attributes: true });
  setTimeout(() => { watch.disconnect(); done(ids.map((id) => seen[id])); }, 2100);
})"""


def test_a_reload_mid_round_keeps_the_bet_and_shows_its_result(chromium, setup):
    context, ada = player(chromium, setup, "ada", "en-GB")
    try:
        open_table(ada, WHEEL)
        betting_on(setup, setup.wheel, (ada,), "3")
        # the clock and the bet timer are written when they change (once a second), not at each of
        # their four looks a second: a write, even of the same words, has the page laid out and drawn
        writes = ada.evaluate(WRITES, ["clock", "timer", "ring-secs", "ring-left"])
        assert all(1 <= n <= 3 for n in writes[:3]) and writes[3] <= 3, writes
        bet(ada, "3", "25")
        ada.reload()  # the socket is gone; the page comes back with the same session
        until(ada, "document.querySelector(\".spot[data-bet='3'] .stake\")?.textContent.includes('25')")
        setup.wheel.play_out()
        ada.wait_for_selector("#result:not([hidden]) .round-net")
        assert "3: MOP" not in text(ada, "#result") and "25" in text(ada, "#result li[data-bet='3']")
        assert ada.get_attribute("#notice", "data-i18n") == "player.disconnect_notice"
        assert "settled" in text(ada, "#notice")
    finally:
        context.close()


def test_the_banner_goes_when_the_next_round_opens_and_a_tables_bets_stay_at_it(chromium, setup):
    """A round's banner stays until the next round opens, then goes; the bets
    of one table never count at another (its total bet, its spots) when the
    player moves there in the middle of a round."""
    context, ida = player(chromium, setup, "ada", "en-GB")  # (ann's balance is counted by another test)
    try:
        betting_on(setup, setup.football, (), "odd")  # (a football round taking bets meanwhile)
        open_table(ida, WHEEL)
        betting_on(setup, setup.wheel, (ida,), "3")
        bet(ida, "3", "5")
        setup.wheel.play_out()
        ida.wait_for_selector("#banner:not([hidden])")
        betting_on(setup, setup.wheel, (ida,), "3")
        until(ida, "document.querySelector('#banner').hidden && document.querySelector('#result').hidden")
        bet(ida, "3", "5")
        assert text(ida, "#total-bet") == "5 MOP"
        ida.click("#to-lobby")
        open_table(ida, FOOTBALL)
        ida.wait_for_selector(".spot[data-bet='odd']:not([disabled])")
        assert text(ida, "#total-bet") == "0 MOP" and ida.locator(".spot .stake:has-text('placed')").count() == 0
        assert not ida.errors, ida.errors
    finally:
        context.close()


def test_a_launch_link_opens_one_session_a_reload_of_it_keeps_it_another_browser_is_told_why(chromium, setup):
    token = setup.token("abe")
    context, abe = player(chromium, setup, "abe", "en-GB")
    other = chromium.new_context(locale="pt-PT", reduced_motion="reduce")
    try:
        abe.goto(f"{setup.platform.url}/?token={token}")  # the launch link used, then opened again in its tab
        abe.wait_for_selector(f".table-card[data-table='{WHEEL}']")
        abe.goto(f"{setup.platform.url}/#token={token}")
        abe.reload()
        abe.wait_for_selector(f".table-card[data-table='{WHEEL}']")
        until(abe, "document.querySelector('#link').textContent && "
                   "!document.querySelector('#link').classList.contains('down')")  # connected, not refused
        page = other.new_page()
        page.goto(f"{setup.platform.url}/#token={token}")
        until(page, "document.querySelector('#link').classList.contains('down')")
        assert text(page, "#link") == ("Não foi possível abrir a sua sessão: Esta ligação de entrada já abriu uma "
                                       "sessão: abra o jogo de novo a partir do lobby para obter uma nova.")
        assert not abe.errors, abe.errors
    finally:
        context.close()
        other.close()


def test_the_lobby_and_the_table_views_fit_a_phone(chromium, setup):
    context, kim = player(chromium, setup, "kim", "en-US", viewport=PHONE)
    try:
        width = lambda: kim.evaluate("document.documentElement.scrollWidth")  # noqa: E731
        assert width() <= PHONE["width"]
        for lang, suffix in (("en", ""), ("zh-Hant", "-zh")):  # (Chinese wraps otherwise: it must fit too)
            kim.select_option("#lang", lang)
            until(kim, f"document.documentElement.lang === {lang!r}")
            assert width() <= PHONE["width"], lang
            assert text(kim, "#link") == {"en": "Connected", "zh-Hant": "已連線"}[lang]  # (the switch words it again)
            shot(kim, f"lobby-phone{suffix}")
            for table, name in ((WHEEL, "wheel-phone"), (FOOTBALL, "football-phone"), (FORTUNE3, "fortune3-phone")):
                open_table(kim, table)
                assert width() <= PHONE["width"], (lang, table)
                assert kim.locator("#place").is_visible() and kim.locator("#clock").is_visible()
                shot(kim, name + suffix)
                kim.click("#to-lobby")
        assert "餘額" in text(kim, "header")
        kim.select_option("#lang", "pt")
        until(kim, "document.documentElement.lang === 'pt'")
        assert "Saldo" in text(kim, "header")
    finally:
        context.close()


def test_the_last_bets_are_called_and_the_timer_ring_stays_in_view_on_a_phone(chromium, setup):
    """The bet timer's last seconds on a phone, the felt scrolled to its foot
    (the player reaching for the chips): the ring stays in view, and "Last
    bets!" is called in it. The page's clock is the test's (Playwright's):
    the table's 600 s timer is brought to its last seconds at once."""
    context = chromium.new_context(viewport=PHONE, locale="pt-PT", device_scale_factor=1)
    context.set_default_timeout(WAIT_MS)
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.clock.install()  # (time runs as it does; the test may jump it ahead)
        page.goto(f"{setup.platform.url}/?token={setup.token('abe')}")
        page.wait_for_selector(f".table-card[data-table='{WHEEL}']")
        open_table(page, WHEEL)
        round_id = betting_on(setup, setup.wheel, (page,), "1")
        until(page, "/\\d/.test(document.querySelector('#ring-secs').textContent)")
        ring_secs = lambda: int(page.evaluate("document.querySelector('#ring-secs').textContent"))  # noqa: E731 (an SVG text)
        secs = ring_secs()
        assert secs > 500 and text(page, "#last-bets") == "" and "hurry" not in page.get_attribute("#timebar", "class")
        page.click(".spot[data-bet='1']")  # (a chip waiting, as a player reaching for Place bets has)
        page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
        page.clock.fast_forward((secs - 3) * 1000)
        until(page, "document.querySelector('#timebar').classList.contains('hurry')")
        assert text(page, "#last-bets") == "Últimas apostas!"
        assert 0 < ring_secs() <= 5
        assert page.get_attribute("#timebar", "data-warned") == round_id
        assert page.evaluate("window.scrollY") > 0  # scrolled down the felt: the bar stays at the top in view
        top, bottom = page.evaluate("(() => { const r = document.querySelector('#timebar').getBoundingClientRect(); return [r.top, r.bottom]; })()")
        assert 0 <= top and bottom <= PHONE["height"], (top, bottom)
        ring = page.evaluate("(() => { const r = document.querySelector('#timebar .ring').getBoundingClientRect(); return [r.width, r.top, r.bottom]; })()")
        assert ring[0] > 0 and 0 <= ring[1] and ring[2] <= PHONE["height"], ring
        assert page.evaluate("(() => { const r = document.querySelector('#last-bets').getBoundingClientRect();"
                             " return r.width > 0 && r.top >= 0 && r.bottom <= innerHeight; })()")
        page.clock.fast_forward(5000)  # the timer run out: no more call of the last bets
        until(page, "document.querySelector('#last-bets').textContent === ''")
        assert not errors, errors
    finally:
        context.close()


def test_the_fortune3_view_shows_the_remote_hand_ante_and_pair_plus_and_says_no_decision_is_a_fold(chromium, setup):
    context, abe = player(chromium, setup, "abe", "en-US")
    try:
        open_table(abe, FORTUNE3)
        assert [abe.get_attribute(f".spot >> nth={i}", "data-bet") for i in range(2)] == ["ante", "pair_plus"]
        assert "Pair Plus" in text(abe, ".spot[data-bet='pair_plus']") and "Remote hand" in text(abe, "#scene")
        assert "no decision is a fold" in text(abe, "#decide-notice")
        assert "pays 1 to 1" in text(abe, ".spot[data-bet='ante']")  # the profile's pays, on the spots
        assert "pays up to 40 to 1" in text(abe, ".spot[data-bet='pair_plus']")
        assert not abe.locator("#decide").is_visible()  # Play / Fold once the hands are dealt
        shot(abe, "fortune3-desktop")
    finally:
        context.close()


# --- Fortune 3 with the shared remote hand ------------------------------------------------


#: the page test's remote profile pays other than the regulation's (Pair Plus: a straight flush 35, a flush 3):
#: what the page shows is what the table plays
PROFILE_PAYS = (("straight_flush = 40", "straight_flush = 35"), ("\nflush = 4\n", "\nflush = 3\n"))


@pytest.fixture(scope="module")
def f3(tmp_path_factory):
    """A Fortune 3 table on the remote profile (the rig's copy of it, its own
    12 s decision timer: time for a browser's click, or a page loaded again,
    on a loaded machine; one player of each round lets it run out), the
    wallet and one platform."""
    if NATS_SERVER is None:
        pytest.skip("nats-server is not installed (Debian package nats-server)")
    folder = tmp_path_factory.mktemp("player-f3")

    def make(folder, broker):
        saved, f3rig.DECISION_SECONDS = f3rig.DECISION_SECONDS, 12
        try:
            r = f3rig.F3Rig(folder, broker, edits=PROFILE_PAYS)
        finally:
            f3rig.DECISION_SECONDS = saved
        r.page_platform = r.platform()
        reaper._STARTED.remove(r.page_platform.proc)  # (the module's, not reaped after each test)
        return r

    with rigs.on_own_broker(folder, make) as r:
        yield r


def f3_player(chromium, f3, who: str, locale: str, viewport=DESKTOP):
    context, page = player(chromium, f3, who, locale, viewport, url=f3.page_platform.url, first=f3rig.TABLE)
    open_table(page, f3rig.TABLE)
    return context, page


def cards(page, where: str) -> list[str]:
    return page.evaluate(f"[...document.querySelectorAll('#{where} .card')].map(c => c.dataset.card || '??')")


def amount_of(text: str) -> Decimal:
    """The number in an amount as the page writes it (``-1 234,50 MOP``, ``1,234.50 MOP``)."""
    digits = re.sub(r"[^\d,.\-+−]", "", text).replace("−", "-")
    parts = re.split(r"[.,](?=\d{2}$)", digits)  # (the decimal sign: the one before the cents)
    whole = re.sub(r"[.,]", "", parts[0])
    return Decimal(whole + ("." + parts[1] if len(parts) > 1 else ""))


def start_deciding(f3, pages, bets) -> str:
    """A round: each page's bets on the remote hand, the hands dealt, until both pages offer the decision."""
    rid = f3.open_round()
    for p in pages:
        p.wait_for_selector(".spot[data-bet='ante']:not([disabled])")
    for p, (spot, chip) in bets:
        bet(p, spot, chip)
    f3.deal()
    for p in pages:
        p.wait_for_selector("#decide:not([hidden])")
        until(p, "document.querySelectorAll('#remote-cards .card').length === 3")
    return rid


def test_two_players_in_two_languages_decide_on_their_own_on_the_shared_remote_hand(chromium, f3):
    (c1, ann), (c2, amy) = f3_player(chromium, f3, "ann", "zh-TW"), f3_player(chromium, f3, "amy", "pt-BR")
    try:
        assert "逾時未決定即作棄牌" in text(ann, "#decide-notice") and "Desiste" not in text(ann, "#decide-notice")
        assert "pt" == amy.evaluate("document.documentElement.lang")
        rid = start_deciding(f3, (ann, amy), ((ann, ("ante", "25")), (ann, ("pair_plus", "5")), (amy, ("ante", "5"))))
        # the pays on the spots and in the paytable are the table's profile's (its round's record), not the game's default's
        assert "40" in game_layout("fortune3")["layout"]["rules"]["pair_plus"].values()
        until(amy, "document.querySelector(\".spot[data-bet='pair_plus']\").textContent.includes('35')")
        assert "35" in text(ann, ".spot[data-bet='pair_plus']") and "40" not in text(amy, ".spot[data-bet='pair_plus']")
        flush = amy.evaluate("[...document.querySelectorAll('#paytable tbody tr')].map((r) => r.textContent)")
        assert any(row.startswith("Cor") and "3 para 1" in row for row in flush), flush
        # the same remote hand for both; the dealer's cards face down on both pages until the reveal
        assert cards(ann, "remote-cards") == cards(amy, "remote-cards") and "??" not in cards(ann, "remote-cards")
        assert cards(ann, "dealer-cards") == cards(amy, "dealer-cards") == ["??"] * 3
        # the remote hand's rank, named as the game's catalog names the table's category of those cards
        category, _ = classify([card_of(c) for c in cards(ann, "remote-cards")])
        until(ann, "document.querySelector('#own-rank').textContent")
        assert text(ann, "#own-rank") == "您的牌：" + read_catalog(registry.spec("fortune3").catalog_dir() / "zh-Hant.po")[
            f"fortune3.hand.{category}"]
        # the decision timer counts down (it comes with the table's own event, a moment after the state)
        until(ann, "/\\d/.test(document.querySelector('#timer').textContent)")
        shot(ann, "fortune3-decide-desktop-zh")
        ann.click("#decide-play")  # ann plays; amy lets the decision timer run out: a fold
        until(ann, "document.querySelector('#said').textContent.includes('您選擇跟注')")
        assert ann.locator("#decide").is_hidden() and amy.locator("#decide").is_visible()
        f3.wait_state(("complete",), "the round never settled", timeout=120)
        for p in (ann, amy):
            p.wait_for_selector("#result:not([hidden]) .round-net")
            until(p, "!document.querySelector('#dealer-cards').textContent.includes('??')")
        assert cards(ann, "dealer-cards") == cards(amy, "dealer-cards") and len(cards(ann, "dealer-cards")) == 3
        assert cards(ann, "remote-cards") == cards(amy, "remote-cards")
        result = f3.result(rid)
        remote = result["outcome"]["remote"]
        assert remote["decisions"] == {"ann": "play", "amy": "fold"} and remote["timed_out"] == ["amy"]
        # each sees their own result, as the table settled it
        for p, who in ((ann, "ann"), (amy, "amy")):
            nets = result["players"][who]["results"]["remote"]
            assert amount_of(text(p, "#result .round-net b")) == sum(Decimal(v) for v in nets.values()), who
        assert amount_of(text(amy, "#result .round-net b")) == Decimal("-5")
        # amy's time-out fold is said in words (not "bet placed" left standing), in the terms of her language
        assert text(amy, "#said") == "Desistiu: sem decisão a tempo." and "Desistiu" in text(amy, "#banner")
        assert amy.get_attribute("#timebar", "data-warned") == rid  # her last seconds were called out
        assert text(amy, "#decide-play") == "Jogar" and "Jogar" in text(amy, "#decide-notice")
        # each sees the rank of their own (remote) hand, as the table's rules name it
        assert text(amy, "#own-rank").startswith("A sua mão: ") and text(ann, "#own-rank").startswith("您的牌：")
        assert ann.locator("#result li[data-bet='pair_plus']").count() == 1
        assert amy.locator("#result li").count() == 1 and "Ante" in text(amy, "#result")
        assert "本局" in text(ann, "#result") and "Ronda" in text(amy, "#result")
        shot(ann, "fortune3-result-desktop-zh")
        # Portuguese names the Play bet "Jogar" throughout (never "Jogo", never the English word): ann's page, where
        # she played, read in Portuguese (the line said of her decision and her result's Play bet), and amy's
        ann.select_option("#lang", "pt")
        until(ann, "document.documentElement.lang === 'pt'")
        assert text(ann, "#said").startswith("Joga: uma aposta Jogar de 25"), text(ann, "#said")
        assert text(ann, "#result li[data-bet='play']").startswith("Jogar: 25"), text(ann, "#result")
        for p in (ann, amy):
            words = p.evaluate("document.querySelector('#table-view').innerText")
            assert "Jogar" in words and not re.findall(r"\bJogo\b|\bPlay\b", words), words
        assert not ann.errors and not amy.errors, (ann.errors, amy.errors)
    finally:
        c1.close()
        c2.close()


def test_a_reconnect_during_the_decisions_shows_the_hand_again_and_takes_the_decision(chromium, f3):
    """... and a second page of the same player (another tab) is told the
    decision the first took: it no longer offers it, and never takes the
    round's close for a fold on time-out, even when the close reaches it
    before the decision does (the last decision closes the hand: the two
    race, and here the tab's copy of the answer is held until the round is
    over)."""
    (c1, ada), (c2, abe) = f3_player(chromium, f3, "ada", "en-US"), f3_player(chromium, f3, "abe", "pt-PT", PHONE)
    c3, ada2 = f3_player(chromium, f3, "ada", "en-US")
    told = lambda doc: doc.get("type") == "answer" and doc.get("kind") == "decide"  # noqa: E731
    release, _, _, held = routed(ada2, hold=told)
    ada2.reload()  # (through the route from now on; the page comes back at its table)
    ada2.wait_for_selector("#table-view:not([hidden]) .spot")
    try:
        rid = start_deciding(f3, (ada, abe, ada2), ((ada, ("ante", "25")), (abe, ("ante", "5"))))
        hand = cards(ada, "remote-cards")
        ada.reload()  # the socket is gone mid-round; the page comes back with the same session
        ada.wait_for_selector("#decide:not([hidden])")
        until(ada, "document.querySelectorAll('#remote-cards .card').length === 3")
        assert cards(ada, "remote-cards") == hand and cards(ada, "dealer-cards") == ["??"] * 3
        assert ada.locator("#place").is_visible()
        until(ada, "/\\d/.test(document.querySelector('#timer').textContent)")
        shot(abe, "fortune3-decide-phone-pt")
        assert abe.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        assert not access.outside(abe) and not clipped(abe), (access.outside(abe), clipped(abe))  # (mid-round, a phone)
        abe.click("#decide-fold")
        until(abe, "document.querySelector('#said').textContent.includes('Desiste')")
        ada.click("#decide-play")
        until(ada, "document.querySelector('#said').textContent.includes('You play')")
        pumped(ada2, lambda: held)  # her other tab's copy of the decision waits in the route
        f3.wait_state(("complete",), "the round never settled", timeout=120)
        ada.wait_for_selector("#result:not([hidden]) .round-net")
        ada2.wait_for_selector("#result:not([hidden]) .round-net")  # (the close came first)
        release()
        until(ada2, "document.querySelector('#said').textContent.includes('You play')")  # (her other tab)
        assert ada2.locator("#decide").is_hidden()
        assert "folded" not in text(ada2, "#said") and "folded" not in text(ada2, "#banner")
        assert "folded" not in text(ada, "#said") and "folded" not in text(ada, "#banner")
        assert text(ada2, "#result .round-net b") == text(ada, "#result .round-net b")
        remote = f3.result(rid)["outcome"]["remote"]
        assert remote["decisions"] == {"ada": "play", "abe": "fold"} and remote.get("timed_out", []) == []
        assert ada.locator("#result li[data-bet='ante']").count() == 1
        abe.wait_for_selector("#result:not([hidden]) .round-net")
        assert amount_of(text(abe, "#result .round-net b")) == Decimal("-5")
        assert not access.outside(abe) and not clipped(abe), (access.outside(abe), clipped(abe))  # (the result, a phone)
        assert not ada.errors and not abe.errors and not ada2.errors, (ada.errors, abe.errors, ada2.errors)
    finally:
        c1.close()
        c2.close()
        c3.close()


def test_a_refusal_and_a_void_round_read_in_the_players_language(chromium, setup):
    context, ava = player(chromium, setup, "ava", "zh-TW")
    try:
        open_table(ava, WHEEL)
        betting_on(setup, setup.wheel, (ava,), "5")
        ava.click(".chip[data-amount='500']")
        for _ in range(3):  # 1,500 on a balance of 1,000: the wallet refuses it, in her language
            ava.click(".spot[data-bet='5']")
        ava.click("#place")
        until(ava, "document.querySelector('#said').classList.contains('bad')")
        assert text(ava, "#said") == "被拒絕：您的餘額不足。"
        bet(ava, "5", "25")
        tokens = json.loads(setup.wheel.journal.with_name(f"{WHEEL}.tokens.json").read_text())
        supervisor = next(op["token"] for op in tokens["operators"] if op["role"] == "supervisor")
        voided = webclient.post(f"{setup.wheel.base}/api/void", json={"why": "wheel jammed"}, timeout=20,
                                headers={"Authorization": f"Bearer {supervisor}"})
        assert voided.status_code == 200, voided.text
        ava.wait_for_selector("#result:not([hidden])")
        until(ava, "document.querySelector('#result').textContent.includes('本局無效（主管決定）')")
        ava.select_option("#lang", "pt")
        until(ava, "document.querySelector('#result').textContent.includes('Ronda anulada (decisão do supervisor)')")
        assert text(ava, "#said").startswith("Aposta confirmada")  # the line said before, in the new language
        assert not ava.errors, ava.errors
    finally:
        context.close()


# --- what a spot shows, the link going down, rounds missed --------------------------------


def routed(page, hold=None, *, after=False):
    """The page's socket through a route of the test's (``page.route_web_socket``):
    the platform's messages that ``hold(doc)`` says are held wait until
    ``release()`` (``after``: that one and every message after it, in their
    order; ``release(n)``: only the first ``n`` held); ``cut()`` closes the
    socket and refuses new ones until ``mend()``. Returns (release, cut, mend, held)."""
    state = {"down": False, "held": [], "routes": [], "holding": False}

    def handler(ws):
        if state["down"]:
            ws.close()
            return
        server = ws.connect_to_server()
        state["routes"].append((ws, server))

        def down(msg):
            doc = json.loads(msg)
            if state["holding"] or (hold is not None and hold(doc)):
                state["holding"] = after
                state["held"].append((ws, msg))
            else:
                ws.send(msg)

        server.on_message(down)
        ws.on_message(lambda msg: server.send(msg))

    page._host.run(lambda: page._obj.route_web_socket(re.compile(r".*/ws$"), handler))

    def release(n: int | None = None):
        def go():
            count = len(state["held"]) if n is None else n
            for ws, msg in state["held"][:count]:
                ws.send(msg)
            del state["held"][:count]
            if not state["held"]:
                state["holding"] = False
        page._host.run(go)

    def cut():
        def go():
            state["down"] = True
            for ws, server in state["routes"]:
                server.close()
                ws.close()
            state["routes"].clear()
        page._host.run(go)

    def mend():
        state["down"] = False

    return release, cut, mend, state["held"]


def pumped(page, done) -> None:
    """Until ``done()``, on what the page's route handlers see: they run while
    Playwright runs a call (its events are taken then), so each look is one."""
    deadline = time.monotonic() + WAIT_MS / 1000
    while not done():
        assert time.monotonic() < deadline, "never came"
        page.wait_for_timeout(20)


def test_a_tables_picture_that_comes_after_the_player_left_it_is_not_drawn(chromium, setup):
    """The table's picture answers the page's watch; a player who went back to the
    lobby before it came (a slow link) stays in the lobby, with no error: drawn, it
    was a TypeError there (a table view of no table), seen once under load."""
    context, kim = player(chromium, setup, "kim", "en-GB")
    try:
        pictures: list[dict] = []

        def first_picture(doc: dict) -> bool:  # (held: the first table picture; later ones go through)
            if doc.get("type") == "table":
                pictures.append(doc)
            return doc.get("type") == "table" and len(pictures) == 1

        release, _, _, held = routed(kim, hold=first_picture)
        kim.reload()  # (through the route from now on)
        kim.wait_for_selector(f".table-card[data-table='{WHEEL}']")
        kim.click(f".table-card[data-table='{WHEEL}'] button")
        pumped(kim, lambda: held)  # the table's picture reached the route (and waits there)
        kim.click("#to-lobby")
        release()
        kim.evaluate("new Promise((done) => setTimeout(done, 300))")  # (the picture's turn to be drawn)
        assert kim.locator("#table-view").is_hidden() and kim.locator("#lobby-view").is_visible()
        assert not kim.errors, kim.errors
        open_table(kim, WHEEL)  # the table opens again, its picture drawn
        assert kim.locator(".spot").count() > 0
    finally:
        context.close()


def stake(page, spot: str) -> str:
    return text(page, f".spot[data-bet='{spot}'] .stake")


def test_a_spot_shows_each_bet_once_when_the_tables_record_comes_before_the_answer(chromium, setup):
    """The table's record of the player's bets (``mine``) and the answer
    ``placed`` race; a second tab of the same player makes the record come
    first, always: the spot shows the bet once, as the table holds it."""
    (c1, bea), (c2, bea2) = player(chromium, setup, "al", "en-US"), player(chromium, setup, "al", "en-US")
    try:
        answers = lambda doc: doc.get("type") == "answer" and doc.get("kind") == "bet"  # noqa: E731
        release, _, _, held = routed(bea, hold=answers)
        bea.reload()  # (through the route from now on)
        bea.wait_for_selector(f".table-card[data-table='{FOOTBALL}']")
        for p in (bea, bea2):
            open_table(p, FOOTBALL)
        betting_on(setup, setup.football, (bea, bea2), "odd")
        bea.click(".chip[data-amount='5']")
        bea.click(".spot[data-bet='odd']")
        bea.click("#place")  # its answer is held
        until(bea2, "document.querySelector(\".spot[data-bet='odd'] .stake\").textContent.includes('5')")  # recorded
        pumped(bea, lambda: held)  # the answer reached the route (and waits there)
        assert len(held) == 1
        bet(bea2, "even", "1")  # a record of the other tab's bet: bea is sent her bets again, odd among them
        until(bea, "document.querySelector(\".spot[data-bet='even'] .stake\").textContent.includes('1')")
        release()  # and now the answer for odd
        until(bea, "document.querySelector('#said').textContent.startsWith('Bet placed')")
        assert stake(bea, "odd") == "5 MOP placed" and stake(bea, "even") == "1 MOP placed"
        assert text(bea, "#total-bet") == "6 MOP"
        bea.reload()
        until(bea, "document.querySelector(\".spot[data-bet='odd'] .stake\")?.textContent.includes('5')")
        assert stake(bea, "odd") == "5 MOP placed" and stake(bea2, "odd") == "5 MOP placed"
        setup.football.play_out()
        for p in (bea, bea2):
            p.wait_for_selector("#result:not([hidden]) .round-net")
        assert bea.locator("#result li").count() == 2
        assert not bea.errors and not bea2.errors, (bea.errors, bea2.errors)
    finally:
        c1.close()
        c2.close()


def test_no_bet_is_dropped_while_the_link_is_down(chromium, setup):
    context, cy = player(chromium, setup, "ava", "en-US")
    try:
        _, cut, mend, _ = routed(cy)
        cy.reload()
        cy.wait_for_selector(f".table-card[data-table='{WHEEL}']")
        open_table(cy, WHEEL)
        betting_on(setup, setup.wheel, (cy,), "3")
        until(cy, "/\\d/.test(document.querySelector('#latency').textContent)")
        cy.click(".chip[data-amount='5']")
        cy.click(".spot[data-bet='3']")
        cy.click(".spot[data-bet='5']")
        cut()
        until(cy, "document.querySelector('#link').classList.contains('down')")
        # Place bets says why it cannot; the chips wait on the felt; the latency meter keeps no stale figure
        assert cy.locator("#place").is_disabled() and cy.locator("#place-why").is_visible()
        assert "Connection lost" in text(cy, "#place-why")
        assert stake(cy, "3") == stake(cy, "5") == "5 MOP to place" and text(cy, "#latency") == "Latency —"
        mend()
        until(cy, "!document.querySelector('#link').classList.contains('down')")
        cy.wait_for_selector("#place:not([disabled])")
        assert stake(cy, "3") == "5 MOP to place"
        cy.click("#place")
        until(cy, "document.querySelector(\".spot[data-bet='3'] .stake\").textContent === '5 MOP placed'")
        until(cy, "document.querySelector('#said').textContent.startsWith('Bets placed: ')")  # every bet of it named
        assert sorted(text(cy, "#said").removeprefix("Bets placed: ").split(", ")) == ["3 5 MOP", "5 5 MOP"]
        assert not cy.errors, cy.errors
    finally:
        context.close()


#: every message the page's socket gets, noted as it arrives (by the socket's first listener, before the page's own)
NOTE_MESSAGES = """(() => {
  const Native = window.WebSocket;
  window.__got = [];
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (e) => {
        try { const m = JSON.parse(e.data); window.__got.push(m.type === "event" ? m.kind : m.type); } catch (err) { /* not JSON */ }
      });
    }
  };
})();"""

#: what the page shows at the moment its banner comes up (a mutation observer: in the task that put it up)
BANNER_WATCH = """(() => {
  const banner = document.querySelector("#banner");
  window.__shown = null;
  new MutationObserver(() => {
    if (window.__shown || banner.hidden) return;
    const turning = document.querySelector("#rotor").getAnimations().filter((a) => a.playState === "running");
    window.__shown = { by: window.__got[window.__got.length - 1], result: !document.querySelector("#result").hidden,
      net: document.querySelector("#result .round-net b")?.textContent || "",
      turning: turning.map((a) => [a.currentTime, a.effect.getComputedTiming().endTime]) };
  }).observe(banner, { attributes: true, childList: true, subtree: true });
})()"""


def test_the_result_shows_as_it_arrives_while_the_wheel_is_still_turning(chromium, setup):
    """The scene never holds a result back. Motion on: the table's spin result
    reaches the page and the wheel turns to rest on it; the round's result,
    held until the wheel is seen turning, arrives in the middle of the turn,
    and the banner and the player's own result show in the very task that
    delivered it (not at the turn's end, not on a timer), the wheel still
    turning then."""
    context, kim = player(chromium, setup, "kim", "en-US", motion="no-preference")
    try:
        assert not kim.evaluate("matchMedia('(prefers-reduced-motion: reduce)').matches")

        def stopped(doc) -> bool:  # the wheel's state leaving "spinning", or its spin's result
            return doc.get("type") == "event" and (doc.get("kind") == "spin_result" or (
                doc.get("kind") == "state" and (doc.get("data") or {}).get("previous") == "spinning"))

        release, _, _, held = routed(kim, hold=stopped, after=True)  # (that and every message after it, in order)
        kim.add_init_script(NOTE_MESSAGES)  # (after the route's: on the socket the page is given, not the route's own)
        kim.reload()
        kim.wait_for_selector(f".table-card[data-table='{WHEEL}']")
        open_table(kim, WHEEL)
        betting_on(setup, setup.wheel, (kim,), "1")
        bet(kim, "1", "5")
        setup.wheel.play_out()  # the table has spun, settled and paid; the page has it all from the spin's result on held
        pumped(kim, lambda: any(json.loads(msg)["type"] == "result" for _, msg in held))
        kinds = [json.loads(msg).get("kind") for _, msg in held]
        until(kim, "document.querySelector('.wheel-box').classList.contains('moving') && "
                   "document.querySelector('#rotor').getAnimations().length")  # turning since spin_started
        assert kim.locator("#banner").is_hidden() and kim.locator("#result").is_hidden()
        release(kinds.index("spin_result") + 1)  # up to the spin's result: the wheel turns to rest on its segment
        until(kim, "document.querySelector('#rotor').classList.contains('settle') && "
                   "document.querySelector('#rotor').getAnimations().some((a) => a.currentTime > 0)")
        # (its 2.2 s turn slowed twentyfold: on a loaded machine a look and a release can take a second)
        kim.evaluate("document.querySelector('#rotor').getAnimations().forEach((a) => { a.playbackRate = 0.05; })")
        kim.evaluate(BANNER_WATCH)
        release()  # the round's settlement, its outcome and the player's result, mid-turn
        shown = until(kim, "window.__shown")
        assert shown["by"] == "result", shown  # shown by the result's own message, at once
        assert shown["result"] and re.match(r"[+\u2212]", shown["net"]), shown  # the player's result with its net
        assert shown["turning"] and all(0 < now < end for now, end in shown["turning"]), shown  # the wheel mid-turn
        assert kim.locator("#rotor").evaluate("(r) => r.getAnimations().length") > 0  # (and still turning after)
        assert text(kim, "#banner-net") == shown["net"]
        kim.locator("#rotor").evaluate("(r) => r.getAnimations().forEach((a) => a.finish())")
        assert kim.get_attribute("#spin", "data-symbol")  # at rest, on the symbol the table reported
        assert not kim.errors, kim.errors
    finally:
        context.close()


def test_a_round_missed_is_marked_in_a_new_tab_and_there_is_a_favicon(chromium, setup):
    context = chromium.new_context(viewport=DESKTOP, locale="en-US", reduced_motion="reduce")  # (see player)
    context.set_default_timeout(WAIT_MS)
    bad: list[str] = []
    try:
        def tab():
            page = context.new_page()
            page.on("console", lambda msg: bad.append(msg.text) if msg.type == "error" else None)
            page.on("pageerror", lambda exc: bad.append(str(exc)))
            page.goto(f"{setup.platform.url}/?token={setup.token('lea')}")
            page.wait_for_selector(f".table-card[data-table='{WHEEL}']")
            return page

        first = tab()
        open_table(first, WHEEL)
        betting_on(setup, setup.wheel, (first,), "1")
        bet(first, "1", "1")
        setup.wheel.play_out()
        first.wait_for_selector("#result:not([hidden]) .round-net")  # a result this browser saw
        missed = betting_on(setup, setup.wheel, (first,), "1")
        bet(first, "1", "1")
        first.close()  # the tab is gone; the round is played without her
        setup.wheel.play_out()
        again = tab()  # the launch link again, in a new tab of the same browser
        again.wait_for_selector(f"#recall li.missed-round[data-round='{missed}']")
        assert again.locator("#recall li.missed-round").count() == 1
        assert "while you were away" in text(again, f"#recall li[data-round='{missed}']")
        assert text(again, "#missed").startswith("While you were away: 1 round was settled")
        again.click("#missed-ok")
        assert again.locator("#missed").is_hidden()
        icon = webclient.get(f"{setup.platform.url}/favicon.ico", timeout=5)
        assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg+xml")
        assert again.evaluate("document.querySelector('link[rel=icon]').href").endswith("/player/favicon.svg")
        assert not bad, bad  # (a favicon's 404 is a console error)
    finally:
        context.close()


def test_each_view_fits_both_sizes_in_each_language_and_is_labelled_reachable_and_legible(chromium, setup):
    """The lobby and each table (its paytable open) at 1280x800 and 390x844 in
    the three languages: nothing past the viewport's sides, every control
    labelled, every text at WCAG AA contrast, no console error; and at
    1280x800 every control reached by Tab (tests/access.py)."""
    context, eve = player(chromium, setup, "al", "en-US")
    console: list[str] = []
    eve.on("console", lambda msg: console.append(msg.text) if msg.type == "error" else None)
    rules: dict[str, dict[str, str]] = {}
    try:
        eve.click("#rules-open") if eve.locator("#rules-open").is_visible() else None
        for lang in ("en", "pt", "zh-Hant"):
            eve.select_option("#lang", lang)
            until(eve, f"document.documentElement.lang === {lang!r}")
            for size in (DESKTOP, PHONE):
                eve.set_viewport_size(size)
                where = (lang, size["width"])
                assert not access.outside(eve) and not access.unlabelled(eve) and not access.illegible(eve), where
                assert not clipped(eve), (where, clipped(eve))
                for table in (WHEEL, FOOTBALL, FORTUNE3):
                    open_table(eve, table)
                    if eve.locator("#rules").is_hidden():
                        eve.click("#rules-open")
                    eve.wait_for_selector("#paytable table")
                    where = (lang, size["width"], table)
                    # the paytable and rules in the language chosen, every word from its catalog (no id shown raw)
                    pays = text(eve, "#paytable")
                    assert not re.search(r"\b[a-z]+[._][a-z_.]+\b", pays), (where, pays)
                    rules.setdefault(table, {})[lang] = pays
                    assert not access.outside(eve), (where, access.outside(eve))
                    assert not clipped(eve), (where, clipped(eve))  # (no label cut by its box in any language)
                    assert not access.unlabelled(eve), (where, access.unlabelled(eve))
                    assert not access.illegible(eve), (where, access.illegible(eve))
                    if size is DESKTOP and lang == "en":
                        assert not access.unreachable(eve), (where, access.unreachable(eve))
                    # (every game x language x size: artifacts, not docs)
                    screenshot(eve, VIEWS / f"{table}-{lang}-{size['width']}.png")
                    eve.click("#to-lobby")
        assert all(len(set(by.values())) == 3 for by in rules.values()), rules  # (each language its own words)
        assert not eve.errors and not console, (eve.errors, console)
    finally:
        context.close()


def test_the_latency_meter_pings_often_while_the_player_plays_and_seldom_while_the_page_is_only_watched(
        chromium, setup):
    """The page's latency ping (a message the platform answers on the page's
    socket) goes every 5 s while its player plays (a click within the last
    minute) and every 30 s while the page is only watched: 5,000 watching
    pages pinging every 5 s were 1,000 answers a second. The page's clock is
    Playwright's, run forward; the pings are counted as the page sends them."""
    context = chromium.new_context(viewport=DESKTOP, locale="en-GB", device_scale_factor=1, reduced_motion="reduce")
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    try:
        page.add_init_script("""(() => {
          const send = WebSocket.prototype.send;
          window.pingsSent = 0;
          WebSocket.prototype.send = function (data) {
            if (typeof data === "string" && data.startsWith('{"type":"ping"')) window.pingsSent += 1;
            return send.call(this, data);
          };
        })();""")
        page.clock.install()
        page.goto(f"{setup.platform.url}/?token={setup.token('lea')}")
        page.wait_for_selector(f".table-card[data-table='{WHEEL}']")
        page.clock.run_for(2_000)
        until(page, "window.pingsSent === 1")  # (the first, once the page is up)
        page.clock.run_for(65_000)  # only watched: one ping each 30 s
        watched = page.evaluate("window.pingsSent") - 1
        page.mouse.click(2, 2)  # the player acts (a click anywhere on the page)
        page.clock.run_for(30_500)  # played on: a ping within a second of the act, then each 5 s
        played = page.evaluate("window.pingsSent") - 1 - watched
        page.clock.run_for(40_000)  # a minute after the act it is only watched again
        before = page.evaluate("window.pingsSent")
        page.clock.run_for(60_000)
        again = page.evaluate("window.pingsSent") - before
    finally:
        context.close()
    assert watched == 2
    assert played in (6, 7)
    assert again == 2
