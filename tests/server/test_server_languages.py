"""The pages in three languages: the served catalogs, a refusal with its
message id, and the console in a real browser (Debian's Chromium) switched
to Traditional Chinese and Portuguese, and opened in a browser whose
language is Portuguese."""

from __future__ import annotations

import httpx

from browser import needs_chromium, screenshot
from tablesim.i18n import LANGUAGES
from test_server_browser import ARTIFACTS, state_is, wait


def test_the_served_catalogs_and_a_refusal_in_words(serve):
    s = serve("fortune3", pace=0.02)
    zh = s.get("/i18n/zh-Hant.json").json()
    assert zh["lang"] == "zh-Hant" and [l["code"] for l in zh["languages"]] == list(LANGUAGES)
    assert zh["messages"]["console.sign_in"] == "登入" and zh["messages"]["fortune3.bet.ante"] == "底注"
    assert "football.upper" not in zh["messages"]  # only the table's own game
    assert s.get("/i18n/auto.json", headers={"Accept-Language": "pt-PT,pt;q=0.9"}).json()["lang"] == "pt"
    assert s.get("/i18n/pt.json").json()["numbers"]["decimal"] == ","
    bad = s.get("/i18n/xx.json")
    assert bad.status_code == 404 and "languages: zh-Hant, en, pt" in bad.json()["detail"]
    assert s.get("/i18n/words.js").headers["content-type"].startswith("text/javascript")
    assert s.post("/api/actions/open_round").status_code == 200
    refused = httpx.delete(f"{s.url}/api/bets/4/ante", headers=s.auth(), timeout=30)
    body = refused.json()
    assert refused.status_code == 409 and body["reason"] == "no ante bet on 4"
    assert body["say"] == {"id": "refusal.no_bet", "args": {"bet": "ante", "position": "4"}}
    low = s.post("/api/bets", {"position": "1", "bet": "ante", "amount": "0.5"}).json()
    assert low["say"]["id"] == "refusal.under_minimum" and low["say"]["args"]["amount"] == "0.5"


def text(page, selector: str) -> str:
    return page.evaluate(f"document.querySelector({selector!r}).textContent")


def console_in(page, s, lang: str, sign_word: str) -> None:
    """The served table's console, signed in as its dealer, switched to ``lang``."""
    page.goto(f"{s.url}/#token={s.dealer}")
    wait(page, "document.body.dataset.live === '1' && document.body.dataset.state === 'idle'")
    switch(page, lang, sign_word)


def switch(page, lang: str, sign_word: str) -> None:
    page.select_option("#lang", lang)
    wait(page, f"document.documentElement.lang === {lang!r} && document.querySelector('#act-open_round').textContent === {sign_word!r}")


@needs_chromium
def test_the_console_switches_to_chinese_and_portuguese_and_keeps_the_choice(serve, page):
    s = serve("fortune3", pace=0.02, seed=11)
    b = page
    b.goto(f"{s.url}/#token={s.dealer}")
    wait(b, "document.body.dataset.live === '1' && document.body.dataset.state === 'idle'")
    wait(b, "document.querySelector('#operator').textContent === 'dealer: mock-dealer'")
    assert b.evaluate("document.documentElement.lang") == "en"  # the browser's language (en-US)
    assert [o for o in b.evaluate("[...document.querySelectorAll('#lang option')].map(o => o.value)")] == list(LANGUAGES)

    switch(b, "zh-Hant", "新一局")
    assert text(b, "#operator") == "荷官：mock-dealer" and text(b, "#game-title") == "幸運三張牌撲克"
    assert text(b, "#state-badge") == "閒置" and text(b, "#instruction-text") == "請按「新一局」"
    assert text(b, "#mode-bet") == "下注" and text(b, "#modal-cancel") == "取消"
    b.click("#act-open_round")
    wait(b, state_is("betting_open"))
    assert text(b, "#state-badge") == "接受投注"
    assert text(b, '[data-box="2"] .head span') == "投注區 2"
    assert text(b, '[data-pos="2"][data-bet="ante"] span') == "底注"
    b.click("#mode-withdraw")
    b.click('[data-pos="4"][data-bet="ante"]')  # refused: the table's reason in Chinese
    wait(b, "!document.querySelector('#toast').hidden")
    assert text(b, "#toast") == "撤回：4 沒有 ante 投注"
    b.click("#toast")
    b.click("#mode-bet")
    b.click('[data-chip="25"]')
    b.click('[data-pos="2"][data-bet="ante"]')
    wait(b, "document.querySelector('[data-pos=\"2\"][data-bet=\"ante\"] .amt').textContent === '25'")
    wait(b, "document.querySelector('#log').textContent.includes('已下注：1')")  # (the stream's coalesced bets)
    screenshot(b, ARTIFACTS / "console-zh-Hant.png")

    switch(b, "pt", "Nova ronda")
    assert text(b, "#state-badge") == "apostas abertas" and text(b, "#selection") == "Toque numa casa para apostar 25."
    assert text(b, '[data-box="2"] .head span') == "Caixa 2" and text(b, "#operator") == "croupier: mock-dealer"
    b.click("#act-close_betting")
    wait(b, state_is("bets_closed"))
    b.click("#act-deal")
    wait(b, state_is("decisions"))
    # the instruction the game makes, in the game's words
    wait(b, "document.querySelector('#instruction-text').textContent === 'os jogadores decidem: jogar ou desistir (caixa 2)'")
    assert text(b, '[data-box="2"][data-decision="play"]') == "JOGAR"
    screenshot(b, ARTIFACTS / "console-pt.png")
    # a reload keeps the language chosen
    b.reload()
    wait(b, "document.body.dataset.live === '1' && document.documentElement.lang === 'pt'")
    wait(b, "document.querySelector('#act-deal').textContent === 'Distribuir'")
    assert b.errors.real() == []


@needs_chromium
def test_the_browsers_language_picks_the_pages_language(serve, chromium):
    s = serve("football", pace=0.02)
    context = chromium.new_context(locale="pt-PT", viewport={"width": 1280, "height": 800})
    context.set_default_timeout(60_000)
    try:
        b = context.new_page()
        b.goto(s.url + "/")
        wait(b, "document.body.dataset.live === '1' && document.documentElement.lang === 'pt'")
        assert b.evaluate("navigator.languages[0]") == "pt-PT"
        wait(b, "document.querySelector('#operator').textContent === 'Iniciar sessão'")
        assert text(b, "#state-badge") == "em espera" and text(b, "#act-open_round") == "Nova ronda"
        assert text(b, '[data-pos="common"][data-bet="middle"] span') == "Meio"
        b.goto(s.url + "/board")
        wait(b, "document.documentElement.lang === 'pt' && document.querySelector('#headline') !== null")
        assert text(b, "#headline") == "À espera da primeira ronda" and text(b, "#state-badge") == "em espera"
    finally:
        context.close()


def test_a_bet_refused_while_betting_is_closed_says_so_by_id(serve):
    s = serve("wheel", pace=0.02)
    body = s.post("/api/bets", {"position": "P1", "bet": "1", "amount": "10"}).json()
    assert body["reason"] == "betting is closed (the round is idle)"
    assert body["say"] == {"id": "refusal.betting_closed", "args": {"state": "idle"}}


@needs_chromium
def test_an_incident_and_the_dealer_on_duty_read_in_the_consoles_language(serve, page):
    s = serve("fortune3", pace=0.02, seed=11)
    b = page
    console_in(b, s, "zh-Hant", "新一局")
    assert text(b, "#duty") == "登記上班"  # (signed in, no one on duty: the way to start the shift)
    assert s.post("/api/actions/open_round").status_code == 200
    assert s.post("/api/bets", {"position": "2", "bet": "ante", "amount": "10"}).status_code == 200
    assert s.post("/api/actions/close_betting").status_code == 200
    assert s.post("/api/actions/deal").status_code == 200
    s.wait_state("decisions", timeout=60)
    assert s.post("/api/actions/misdeal").status_code == 200  # the cards are out: a supervisor's call
    incident = s.state()["incident"]
    assert incident["text"].startswith("the dealer calls a misdeal (Art. 11(1))")
    assert incident["say"] == {"id": "fortune3.incident.misdeal", "args": {}}
    wait(b, "document.querySelector('#incident-text').textContent.includes('荷官宣佈發牌失誤（第十一條第一款）')")
    # and in the events panel, by the incident event's own message id
    wait(b, "[...document.querySelectorAll('#log li')].some(li => li.textContent.includes('荷官宣佈發牌失誤'))")
    switch(b, "pt", "Nova ronda")
    wait(b, "document.querySelector('#incident-text').textContent.includes('o croupier declara má distribuição')")
    refused = s.post("/api/actions/deal")  # held by the incident: the reason by its id
    assert refused.status_code == 409 and refused.json()["say"]["id"] == "refusal.incident_first"
    assert b.errors.real() == []


def test_a_bad_body_and_a_storage_refusal_carry_their_message_ids(serve):
    s = serve("wheel", pace=0.02)
    bad = s.post("/api/bets", {"position": "P1", "bet": "", "amount": 1.5, "x": 1})
    body = bad.json()
    assert bad.status_code == 422 and "amount: a string like '12.50'" in body["detail"]  # the English stays
    assert {(p["where"], p["id"]) for p in body["say"]} == {
        ("bet", "validation.string_too_short"), ("amount", "validation.amount_form"), ("x", "validation.extra_forbidden")}
    assert next(p for p in body["say"] if p["where"] == "bet")["args"]["min_length"] == "1"
    not_json = s.client.post("/api/bets", content=b"{", headers={**s.auth(), "content-type": "application/json"})
    assert not_json.status_code == 422 and not_json.json()["say"] == [{"where": "", "id": "validation.json_invalid", "args": {}}]


@needs_chromium
def test_the_dealers_instructions_a_void_and_a_bad_body_read_in_the_consoles_language(serve, page):
    s = serve("wheel", pace=0.02, seed=11)
    b = page
    console_in(b, s, "zh-Hant", "新一局")
    assert s.post("/api/actions/open_round").status_code == 200
    assert s.post("/api/actions/close_betting").status_code == 200
    wait(b, "document.querySelector('#instruction-text').textContent === '轉動輪盤，至少轉 3 整圈'")
    assert s.state()["instruction"] == "spin the wheel, at least 3 full turns"  # the English the journal keeps
    wait(b, "[...document.querySelectorAll('#log li')].some(li => li.textContent.includes('停止下注'))")
    switch(b, "pt", "Nova ronda")
    wait(b, "document.querySelector('#instruction-text').textContent === 'rode a roda, pelo menos 3 voltas completas'")
    assert s.post("/api/void", {"why": "wheel jammed"}, role="supervisor").status_code == 200
    wait(b, "[...document.querySelectorAll('#log li')].some(li => li.textContent.includes('decisão do supervisor'))")
    # a 422 as the console words it (the page's own request helper, as its buttons use it)
    said = b.evaluate("""async (token) => { const c = await import('/static/common.js');
        const r = await c.request('POST', '/api/bets', { position: 'P1', bet: '', amount: '1' }, token);
        return c.errorText(r); }""", s.dealer)
    assert said == "bet: pelo menos 1 carácter(es)", said
    assert b.errors.real() == []
