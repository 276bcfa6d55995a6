"""A won, a lost and a void round, settled to the wallet to the unit; a
bet the table refuses is cancelled; bad input is refused before any debit."""

from __future__ import annotations

from decimal import Decimal

from rig import OPENING, PAYS, TABLE


def returned(stakes: dict[str, str], symbol: str) -> Decimal:
    return sum((Decimal(a) * (1 + PAYS[s]) for s, a in stakes.items() if s == symbol), Decimal(0))


def test_a_won_and_a_lost_round_settle_to_the_unit(rig):
    platform = rig.platform()
    ann, amy = platform.session(rig.token("ann")), platform.session(rig.token("amy"))
    assert (ann["player"], ann["currency"], Decimal(ann["balance"])) == ("ann", "MOP", OPENING)
    round_id = rig.open_round()
    ann_bets = {s: "2" for s in PAYS}  # one of them wins whatever the wheel says
    amy_bets = {"joker": "7", "logo": "3"}
    for session, bets in ((ann, ann_bets), (amy, amy_bets)):
        for spot, amount in bets.items():
            r = platform.bet(session, {"table": TABLE, "bet": spot, "amount": amount})
            assert r.status_code == 200 and r.json()["status"] == "placed", r.text
    assert platform.balance(ann) == OPENING - 14
    symbol = rig.spin()
    assert symbol not in amy_bets  # (the seeded wheel: amy loses this round)
    want = {"ann": OPENING - 14 + returned(ann_bets, symbol), "amy": OPENING - 10}
    # (amy's balance is hers before her credit of 0 too: wait for both credits, not only for the balances)
    rig.wait_for(lambda: all(rig.wallet_balance(p) == b for p, b in want.items())
                 and sum(r[1] == "credit" for r in rig.transactions(round_id)) >= 2, what=f"balances {want}")
    rows = rig.transactions(round_id)
    credits = [r for r in rows if r[1] == "credit"]
    assert sorted((r[2], r[3], r[4]) for r in credits) == sorted(
        [("ann", f"{returned(ann_bets, symbol):.2f}", "ok"), ("amy", "0.00", "ok")])  # one each, 0 for the loss
    assert len([r for r in rows if r[1] == "debit"]) == 9


def test_a_void_round_cancels_every_debit(rig):
    platform = rig.platform(db="void.db")
    ada = platform.session(rig.token("ada"))
    round_id = rig.open_round()
    for spot, amount in (("1", "20"), ("5", "30")):
        assert platform.bet(ada, {"table": TABLE, "bet": spot, "amount": amount}).status_code == 200
    assert platform.balance(ada) == OPENING - 50
    rig.act("void", {"why": "wheel jammed", "reason": "device"}, role="supervisor")
    rig.wait_for(lambda: rig.wallet_balance("ada") == OPENING, what="ada's stakes returned")
    rows = [r for r in rig.transactions(round_id) if r[2] == "ada"]
    assert sorted(r[1] for r in rows) == ["cancel", "cancel", "debit", "debit"]
    assert not [r for r in rows if r[1] == "credit"]


def test_a_refusal_by_the_table_is_cancelled_and_bad_input_debits_nothing(rig):
    platform = rig.platform(db="refusals.db")
    abe, hk = platform.session(rig.token("abe")), platform.session(rig.token("hk"))
    rig.no_round_open()
    closed = platform.bet(abe, {"table": TABLE, "bet": "1", "amount": "10"})
    assert closed.status_code == 409 and "not taking bets" in closed.json()["message"]
    round_id = rig.open_round()
    refused = platform.bet(abe, {"table": TABLE, "bet": "7", "amount": "10"})  # no such spot: the table says so
    assert refused.status_code == 409, refused.text
    body = refused.json()
    assert body["status"] == "refused_by_table" and "unknown spot '7'" in body["message"]
    # the table's own reason, by its message id: the player's page words it in the player's language
    assert body["reason"]["id"] == "wheel.refusal.unknown_spot" and body["reason"]["args"]["spot"] == "'7'"
    assert Decimal(body["balance"]) == OPENING
    poor = platform.bet(abe, {"table": TABLE, "bet": "1", "amount": "1500"})
    assert poor.status_code == 409 and poor.json()["status"] == "insufficient_funds", poor.text
    for bad, why in (({"table": TABLE, "bet": "1", "amount": "10.50"}, "unit 1"),
                     ({"table": TABLE, "bet": "1", "amount": "-5"}, "not a plain decimal"),
                     ({"table": TABLE, "bet": "1", "amount": 10.0}, "not a decimal string"),
                     ({"table": TABLE, "bet": "1", "amount": "9999999"}, "largest stake"),
                     ({"table": "NOPE", "bet": "1", "amount": "10"}, "not a table"),
                     ({"table": TABLE, "bet": "1", "amount": "10", "player": "amy"}, "not a field")):
        r = platform.bet(abe, bad)
        assert r.status_code in (400, 404) and why in r.json()["message"], (bad, r.text)
        assert "\n" not in r.json()["message"]
    other = platform.bet(hk, {"table": TABLE, "bet": "1", "amount": "10"})
    assert other.status_code == 400 and "plays in MOP, your account is in HKD" in other.json()["message"]
    real = abe["session"]  # (its last two characters changed, whatever they were: "00" stays "00" otherwise)
    forged = platform.bet({"session": real[:-2] + ("00" if real[-2:] != "00" else "11")},
                          {"table": TABLE, "bet": "1", "amount": "10"})
    assert forged.status_code == 401
    rows = [r for r in rig.transactions(round_id) if r[2] == "abe"]
    assert sorted((r[1], r[3], r[4]) for r in rows) == [
        ("cancel", "10.00", "ok"), ("debit", "10.00", "ok"), ("debit", "1500.00", "insufficient_funds")]
    assert rig.wallet_balance("abe") == OPENING
    assert rig.wallet_balance("hk") == Decimal("500")


def test_a_debit_whose_answer_is_lost_is_cancelled(rig):
    """Every answer to a debit is lost after the wallet committed it (a
    proxy drops it): the platform gives up, cancels with the same debit id,
    and once the cancel is answered the player is told nothing was taken."""
    import walletproc

    # (the platform's debits go in batches; its cancel, a batch too, is answered)
    lossy = walletproc.proxy(rig.wallet.url, "--drop", "1", "--only", "batch", "--match", '"call":"debit"')
    try:
        platform = rig.platform(db="lossy.db", wallet=lossy.url)
        kim = platform.session(rig.token("kim"))
        round_id = rig.open_round()
        r = platform.bet(kim, {"table": TABLE, "bet": "1", "amount": "25"})
        assert r.status_code == 503 and r.json()["status"] == "wallet_unavailable", r.text
        assert "not taken" in r.json()["message"] and "retried" not in r.json()["message"], r.text
        rig.wait_for(lambda: rig.wallet_balance("kim") == OPENING, what="kim's lost debit cancelled")
        rows = [r for r in rig.transactions(round_id) if r[2] == "kim"]
        assert sorted((r[1], r[3], r[4]) for r in rows) == [("cancel", "25.00", "ok"), ("debit", "25.00", "ok")]
    finally:
        lossy.stop()


def test_a_bus_bet_paid_for_another_round_is_refused_by_the_table(rig):
    """The platform names the round it debited a bet for; the table takes
    the bet only in that round (a stake paid for one round never plays in
    the next)."""
    import asyncio
    import json

    import nats

    round_id = rig.open_round()

    async def ask(body: dict) -> dict:
        nc = await nats.connect(rig.broker.url)
        try:
            return json.loads((await nc.request(f"tablesim.{TABLE}.bets", json.dumps(body).encode(), timeout=20)).data)
        finally:
            await nc.close()

    other = asyncio.run(ask({"v": 1, "bets": [
        {"ref": "r-other", "position": "zoe", "bet": "1", "amount": "5", "round": "WHEEL-MOCK-999999"},
        {"ref": "r-this", "position": "zoe", "bet": "3", "amount": "5", "round": round_id}]}))
    late, now = other["results"]
    assert late["error"] == "refused" and late["reason"] == (
        f"the bet is for round WHEEL-MOCK-999999, the table's round is {round_id}")
    assert late["say"] == {"id": "refusal.other_round", "args": {"round": "WHEEL-MOCK-999999", "now": round_id}}
    assert now["ok"] and now["round_id"] == round_id
