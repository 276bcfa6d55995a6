"""A game the platform never heard of: the toy coin game (``tests/toygame``,
registered only by its entry point) offered in a platform's tables file,
named by its id's prefix alone. The platform process (a real one, on a
real broker, with the reference wallet) lists it in the lobby with the
layout, limits and rules its game gives, and the player's page opens it
in Chromium: its spots drawn, no page error. The table is offered, not
started: what the page draws of it comes from the game, not from a round."""

from __future__ import annotations

import json
import sys

import pytest

import reaper
import rig as rigs
from browser import WAIT_MS, needs_chromium
from gamehost import pythonpath
from natsserver import NATS_SERVER
import webclient
from wsclient import Player

COIN = "COIN-1"
TABLES = f"""\
[tables.{COIN}]
currency = "MOP"
unit = "1"
position = "box"
"""


class CoinRig:
    """The wallet and one platform whose tables file offers the coin table."""

    def __init__(self, folder, broker) -> None:
        self.tables = rigs.start_wallet(self, folder, broker, TABLES)
        self.env["PYTHONPATH"] = pythonpath("coin") + self.env["PYTHONPATH"]
        keys = folder / "keys.json"
        keys.write_text(json.dumps({"v": 1, "tables": {}}))
        argv = [sys.executable, "-m", "tablesim.cli.main", "platform", "serve", "--nats", broker.role("platform"),
                "--wallet", self.wallet.url, "--secret", str(self.secret), "--tables", str(self.tables),
                "--db", str(folder / "platform.db"), "--keys", str(keys), "--port", "0"]
        self.platform = rigs.Platform(argv, self.env, folder / "platform.log")
        reaper._STARTED.remove(self.platform.proc)  # (the module's, not reaped after each test)

    def close(self) -> None:
        self.platform.kill()
        self.wallet.stop()


@pytest.fixture(scope="module")
def coin(tmp_path_factory):
    if NATS_SERVER is None:
        pytest.skip("nats-server is not installed (Debian package nats-server)")
    folder = tmp_path_factory.mktemp("coin")
    with rigs.on_own_broker(folder, CoinRig, tables=[COIN]) as r:
        yield r


def test_the_platform_offers_a_game_registered_by_its_entry_point(coin):
    assert [t["table"] for t in webclient.get(f"{coin.platform.url}/api/tables", timeout=10).json()["tables"]] \
        == [COIN]
    ann = Player(coin.platform.url, coin.platform.session(rigs.walletproc.token(coin.wallet_db, "ann"))["session"])
    try:
        [table] = ann.wait(lambda m: m["type"] == "welcome")["tables"]
    finally:
        ann.close()
    assert (table["table"], table["game"], table["position"]) == (COIN, "coin", "box")
    assert set(table["layout"]["bets"]) == {"heads", "tails"} and table["layout"]["positions"] == ["1", "2", "3"]
    assert table["layout"]["rules"] == {"profile": "toy"}  # (the coin's view says nothing more of its pays)
    assert table["box"] is None  # (its remote players name the box they bet on)


@needs_chromium
def test_its_remote_page_opens(coin, chromium):
    context = chromium.new_context(viewport={"width": 1280, "height": 800}, locale="en-US")
    context.set_default_timeout(WAIT_MS)
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(f"{coin.platform.url}/?token={rigs.walletproc.token(coin.wallet_db, 'ann')}")
        page.click(f".table-card[data-table='{COIN}'] button")
        page.wait_for_selector(".spot[data-bet='heads']")
        assert page.locator(".spot[data-bet='tails']").count() == 1
        assert errors == []
    finally:
        context.close()
