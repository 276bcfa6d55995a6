"""The dealer console's words whole in every language and at both sizes it
may be opened at (its 1280x800 touchscreen, a 390x844 phone): no label cut
by its box or spilling out of it (Portuguese "SUPERIOR" on a football spot
was), nothing past the screen's side; and the events panel worded again in
the language switched to."""

from __future__ import annotations

import pytest

from browser import clipped, needs_chromium, until
from server_helpers import ok

pytestmark = needs_chromium

SIZES = ({"width": 1280, "height": 800}, {"width": 390, "height": 844})
#: the events panel's lines end in an ellipsis when too long (the whole line is their title)
LOG = "#log li"


@pytest.mark.parametrize("game", ["football", "wheel", "fortune3"])
def test_no_console_label_is_cut_in_any_language_at_either_size(serve, page, game):
    s = serve(game, pace=0.005, seed=5, journal=False)
    page.goto(f"{s.url}/#token={s.dealer}")
    until(page, "document.body.dataset.live === '1' && document.body.dataset.signedIn === '1'")
    ok(s.post("/api/actions/open_round"))
    s.wait_state("betting_open")
    until(page, "document.body.dataset.state === 'betting_open' && document.querySelector('#log li')")
    for size in SIZES:
        page.set_viewport_size(size)
        for lang in ("pt", "zh-Hant", "en"):
            page.select_option("#lang", lang)
            until(page, f"document.documentElement.lang === {lang!r}")
            where = (game, size["width"], lang)
            assert clipped(page, skip=LOG) == [], where
            assert page.evaluate("document.documentElement.scrollWidth") <= size["width"], where
    # the panel's lines in the language switched to (the table's state as the catalog words it)
    page.select_option("#lang", "pt")
    until(page, "document.documentElement.lang === 'pt'")
    until(page, "[...document.querySelectorAll('#log li')].some((li) => li.textContent.includes('apostas abertas'))")
    assert page.errors.real() == []
