"""Games the platform never heard of: the suite's own games (the coin toss
in ``tests/toygame``, the card game in ``tests/cardgame``), each registered
only by its entry point, offered in a platform's tables file and named by
their ids' prefixes alone. The platform process (a real one, on a real
broker, with the reference wallet) gives each table the layout and rules
its game gives, and the player's page opens each in Chromium: its spots
drawn, no page error. The tables are offered, not started: what the page
draws of them comes from their games, not from a round."""

from __future__ import annotations

import json
import sys

import pytest

import reaper
import rig as rigs
from browser import WAIT_MS, needs_chromium
from gamehost import FOLDERS, pythonpath
from natsserver import NATS_SERVER
import webclient
from wsclient import Player

#: each test game's table (its spec's id prefix)
TABLES = {"coin": "COIN-1", "baccarette": "BCT-1"}
OFFERED = "".join(f'[tables.{t}]\ncurrency = "MOP"\nunit = "1"\nposition = "box"\n\n' for t in TABLES.values())


class NewGamesRig:
    """The wallet and one platform whose tables file offers the test games' tables."""

    def __init__(self, folder, broker) -> None:
        self.tables = rigs.start_wallet(self, folder, broker, OFFERED)
        self.env["PYTHONPATH"] = pythonpath(*FOLDERS) + self.env["PYTHONPATH"]
        keys = folder / "keys.json"
        keys.write_text(json.dumps({"v": 1, "tables": {}}))
        argv = [sys.executable, "-m", "tablesim.cli.main", "platform", "serve", "--nats", broker.role("platform"),
                "--wallet", self.wallet.url, "--secret", str(self.secret), "--tables", str(self.tables),
                "--db", str(folder / "platform.db"), "--keys", str(keys), "--port", "0"]
        self.platform = rigs.Platform(argv, self.env, folder / "platform.log")
        reaper._STARTED.remove(self.platform.proc)  # (the module's, not reaped after each test)
        ann = Player(self.platform.url, self.platform.session(self.token("ann"))["session"])
        try:
            self.offered = {t["table"]: t for t in ann.wait(lambda m: m["type"] == "welcome")["tables"]}
        finally:
            ann.close()

    def token(self, player: str) -> str:
        return rigs.walletproc.token(self.wallet_db, player)

    def close(self) -> None:
        self.platform.kill()
        self.wallet.stop()


@pytest.fixture(scope="module")
def games(tmp_path_factory):
    if NATS_SERVER is None:
        pytest.skip("nats-server is not installed (Debian package nats-server)")
    folder = tmp_path_factory.mktemp("newgames")
    with rigs.on_own_broker(folder, NewGamesRig, tables=list(TABLES.values())) as r:
        yield r


def test_the_platform_offers_games_registered_by_their_entry_points(games):
    listed = webclient.get(f"{games.platform.url}/api/tables", timeout=10).json()["tables"]
    assert sorted(t["table"] for t in listed) == sorted(TABLES.values())
    for game, table_id in TABLES.items():
        table = games.offered[table_id]
        assert (table["game"], table["position"], table["box"]) == (game, "box", None)  # (a player names the box)
        assert table["layout"]["bets"] and table["layout"]["positions"], table
        assert set(table["limits"]) == set(table["layout"]["bets"])
    coin = games.offered["COIN-1"]
    assert coin["layout"]["bets"] == ["heads", "tails"] and coin["layout"]["positions"] == ["1", "2", "3"]
    assert coin["layout"]["rules"] == {"profile": "toy"}  # (the coin's view says nothing more of its pays)


@needs_chromium
@pytest.mark.parametrize("game", TABLES)
def test_its_remote_page_opens(games, chromium, game):
    table_id = TABLES[game]
    context = chromium.new_context(viewport={"width": 1280, "height": 800}, locale="en-US", reduced_motion="reduce")
    context.set_default_timeout(WAIT_MS)
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(f"{games.platform.url}/?token={games.token('ann')}")
        page.click(f".table-card[data-table='{table_id}'] button")
        for bet in games.offered[table_id]["layout"]["bets"]:
            page.wait_for_selector(f".spot[data-bet='{bet}']")
        assert errors == []
    finally:
        context.close()
