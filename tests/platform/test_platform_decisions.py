"""Fortune 3's shared remote hand end to end: a real nats-server, the
reference wallet process, a real Fortune 3 mock table on the profile
``macau-2008-remote`` (``tablesim serve --studio``), and platform processes.

The bus: a remote player's decision is a request/reply on
``tablesim.<table>.decisions``, answered once the journal committed it,
idempotent by ref, refused in one line when it does not fit. The platform:
``POST /api/decisions``, the Play a second debit at the decision."""

from __future__ import annotations

import asyncio
import json
from decimal import Decimal

import nats
import pytest

import f3rig
import rig as rigs
from natsserver import NATS_SERVER

TABLE = f3rig.TABLE


@pytest.fixture(scope="module")
def f3(tmp_path_factory):
    if NATS_SERVER is None:
        pytest.skip("nats-server is not installed (Debian package nats-server)")
    folder = tmp_path_factory.mktemp("f3remote")
    with rigs.on_own_broker(folder, f3rig.F3Rig) as r:
        yield r


def ask(url: str, docs: list) -> list[dict]:
    """Each request in turn over the bus, its reply."""
    async def go():
        from tablesim.studio import natsio

        nc = await nats.connect(url, inbox_prefix=natsio.inbox_prefix(url))  # (the role's own inbox)
        try:
            out = []
            for doc in docs:
                body = doc if isinstance(doc, bytes) else json.dumps(doc).encode()
                msg = await nc.request(f"tablesim.{TABLE}.decisions", body, timeout=20)
                out.append(json.loads(msg.data))
            return out
        finally:
            await nc.close()
    return asyncio.run(go())


def test_decisions_over_the_bus(f3):
    rid = f3.open_round()
    f3.table_bet("ann", "ante", "10")
    f3.table_bet("bob", "ante", "20")
    f3.table_bet("cat", "pair_plus", "5")
    f3.table_bet("dan", "ante", "5")
    early = ask(f3.broker.role_url("platform"), [{"ref": "b-0", "round": rid, "player": "ann", "decision": "play"}])[0]
    assert early["ok"] is False and "decisions are taken once all hands are dealt" in early["reason"]
    state = f3.deal()
    assert state["round_id"] == rid
    d = {"round": rid, "decision": "play"}
    replies = ask(f3.broker.role_url("platform"), [
        {**d, "ref": "b-1", "player": "ann"},
        {**d, "ref": "b-1", "player": "ann"},  # sent again: the same answer, taken once
        {**d, "ref": "b-2", "player": "ann", "decision": "fold"},  # twice
        {**d, "ref": "b-3", "player": "cat"},  # Pair Plus only
        {**d, "ref": "b-4", "player": "eve"},  # no bet at all
        {**d, "ref": "b-5", "player": "bob", "round": "F3-other-0001"},
        {**d, "ref": "b-6", "player": "bob", "decision": "maybe"},
        {**d, "ref": "b-7", "player": "bob", "box": "1"},
        b"not json",
        {**d, "ref": "b-8", "player": "bob", "decision": "fold"},
    ])
    assert replies[0] == {"v": 1, "ok": True, "ref": "b-1", "round_id": rid, "decision": "play", "stake": "10"}
    assert replies[1] == {**replies[0], "duplicate": True}
    assert "ann already chose play" in replies[2]["reason"]
    assert "cat has no Ante on the remote hand" in replies[3]["reason"]
    assert "eve has no Ante on the remote hand" in replies[4]["reason"]
    assert f"round F3-other-0001 is not the table's round ({rid})" in replies[5]["reason"]
    assert replies[6]["error"] == "bad_input" and "decision: 'maybe' is not play or fold" in replies[6]["detail"]
    assert replies[7]["error"] == "bad_input" and "box: unknown field" in replies[7]["detail"]
    assert replies[8] == {"v": 1, "ok": False, "error": "bad_input", "detail": "the request is not JSON"}
    assert replies[9]["ok"] is True and replies[9]["stake"] is None
    for reply in replies[2:6]:
        assert reply["ok"] is False and reply["error"] == "refused" and "\n" not in reply["reason"]
    # dan never decides: the decision timer folds him and the round settles
    f3.wait_state(("complete",), "the decision timer never ran out", timeout=90)
    late = ask(f3.broker.role_url("platform"), [{**d, "ref": "b-9", "player": "dan"}])[0]
    assert late["ok"] is False
    result = f3.result(rid)
    remote = result["outcome"]["remote"]
    assert remote["decisions"] == {"ann": "play", "bob": "fold", "dan": "fold"} and remote["timed_out"] == ["dan"]
    assert result["players"]["dan"]["results"] == {"remote": {"ante": "-5"}}
    assert result["players"]["ann"]["stakes"]["remote"] == {"ante": "10", "play": "10"}
    again = ask(f3.broker.role_url("platform"), [{**d, "ref": "b-1", "player": "ann"}])[0]
    assert again["duplicate"] is True  # a retry after the round closed still finds it taken


def test_the_play_is_a_second_debit_at_the_decision(f3):
    p = f3.platform()
    s = {name: p.session(f3.token(name)) for name in ("ann", "amy", "ada", "abe", "kim")}
    rid = f3.open_round()
    stakes = {"ann": [("ante", "10"), ("pair_plus", "5")], "amy": [("ante", "20")], "ada": [("ante", "5")],
              "abe": [("ante", "995")]}
    for name, bets in stakes.items():
        for bet, amount in bets:
            r = p.bet(s[name], {"table": TABLE, "bet": bet, "amount": amount, "position": "remote"})
            assert r.status_code == 200, r.text
    early = p.decide(s["ann"], {"table": TABLE, "round": rid, "decision": "play"})
    assert early.status_code == 409 and early.json()["status"] == "not_deciding"
    f3.deal()
    p.wait_table(lambda t: t["state"] == "decisions" and t["round"] == rid)
    d = {"table": TABLE, "round": rid}
    played = p.decide(s["ann"], {**d, "decision": "play"})
    assert played.status_code == 200, played.text
    body = played.json()
    assert body["status"] == "played" and body["stake"] == "10" and body["balance"] == "975.00"  # 1000 - 10 - 5 - 10
    twice = p.decide(s["ann"], {**d, "decision": "fold"})
    assert twice.status_code == 409 and "ann already chose play" in twice.json()["message"]
    again = p.decide(s["ann"], {**d, "decision": "play"})  # a second Play: debited, refused by the table, cancelled
    assert again.status_code == 409 and again.json()["status"] == "refused_by_table"
    assert again.json()["balance"] == "975.00"
    folded = p.decide(s["amy"], {**d, "decision": "fold"})
    assert folded.status_code == 200 and folded.json()["status"] == "folded"
    poor = p.decide(s["abe"], {**d, "decision": "play"})  # 5 left: the wallet refuses the Play, abe folds
    assert poor.status_code == 409 and poor.json()["decision"] == "fold", poor.text
    assert "you fold" in poor.json()["message"] and poor.json()["status"] != "refused_by_table"
    nobet = p.decide(s["kim"], {**d, "decision": "play"})
    assert nobet.status_code == 409 and nobet.json()["status"] == "no_bet"
    bad = p.decide(s["kim"], {**d, "decision": "play", "box": "1"})
    assert bad.status_code == 400 and bad.json()["message"].startswith("box: not a field")
    f3.wait_state(("complete",), "the decision timer never ran out")  # ada folds on the timer
    result = f3.result(rid)
    assert result["outcome"]["remote"]["decisions"] == {"abe": "fold", "ada": "fold", "amy": "fold", "ann": "play"}
    assert result["outcome"]["remote"]["timed_out"] == ["ada"]
    # (the bus test's round settles too: wait for this round's last credit)
    f3.wait_for(lambda: {r[2] for r in f3.transactions(rid) if r[1] == "credit"} >= {"ann", "amy", "ada", "abe"},
                what="the round settled")
    rows = f3.transactions(rid)
    cancelled = {r[6] for r in rows if r[1] == "cancel"}
    ann_debits = sorted(r[0] for r in rows if r[2] == "ann" and r[1] == "debit" and r[0] not in cancelled)
    assert len(ann_debits) == 3, rows  # Ante, Pair Plus, and the Play at the decision (the second Play: cancelled)
    credits = [r for r in rows if r[1] == "credit" and r[2] == "ann"]
    assert len(credits) == 1 and sorted(json.loads(credits[0][5])) == ann_debits
    net = sum(Decimal(v) for v in result["players"]["ann"]["results"]["remote"].values())
    assert f3.wallet_balance("ann") == Decimal("1000.00") + net
    for name in ("amy", "ada", "abe"):  # folded: the Ante lost, nothing else taken
        assert f3.wallet_balance(name) == Decimal("1000.00") - Decimal(stakes[name][0][1])
    # (the bus test's round, whose bets were no platform's, is the only one the platform finds amiss)
    assert f"round {rid} of" not in p.log.read_text()
    _reconciled_clean(f3, rid)


def _reconciled_clean(f3, rid: str) -> None:
    """``tablesim wallet reconcile`` holds the round's Plays (debits at the
    decision), folds and second Play (cancelled) against the wallet: no finding."""
    import walletproc

    rc, out, err = walletproc.cli("wallet", "reconcile", "--nats", f3.broker.url, "--wallet", f3.wallet.url,
                                  "--secret", f3.secret, "--keys", f3.keys, "--json")
    assert rc in (0, 1) and not err, err
    report = json.loads(out)
    assert [f for f in report["findings"] if f["round"] == rid] == [], report["findings"]
