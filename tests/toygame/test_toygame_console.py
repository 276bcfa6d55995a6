"""The kit's default console in a real browser: the coin game has no console
of its own, yet a dealer opens a round, bets by tapping the felt, closes
betting, tosses and sees the round settled, with no page error. What the
default console sends is what the console's JavaScript reads
(``layout.bet_labels``, ``view.boxes``): a missing one was a broken felt."""

from __future__ import annotations

import pytest

from browser import needs_chromium, until
from gamehost import served_game

pytestmark = needs_chromium


def test_a_dealer_plays_a_coin_round_on_the_default_console(page, monkeypatch):
    with served_game(monkeypatch, "coin") as s:
        b = page
        b.goto(f"{s.url}/#token={s.dealer}")
        until(b, "document.body.dataset.live === '1' && document.body.dataset.state === 'idle'")
        assert b.evaluate("document.querySelectorAll('.box').length") == 3  # the felt: boxes 1-3
        b.click("#act-open_round")
        until(b, "document.body.dataset.state === 'betting_open'")
        b.click('[data-chip="25"]')
        b.click('[data-pos="1"][data-bet="heads"]')
        b.click('[data-chip="10"]')
        b.click('[data-pos="2"][data-bet="tails"]')
        until(b, "document.querySelector('[data-pos=\"1\"][data-bet=\"heads\"] .amt').textContent === '25'"
                 " && document.querySelector('[data-pos=\"2\"][data-bet=\"tails\"] .amt').textContent === '10'")
        b.click("#act-close_betting")
        until(b, "document.body.dataset.state === 'bets_closed'")
        b.click("#act-toss_heads")  # the kit's button: the coin landed heads
        until(b, "document.body.dataset.state === 'complete' && !!document.querySelector('#result')")
        assert s.state()["result"]["net"] == {"1": "23.75", "2": "-10"}
        assert b.evaluate("document.querySelector('[data-net=\"1\"]').textContent") == "+23.75"
        assert b.evaluate("document.querySelector('[data-net=\"2\"]').textContent") == "-10"
        assert b.errors.real() == []


def test_the_default_console_sends_what_the_page_reads(monkeypatch):
    """Without a browser: the layout and the view carry every key ``renderBoxes`` reads."""
    with served_game(monkeypatch, "coin", serve=False) as rig:
        from tablesim.games import registry

        console = registry.spec("coin").part("console")(rig.table, rig)
        layout, view = console.layout(), console.view()
        assert layout["bet_labels"] == {"heads": "heads", "tails": "tails"}
        assert set(view["boxes"]) == set(layout["positions"]) == {"1", "2", "3"}
        assert [n for n in console.actions()] == ["open_round", "close_betting", "toss_heads", "toss_tails"]


if __name__ == "__main__":  # pragma: no cover
    pytest.main([__file__])
