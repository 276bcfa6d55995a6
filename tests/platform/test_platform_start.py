"""Opening a session at a real platform with the reference wallet's launch
tokens: a token opens one session, a second use and an expired token are
refused with the status and the message id the player's page words."""

from __future__ import annotations

import webclient
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
