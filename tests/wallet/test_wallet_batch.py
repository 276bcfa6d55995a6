"""The ``batch`` call: many writes in one request, each answered as if sent
alone; in the ledger (hypothesis), and served, through a lossy network and
across a wallet killed mid-batch."""

from __future__ import annotations

import asyncio
import json
import signal
from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

import walletproc
from test_wallet_ledger import Run, _step, op
from tablesim.wallet.batching import Batcher
from tablesim.wallet.client import WalletClient, WalletRefused, cancel_request, credit_request, debit_request
from tablesim.wallet.protocol import Refused, Status
from tablesim.wallet.signing import load_secret

D = Decimal
BAD_ITEMS = [{"call": "debit", "request": {"transaction_id": "bad", "amount": 1}},
             {"call": "balance", "request": {"request_id": "r", "player": "p1", "currency": "MOP"}},
             {"call": "debit"}, "debit"]


@given(st.lists(op, max_size=40), st.lists(st.integers(1, 6), min_size=1, max_size=20),
       st.lists(st.sampled_from(range(len(BAD_ITEMS))), max_size=3))
def test_a_batch_answers_each_write_as_alone_bad_items_in_their_place(ops, sizes, bad):
    """The same writes (repeats too: a write repeated in one batch gets its
    kept answer) sent in batches of any sizes, with bad items among them,
    get byte for byte the answers they got one by one; a bad item is
    answered ``invalid_request`` in its place and keeps nothing."""
    alone = Run()
    for step in ops:
        _step(alone, *step)
    batched = Run()
    calls = [{"call": call, "request": json.loads(raw)} for call, raw in alone.sent]
    for i, which in enumerate(bad):
        calls.insert(min(i * 3, len(calls)), BAD_ITEMS[which])
    got, at = [], 0
    for size in sizes * (len(calls) // len(sizes) + 1):
        if at >= len(calls):
            break
        status, answer = batched.wallet.call("batch", json.dumps({"request_id": f"b{at}",
                                                                   "calls": calls[at:at + size]}).encode())
        assert status is Status.OK
        got += json.loads(answer)["answers"]
        at += size
    expected = iter(json.loads(alone.wallet.call(c, raw)[1]) for c, raw in alone.sent)  # (the kept answers)
    for call, answer in zip(calls, got):
        if call in BAD_ITEMS:
            assert answer["status"] == "invalid_request" and answer["message"].startswith(("batch: calls.", "debit: "))
        else:
            assert answer == next(expected)
    assert batched.wallet.ledger.db.execute("SELECT COUNT(*) FROM tx WHERE id='bad'").fetchone() == (0,)


def test_a_request_that_is_no_batch_is_refused_whole():
    run = Run()
    debit = {"call": "debit", "request": {"transaction_id": "d1", "player": "p1", "currency": "MOP",
                                          "amount": "1", "table": "T", "round": "R"}}
    for body in ({"request_id": "b", "calls": []}, {"request_id": "b", "calls": [debit] * 501},
                 {"request_id": "b", "calls": debit}, {"request_id": "b", "calls": [debit], "more": 1},
                 {"calls": [debit]}):
        try:
            run.wallet.call("batch", json.dumps(body).encode())
        except Refused as refused:
            assert refused.status is Status.INVALID_REQUEST
        else:
            raise AssertionError(f"{body} was taken")
    assert run.wallet.ledger.db.execute("SELECT COUNT(*) FROM tx").fetchone() == (0,)


def client(url: str, wallet, **kw) -> WalletClient:
    return WalletClient(url, load_secret(wallet.secret), max_wait=0.2, **kw)


def test_a_served_batch_with_a_repeated_and_a_bad_item(shared_wallet):
    wallet = shared_wallet
    bet = dict(player="amy", currency="MOP", table="TB", round="R1")

    async def go():
        async with client(wallet.url, wallet) as w:
            first = await w.batch([debit_request("b1", amount=D("10"), **bet), debit_request("b2", amount=D(5), **bet),
                                   debit_request("b1", amount=D("10"), **bet),
                                   debit_request("b3", amount=D("1.001"), **bet),
                                   debit_request("b1", amount=D("11"), **bet)])
            again = await w.batch([debit_request("b1", amount=D("10"), **bet)])  # a repeat, in another batch
            alone = await w.debit("b3", amount=D("1"), **bet)  # the bad item kept nothing: its id is free
            paid = await w.batch([credit_request("bc", amount=D("32"), debits=["b1", "b2", "b3"], **bet),
                                  cancel_request("bx", player="amy", table="TB", round="R1", debit="b2")])
            return first, again, alone, paid, w.attempts_made

    (d1, d2, d1_again, bad, reused), again, alone, (credit, cancel), attempts = asyncio.run(go())
    assert (d1.status, d1.balance, d2.balance) == (Status.OK, D("990.00"), D("985.00"))
    assert d1_again == d1 and again == [d1]
    assert isinstance(bad, WalletRefused) and bad.status is Status.INVALID_REQUEST and "decimals" in str(bad)
    assert isinstance(reused, WalletRefused) and reused.status is Status.ID_REUSED
    assert (alone.status, alone.balance) == (Status.OK, D("984.00"))
    assert (credit.status, credit.balance) == (Status.OK, D("1016.00"))
    assert cancel.status is Status.ALREADY_SETTLED
    assert attempts == 4  # one request per batch


def test_a_lost_batch_answer_is_retried_and_each_write_done_once(shared_wallet):
    """The wallet commits the batch and the network loses its answer: the
    retry gets every write's kept answer, nothing debited twice."""
    wallet = shared_wallet
    lossy = walletproc.proxy(wallet.url, "--drop", "2", "--only", "batch")
    bet = dict(player="ann", currency="MOP", table="TB", round="R2")
    try:
        async def go():
            async with client(lossy.url, wallet) as w:
                batcher = Batcher(w, max_batch=10, in_flight=1)
                outs = await asyncio.gather(*(batcher.write(debit_request(f"l{i}", amount=D(2), **bet))
                                              for i in range(25)))
                return outs, batcher.batches, w.attempts_made

        outs, batches, attempts = asyncio.run(go())
    finally:
        lossy.stop()
    assert all(o.status is Status.OK for o in outs) and [o.transaction_id for o in outs] == [f"l{i}" for i in
                                                                                               range(25)]
    assert batches < 25 and attempts > batches  # gathered, and some answers lost and asked again
    assert sorted(o.balance for o in outs)[0] == D("950.00")

    async def balance():
        async with client(wallet.url, wallet) as w:
            return (await w.balance("ann", "MOP", request_id="q")).balance

    assert asyncio.run(balance()) == D("950.00")  # 25 debits of 2, each once


def test_a_wallet_killed_mid_batch_does_all_of_it_or_none(files):
    """SIGKILL while a batch of debits is in flight; the wallet comes back;
    the same batch again: every debit done exactly once."""
    bet = dict(player="alice", currency="MOP", table="TK", round="R1")
    writes = [debit_request(f"k{i}", amount=D(1), **bet) for i in range(300)]
    proc = walletproc.reference(files["db"], files["secret"], files["players"])
    proc.secret = files["secret"]

    async def killed():
        async with client(proc.url, proc, attempts=1) as w:
            sending = asyncio.ensure_future(w.batch(writes))
            await asyncio.sleep(0.05)
            proc.proc.send_signal(signal.SIGKILL)
            return await sending

    first = asyncio.run(killed())
    proc.proc.wait(10)
    back = walletproc.reference(files["db"], files["secret"], files["players"])
    back.secret = files["secret"]
    try:
        async def again():
            async with client(back.url, back) as w:
                return await w.batch(writes), (await w.balance("alice", "MOP", request_id="q")).balance

        outs, balance = asyncio.run(again())
    finally:
        assert back.stop()[0] == 0
    assert len({type(o).__name__ for o in first}) == 1  # (answered whole, or lost whole)
    assert all(o.status is Status.OK for o in outs)
    assert balance == D("700.00")  # 300 debits of 1, each once


def test_a_wallet_without_batch_gets_each_write_alone_and_passes_the_kit(files):
    """The call is optional: the client falls back to single calls, the same
    ids and answers; the kit's batch case passes with a note."""
    from test_wallet_kit import check

    plain = walletproc.broken(files["db"], files["secret"], files["players"], "--no-batch")
    plain.secret = files["secret"]
    bet = dict(player="amy", currency="MOP", table="TN", round="R1")
    try:
        async def go():
            async with client(plain.url, plain) as w:
                return await w.batch([debit_request("n1", amount=D(4), **bet), debit_request("n1", amount=D(4), **bet),
                                      debit_request("n2", amount=D("0.001"), **bet)])

        first, again, bad = asyncio.run(go())
        kit = check(plain.url, files["secret"], walletproc.token(files["db"], "kit"))
    finally:
        plain.stop()
    assert (first.status, first.balance) == (Status.OK, D("996.00")) and again == first
    assert isinstance(bad, WalletRefused) and bad.status is Status.INVALID_REQUEST
    assert kit.returncode == 0, kit.stdout
    assert any(line.startswith("pass  batch as alone") and "no batch call" in line for line in kit.stdout.splitlines())
