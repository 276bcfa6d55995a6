"""A real platform's start and its players' first step: it connects to a
cluster's list of nodes (a dead one first, the option repeated) and serves
the tables it reads from the stream; a session is opened with the
reference wallet's launch token, which opens one session: a second use and
an expired token are refused with the status and the message id the
player's page words."""

from __future__ import annotations

from natsserver import free_port

import webclient
from clirun import tablesim
from rig import TABLE
from tablesim.wallet.ledger import Ledger


def _open(platform, token: str):
    return webclient.post(f"{platform.url}/api/session", json={"token": token}, timeout=20)


def test_a_launch_token_opens_one_session_and_expires(rig):
    platform = rig.platform(db="launch.db")
    token = rig.token("lea")
    first = _open(platform, token)
    assert first.status_code == 200 and first.json()["player"] == "lea", first.text
    again = _open(platform, token)
    assert again.status_code == 401, again.text
    assert again.json()["status"] == "token_used"
    assert again.json()["reason"] == {"id": "player.refusal.token_used", "args": {}}
    platform.balance(first.json())  # the first session still works (answered 200)
    ledger = Ledger(rig.wallet_db)
    try:
        old = ledger.issue_token("lea", minutes=-1)
    finally:
        ledger.close()
    late = _open(platform, old)
    assert late.status_code == 401 and late.json()["status"] == "invalid_token", late.text


def test_a_cluster_list_with_a_dead_node_first_and_the_option_repeated_connect(rig):
    dead, live = f"nats://127.0.0.1:{free_port()}", rig.broker.role("platform")
    platforms = [rig.platform(db=f"cluster-{n}.db", nats=given)
                 for n, given in enumerate(([f"{dead},{live}"], [live, dead]))]
    round_id = rig.open_round()  # (seen taking bets by each platform, from the stream)
    for platform in platforms:
        tables = webclient.get(f"{platform.url}/api/tables", timeout=5).json()["tables"]
        assert [(t["table"], t["round"], t["betting"]) for t in tables] == [(TABLE, round_id, True)], tables
        health = platform.health()
        assert health["bus"]["connected"] and health["bus"]["url"].count("nats://") == 2, health["bus"]
        session = platform.session(rig.token("amy"))
        placed = platform.bet(session, {"table": TABLE, "bet": "1", "amount": "5"})
        assert placed.status_code == 200 and placed.json()["status"] == "placed", placed.text
    admin = rig.broker.url
    report = tablesim("studio", "report", "--json", "--nats", dead, "--nats", admin, "--keys", rig.keys)
    assert report.returncode == 0, report
    refused = tablesim("studio", "report", "--nats", admin, "--nats", "nats//no-port")
    assert refused.returncode == 2 and "'nats//no-port' is not a NATS URL" in refused.stderr, refused
