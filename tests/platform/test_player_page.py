"""The player's page in Debian's Chromium, on real processes (a broker, the
reference wallet, a wheel and a football table on mock devices, one
platform): two players in different languages at the same table play a
full round of each game and see the same outcome and their own results; a
reload mid-round keeps the bet and shows its result; the lobby and both
table views at a phone's 390x844 and at 1280x800 (screenshots: artifacts/,
and docs/ with TABLESIM_PLAYER_SHOTS=docs)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

import reaper
import rig as rigs
from browser import WAIT_MS, needs_chromium
from natsserver import NATS_SERVER
from playerrig import FOOTBALL, FORTUNE3, WHEEL, PlayerRig

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / ("docs/player" if os.environ.get("TABLESIM_PLAYER_SHOTS") == "docs" else "artifacts/player")
PHONE, DESKTOP = {"width": 390, "height": 844}, {"width": 1280, "height": 800}

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


def player(chromium, setup, who: str, locale: str, viewport=DESKTOP):
    """A browser page of ``who``, opened with a launch token, in a browser of ``locale``."""
    context = chromium.new_context(viewport=viewport, locale=locale, device_scale_factor=1)
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page._host.run(lambda: setattr(page._obj, "errors", errors))
    page.goto(f"{setup.platform.url}/?token={setup.token(who)}")
    page.wait_for_selector(f".table-card[data-table='{WHEEL}']")
    return context, page


def text(page, selector: str) -> str:
    return page.locator(selector).first.inner_text()


def bet(page, spot: str, chip: str) -> None:
    page.click(f".chip[data-amount='{chip}']")
    page.click(f".spot[data-bet='{spot}']")
    page.click("#place")
    page.wait_for_function(f"document.querySelector(\".spot[data-bet='{spot}'] .stake\").textContent.match(/\\d/)")


def open_table(page, table: str) -> None:
    page.click(f".table-card[data-table='{table}'] button")
    page.wait_for_selector(".spot")


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def test_two_players_in_two_languages_play_a_wheel_round(chromium, setup):
    (c1, ann), (c2, amy) = player(chromium, setup, "ann", "zh-TW"), player(chromium, setup, "amy", "pt-PT")
    try:
        assert ann.evaluate("document.documentElement.lang") == "zh-Hant"
        assert amy.evaluate("document.documentElement.lang") == "pt"
        assert "餘額" in text(ann, "header") and "Saldo" in text(amy, "header")
        assert re.search(r"1[.,]000", text(ann, "#balance"))  # thousands grouped, in MOP
        shot(amy, "lobby-desktop")
        for p in (ann, amy):
            open_table(p, WHEEL)
        round_id = setup.wheel.open_round()
        setup.seen_betting(setup.wheel, round_id)
        for p in (ann, amy):
            p.wait_for_selector(".spot[data-bet='1']:not([disabled])")
        assert "秒後停止下注" in text(ann, "#timer") and "fecham" in text(amy, "#timer")
        for s in ("1", "3", "5", "10", "20", "joker", "logo"):
            bet(ann, s, "5")  # one of them wins whatever the wheel says
        bet(amy, "joker", "1")
        shot(amy, "wheel-desktop")
        setup.wheel.play_out()
        for p in (ann, amy):
            p.wait_for_selector("#result:not([hidden]) .round-net")
        symbols = {p.get_attribute("#spin", "data-symbol") for p in (ann, amy)}
        assert len(symbols) == 1 and symbols != {""}
        symbol = symbols.pop()
        assert "本局" in text(ann, "#result") and "Ronda" in text(amy, "#result")
        assert text(ann, "#result").count("MOP") >= 7  # each of her bets, with its result
        amy_net = text(amy, "#result .round-net b")
        assert amy_net.startswith("45" if symbol == "joker" else "-1"), amy_net  # her own, not ann's
        assert amy.locator("#result li").count() == 1 and ann.locator("#result li").count() == 7
        ann.wait_for_selector(f"#recall li[data-round='{round_id}']")
        shot(amy, "wheel-result-desktop")
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
        round_id = setup.football.open_round()
        setup.seen_betting(setup.football, round_id)
        for p in (kim, lea):
            p.wait_for_selector(".spot[data-bet='odd']:not([disabled])")
        bet(kim, "odd", "25")
        bet(kim, "even", "5")
        bet(lea, "middle", "1")
        shot(kim, "football-desktop")
        setup.football.play_out()
        for p in (kim, lea):
            p.wait_for_selector("#result:not([hidden]) .round-net")
            p.wait_for_selector("#common-total")
        assert text(kim, "#common-cards") == text(lea, "#common-cards") != ""
        assert text(kim, "#common-total").split()[-1] == text(lea, "#common-total").split()[-1]
        assert "Odd" in text(kim, "#result") and "Even" in text(kim, "#result") and "Odd" not in text(lea, "#result")
        shot(kim, "football-result-desktop")
        assert not kim.errors and not lea.errors, (kim.errors, lea.errors)
    finally:
        c1.close()
        c2.close()


def test_a_reload_mid_round_keeps_the_bet_and_shows_its_result(chromium, setup):
    context, ada = player(chromium, setup, "ada", "en-GB")
    try:
        open_table(ada, WHEEL)
        round_id = setup.wheel.open_round()
        setup.seen_betting(setup.wheel, round_id)
        ada.wait_for_selector(".spot[data-bet='3']:not([disabled])")
        bet(ada, "3", "25")
        ada.reload()  # the socket is gone; the page comes back with the same session
        ada.wait_for_function("document.querySelector(\".spot[data-bet='3'] .stake\")?.textContent.includes('25')")
        setup.wheel.play_out()
        ada.wait_for_selector("#result:not([hidden]) .round-net")
        assert "3: MOP" not in text(ada, "#result") and "25" in text(ada, "#result li[data-bet='3']")
        assert ada.get_attribute("#notice", "data-i18n") == "player.disconnect_notice"
        assert "settled" in text(ada, "#notice")
    finally:
        context.close()


def test_the_lobby_and_the_table_views_fit_a_phone(chromium, setup):
    context, kim = player(chromium, setup, "kim", "en-US", viewport=PHONE)
    try:
        width = lambda: kim.evaluate("document.documentElement.scrollWidth")  # noqa: E731
        assert width() <= PHONE["width"]
        shot(kim, "lobby-phone")
        for table, name in ((WHEEL, "wheel-phone"), (FOOTBALL, "football-phone"), (FORTUNE3, "fortune3-phone")):
            open_table(kim, table)
            assert width() <= PHONE["width"], table
            assert kim.locator("#place").is_visible() and kim.locator("#clock").is_visible()
            shot(kim, name)
            kim.click("#to-lobby")
        kim.select_option("#lang", "pt")
        kim.wait_for_function("document.documentElement.lang === 'pt'")
        assert "Saldo" in text(kim, "header")
    finally:
        context.close()


def test_the_fortune3_view_shows_the_remote_hand_ante_and_pair_plus_and_says_no_decision_is_a_fold(chromium, setup):
    context, abe = player(chromium, setup, "abe", "en-US")
    try:
        open_table(abe, FORTUNE3)
        assert [abe.get_attribute(f".spot >> nth={i}", "data-bet") for i in range(2)] == ["ante", "pair_plus"]
        assert "Pair Plus" in text(abe, ".spot[data-bet='pair_plus']") and "Remote hand" in text(abe, "#scene")
        assert "no decision is a fold" in text(abe, "#fold-notice")
        assert not abe.locator("#decide").is_visible()  # Play / Fold once the hands are dealt
        shot(abe, "fortune3-desktop")
    finally:
        context.close()
