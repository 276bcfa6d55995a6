"""No player on the floor: a served Fortune 3 table with the shared remote
hand publishes to a real broker while remote players with known ids bet
and decide; every open route of ``tablesim studio serve`` (the page, its
static files, ``/api/floor``, ``/api/tables/<id>``, ``/api/report``,
``/metrics``) and its WebSocket hold none of their ids, no player's own
net and no player's decision, while the round's totals are right."""

from __future__ import annotations

import json
import sys
from decimal import Decimal
from pathlib import Path

import pytest
from websockets.sync.client import connect

import webclient
from tablesim.journal.attach import attach_and_recover
from tablesim.server.auth import TokenStore
from tablesim.games.rig import mock_rig
from tablesim.server.process import ServerThread
from tablesim.server.runner import TableRunner

from natsserver import free_port
from test_studio_floor import caught_up, studio_serve, wait_for
from test_studio_publish import register_all

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
from server_helpers import PACE, Served, ok  # noqa: E402

pytestmark = pytest.mark.slow  # the floor's own process (started first: see tests/conftest.py)

ROOT = Path(__file__).resolve().parents[2]
ANN, BOB, CAT = "zq-ann-4711", "zq-bob-4712", "zq-cat-4713"
TABLE = "F3-MOCK"


@pytest.fixture
def remote_table(nats_server, tmp_path):
    """A served Fortune 3 table on a profile with the shared remote hand, publishing to the studio."""
    text = (ROOT / "config" / "rules" / "fortune3-macau-2008-remote.toml").read_text()
    profile = tmp_path / "test-remote.toml"
    profile.write_text(text.replace('name = "macau-2008-remote"', 'name = "test-remote"'))
    rig = mock_rig("fortune3", seed=11, profile=str(profile))
    table = rig.table
    path = tmp_path / f"{TABLE}.journal.sqlite"
    report = attach_and_recover(table, str(path))
    rig.after_recovery()
    tokens = TokenStore.generate()
    runner = TableRunner(table, rig=rig, pace=PACE, recovery=report, studio=nats_server.url)
    server = ServerThread(runner, tokens).start()
    served = Served(server, runner, tokens, path, webclient.client(base_url=server.url, timeout=10))
    yield served
    served.client.close()
    server.stop()
    table.journal.close()


def no_player_in(text: str, where: str) -> None:
    for player in (ANN, BOB, CAT):
        assert player not in text, f"{where} names {player}"


def test_the_floor_shows_totals_never_a_player(remote_table, nats_server):
    s = remote_table
    ok(s.post("/api/actions/open_round"))
    for body in ({"position": "remote", "bet": "ante", "amount": "10", "player": ANN},
                 {"position": "remote", "bet": "pair_plus", "amount": "5", "player": ANN},
                 {"position": "remote", "bet": "ante", "amount": "20", "player": BOB},
                 {"position": "2", "bet": "ante", "amount": "15", "player": CAT}):
        ok(s.post("/api/bets", body))
    ok(s.post("/api/actions/close_betting"))
    ok(s.post("/api/actions/deal"))
    s.wait_state("decisions", timeout=60)
    ok(s.post("/api/actions/decide", {"box": "remote", "decision": "play", "player": ANN}))
    ok(s.post("/api/actions/decide", {"box": "remote", "decision": "fold", "player": BOB}))
    ok(s.post("/api/actions/decide", {"box": "2", "decision": "play", "player": CAT}))
    s.wait_state("complete", timeout=60)
    full = s.book()["result"]
    assert set(full["players"]) == {ANN, BOB, CAT}  # (the journal names them: the floor does not)
    wait_for(lambda: s.runner.studio.pending() == 0 and s.runner.studio.published == s.table.journal.seq)
    register_all()

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = studio_serve(nats_server.url, port)
    try:
        floor = wait_for(caught_up(base, s.table.journal.seq), proc=proc)
        routes = {}
        for route in ("/", "/static/floor.js", "/api/floor", f"/api/tables/{TABLE}", "/api/report",
                      "/api/report?by=shift", "/metrics"):
            res = webclient.get(base + route, timeout=30)
            assert res.status_code == 200, (route, res.status_code)
            routes[route] = res.text
        with connect(f"ws://127.0.0.1:{port}/ws") as ws:
            routes["/ws"] = ws.recv(timeout=30)
    finally:
        proc.terminate()
        proc.wait(30)
    for route, text in routes.items():
        no_player_in(text, route)

    (table,) = [t for t in floor["tables"] if t["table_id"] == TABLE]
    (last,) = table["last_results"]
    assert last["status"] == "settled" and "net" not in last and "players" not in last
    assert Decimal(last["players_net"]) == sum(Decimal(p["net"]) for p in full["players"].values())
    assert last["outcome"]["remote"]["decisions"] == {"play": 1, "fold": 1}
    assert last["outcome"]["remote"]["timed_out"] == 0
    assert json.loads(routes["/ws"])["type"] == "floor"
    # the floor's figures are the round's totals: every stake at risk, whoever placed it
    wagered = sum(Decimal(a) for stakes in full["stakes"].values() for a in stakes.values())
    assert Decimal(table["figures"]["wagered"]) == wagered
