"""Killed at the worst moments, the platform loses and doubles nothing: a
debit whose bet never reached the table is cancelled by the next start; a
round credited but not acknowledged is not paid twice; two processes share
settlement without a double credit."""

from __future__ import annotations

import json
from decimal import Decimal

from rig import PAYS, TABLE


def test_a_debit_left_by_a_kill_before_the_bus_is_cancelled_at_the_next_start(rig):
    dying = rig.platform(fault="exit_after_debit", db="orphan.db")
    al = dying.session(rig.token("al"))
    opening = rig.wallet_balance("al")  # (the module's tests share the wallet, in any order)
    round_id = rig.open_round()
    try:
        dying.bet(al, {"table": TABLE, "bet": "5", "amount": "40"}, timeout=20)
    except Exception:
        pass  # (the process died under the request)
    assert dying.proc.wait(20) == 70
    assert rig.wallet_balance("al") == opening - 40  # debited; the table never heard of the bet
    rig.spin()  # the round closes without it
    again = rig.platform(db="orphan.db")  # the same intent log: the next start of the same process
    rig.wait_for(lambda: rig.wallet_balance("al") == opening, what="al's orphan debit cancelled")
    rows = rig.transactions(round_id)
    assert sorted((r[1], r[2], r[3], r[4]) for r in rows) == [("cancel", "al", "40.00", "ok"),
                                                              ("debit", "al", "40.00", "ok")]
    # (the wallet has the cancel a moment before the process counts it)
    rig.wait_for(lambda: again.health()["orphans_cancelled"] == 1, what="the orphan's cancel counted")


def test_a_kill_after_the_credit_before_the_ack_does_not_pay_twice(rig):
    dying = rig.platform(fault="exit_before_ack", db="ack.db")
    ava = dying.session(rig.token("ava"))
    before = rig.wallet_balance("ava")  # (the module's tests share the wallet, in any order)
    round_id = rig.open_round()
    bets = {s: "3" for s in PAYS}
    for spot, amount in bets.items():
        assert dying.bet(ava, {"table": TABLE, "bet": spot, "amount": amount}).status_code == 200
    symbol = rig.spin()
    assert dying.proc.wait(60) == 70  # credited, then killed before its ack
    want = before - 21 + Decimal(3) * (1 + PAYS[symbol])
    assert rig.wallet_balance("ava") == want
    again = rig.platform(db="ack.db")  # the result comes again (unacknowledged): the same credit, answered as before
    rig.wait_for(lambda: again.health()["settlement"]["rounds_settled"] >= 1, what="the result settled again")
    credits = [r for r in rig.transactions(round_id) if r[1] == "credit"]
    assert len(credits) == 1 and rig.wallet_balance("ava") == want


def test_two_processes_share_settlement_without_a_double_credit(rig):
    first, second = rig.platform(db="one.db"), rig.platform(db="two.db")
    players = ("kim", "lea", "ann", "amy")
    opening = {name: rig.wallet_balance(name) for name in players}
    rounds = []
    for _ in range(2):
        rounds.append(rig.open_round())
        for i, name in enumerate(players):
            via = (first, second)[i % 2]
            session = via.session(rig.token(name))
            assert via.bet(session, {"table": TABLE, "bet": "1", "amount": "10"}).status_code == 200
            assert via.bet(session, {"table": TABLE, "bet": "3", "amount": "5"}).status_code == 200
        rig.spin()
    credits = lambda r: [t for t in rig.transactions(r) if t[1] == "credit"]  # noqa: E731
    rig.wait_for(lambda: all(len(credits(r)) == len(players) for r in rounds), what="every round settled")
    for round_id in rounds:
        assert sorted(t[2] for t in credits(round_id)) == sorted(players)  # one credit a player a round
        assert all(len(json.loads(t[5])) == 2 for t in credits(round_id))  # naming both debits of the round
    # (a round's credits are in the wallet a moment before the process that asked for them counts it settled)
    shared = lambda: [p.health()["settlement"]["rounds_settled"] for p in (first, second)]  # noqa: E731
    rig.wait_for(lambda: sum(shared()) >= len(rounds), timeout=20, what="both rounds counted settled")
    for name in players:
        expected = opening[name]
        for round_id in rounds:
            symbol = rig.result_symbol(round_id)
            expected += -15 + (20 if symbol == "1" else 0) + (20 if symbol == "3" else 0)
        assert rig.wallet_balance(name) == expected


def test_a_result_settlement_never_handed_out_is_paid_by_the_backstop(rig):
    """Settlement's consumer acknowledges every result it hands out without
    settling it, as a consumer that skipped them would (a stream numbered
    anew under the broker's bookkeeping): the backstop finds the round's
    credit missing in the wallet and pays it from the picture, once."""
    skipping = rig.platform(fault="results_never_handed", db="backstop.db", backstop_after=2)
    ava = skipping.session(rig.token("ava"))
    before = rig.wallet_balance("ava")
    round_id = rig.open_round()
    for spot in PAYS:
        assert skipping.bet(ava, {"table": TABLE, "bet": spot, "amount": "4"}).status_code == 200
    symbol = rig.spin()
    want = before - 4 * len(PAYS) + Decimal(4) * (1 + PAYS[symbol])
    rig.wait_for(lambda: rig.wallet_balance("ava") == want, what="ava paid by the backstop")
    rig.wait_for(lambda: skipping.health()["backstop"]["settled"] == 1, what="the backstop counted it")
    health = skipping.health()
    assert health["settlement"]["rounds_settled"] == 1 and health["settlement"]["not_signed"] >= 1
    credits = [r for r in rig.transactions(round_id) if r[1] == "credit"]
    assert len(credits) == 1 and credits[0][2] == "ava"


def test_a_forged_result_pays_nothing(rig):
    """Last in this module: a forged record on the table's subject makes the
    table's own link diverge (as it should), so no round follows it here."""
    import asyncio

    import nats
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from tablesim.studio import signing, wire

    platform = rig.platform(db="forged.db")
    lea = platform.session(rig.token("lea"))
    before = rig.wallet_balance("lea")
    round_id = rig.open_round()
    assert platform.bet(lea, {"table": TABLE, "bet": "joker", "amount": "10"}).status_code == 200
    data = json.dumps({"game": "wheel", "status": "settled", "results": {"lea": {"joker": "9000"}},
                       "stakes": {"lea": {"joker": "10"}}, "net": {"lea": "9000"}, "outcome": {"symbol": "joker"}})
    record = {"seq": 10**6, "table_id": TABLE, "round_id": round_id, "kind": "event", "name": "result",
              "data": data, "prev_hash": "0" * 64, "hash": "1" * 64, "actor": "table", "ts": "2026-12-01T00:00:00Z"}
    body = wire.encode_row(record)

    async def forge() -> None:
        nc = await nats.connect(rig.broker.url)
        try:
            headers = {wire.MSG_ID: wire.msg_id(TABLE, 10**6),
                       wire.SIG_HEADER: signing.sign(Ed25519PrivateKey.generate(), body)}  # not the table's key
            await nc.jetstream().publish(wire.record_subject(TABLE, "event"), body, headers=headers)
        finally:
            await nc.close()

    asyncio.run(forge())
    # (left out twice, each in its own time: by settlement, and by the picture's reader)
    rig.wait_for(lambda: platform.health()["settlement"]["not_signed"] >= 1, what="the forged result left out")
    rig.wait_for(lambda: platform.health()["stream"]["rejected"] >= 1, what="the forged record rejected")
    assert not [r for r in rig.transactions(round_id) if r[1] == "credit"]
    assert rig.wallet_balance("lea") == before - 10
