"""The client the platform uses, against the reference wallet as its own
process, directly and through a lossy network (its own process too)."""

from __future__ import annotations

import asyncio
from decimal import Decimal

import pytest

import walletproc
from tablesim.wallet.client import Outcome, WalletClient, WalletRefused, WalletUnavailable
from tablesim.wallet.protocol import Status
from tablesim.wallet.signing import load_secret

D = Decimal


def run(coro):
    return asyncio.run(coro)


def client(url: str, wallet, **kw) -> WalletClient:
    return WalletClient(url, load_secret(wallet.secret), max_wait=0.2, **kw)


async def _balance(wallet, player="alice", currency="MOP") -> Decimal:
    async with client(wallet.url, wallet) as w:
        return (await w.balance(player, currency, request_id="b")).balance


def test_a_won_lost_and_void_round(wallet):  # its own: it counts alice's balance from the opening 1000.00
    async def go():
        async with client(wallet.url, wallet) as w:
            me = await w.authenticate(walletproc.token(wallet.db, "alice"), request_id="a1")
            assert (me.ok, me.player, me.currency, me.unit, me.balance) == (True, "alice", "MOP", D("0.01"),
                                                                            D("1000.00"))
            bet = dict(player="alice", currency="MOP", table="T1")
            assert (await w.debit("w1", amount=D("10"), round="R1", **bet)).balance == D("990.00")
            assert (await w.debit("w2", amount=D("5.50"), round="R1", **bet)).balance == D("984.50")
            won = await w.credit("w3", amount=D("31"), round="R1", debits=["w1", "w2"], **bet)
            assert won == Outcome(Status.OK, "w3", D("1015.50"), None, None)
            await w.debit("l1", amount=D("15.50"), round="R2", **bet)
            assert (await w.credit("l2", amount=D(0), round="R2", debits=["l1"], **bet)).balance == D("1000.00")
            await w.debit("v1", amount=D("100"), round="R3", **bet)
            void = await w.cancel("v2", player="alice", table="T1", round="R3", debit="v1")
            assert (void.ok, void.cancelled, void.balance) == (True, D("100.00"), D("1000.00"))
            rows = await w.transactions(request_id="q", table="T1", round="R1")
            assert [(r.transaction_id, r.kind, r.amount) for r in rows] == [
                ("w1", "debit", D("10.00")), ("w2", "debit", D("5.50")), ("w3", "credit", D("31.00"))]
            assert rows[2].debits == ("w1", "w2")
            assert w.attempts_made == 9  # one attempt a call on a clean line

    run(go())


def test_a_lost_answer_is_retried_and_gets_the_first_answer(shared_wallet):
    wallet = shared_wallet
    """The wallet commits the debit; the network loses its answer; the retry
    (same transaction id) gets the first answer, not a second debit."""
    lossy = walletproc.proxy(wallet.url, "--drop", "2", "--only", "debit")
    try:
        async def go():
            async with client(lossy.url, wallet) as w:
                first = await w.debit("x1", player="ann", currency="MOP", amount=D("25"), table="T1", round="R9")
                assert w.attempts_made == 2
                second = await w.debit("x2", player="ann", currency="MOP", amount=D("25"), table="T1",
                                       round="R9")
            # a caller that gives up on a lost answer cancels: the debit was committed, the cancel returns it
            async with client(lossy.url, wallet, attempts=1) as w:
                with pytest.raises(WalletUnavailable, match="closed before the whole answer"):
                    await w.debit("x3", player="ann", currency="MOP", amount=D("25"), table="T1", round="R9")
                back = await w.cancel("x4", player="ann", table="T1", round="R9", debit="x3")
                assert (back.status, back.cancelled, back.balance) == (Status.OK, D("25.00"), D("950.00"))
            return first, second

        first, second = run(go())
    finally:
        lossy.stop()
    assert (first.status, first.balance) == (Status.OK, D("975.00"))
    assert (second.status, second.balance) == (Status.OK, D("950.00"))
    assert run(_balance(wallet, "ann")) == D("950.00")  # debited once each


def test_a_5xx_before_the_wallet_is_retried(shared_wallet):
    wallet = shared_wallet
    lossy = walletproc.proxy(wallet.url, "--fail", "2")
    try:
        async def go():
            async with client(lossy.url, wallet) as w:
                out = await w.credit("c1", player="alice", currency="MOP", amount=D(0), table="T1", round="R5XX",
                                     debits=["none"])
                return out, w.attempts_made

        out, attempts = run(go())
    finally:
        lossy.stop()
    assert (out.status, attempts) == (Status.UNKNOWN_TRANSACTION, 2)


def test_a_final_answer_is_never_retried(shared_wallet):
    wallet = shared_wallet
    async def go():
        async with client(wallet.url, wallet) as w:
            poor = await w.debit("f1", player="alice", currency="MOP", amount=D("5000"), table="T1", round="RF")
            assert (poor.status, poor.balance, w.attempts_made) == (Status.INSUFFICIENT_FUNDS, D("1000.00"), 1)
            limit = await w.debit("f2", player="bob", currency="HKD", amount=D("101"), table="T1", round="RF")
            assert (limit.status, limit.message) == (Status.LIMIT_REACHED, "Bob's limit: 100 a bet, 300 a day.")
            with pytest.raises(WalletRefused, match="id_reused"):
                await w.debit("f1", player="alice", currency="MOP", amount=D("1"), table="T1", round="RF")
            with pytest.raises(WalletRefused, match="more decimals than MOP's unit 0.01"):
                await w.debit("f3", player="alice", currency="MOP", amount=D("1.001"), table="T1", round="RF")
            with pytest.raises(TypeError):
                await w.debit("f4", player="alice", currency="MOP", amount=1.5, table="T1", round="RF")
            assert w.attempts_made == 4
            await w.debit("f5", player="alice", currency="MOP", amount=D("1"), table="T1", round="RF2")
            await w.debit("f6", player="alice", currency="MOP", amount=D("1"), table="T1", round="RF2")
            final = await w.credit("f7", player="alice", currency="MOP", amount=D("2"), table="T1", round="RF2",
                                   debits=["f5", "f-none"])  # a debit that was never made: never done
            assert (final.status, w.attempts_made) == (Status.UNKNOWN_TRANSACTION, 7)

    run(go())


def test_an_answer_that_cannot_be_verified_is_not_believed(shared_wallet, tmp_path):
    wallet = shared_wallet
    """With the wrong secret, the wallet's answers do not verify: the client
    retries (they could be a proxy's) and then says the outcome is unknown."""
    wrong = tmp_path / "wrong.secret"
    wrong.write_text("w" * 40)
    wrong.chmod(0o600)

    async def go():
        async with WalletClient(wallet.url, load_secret(wrong), attempts=3, max_wait=0.05) as w:
            with pytest.raises(WalletUnavailable, match="after 3 attempts: HTTP 401 without a valid signature"):
                await w.debit("u1", player="amy", currency="MOP", amount=D("1"), table="T1", round="R1")

    run(go())
    assert run(_balance(wallet, "amy")) == D("1000.00")


def test_a_wallet_away_is_unavailable_not_an_answer(tmp_path):
    async def go():
        async with WalletClient("http://127.0.0.1:9/wallet/v1", b"k" * 32, attempts=2, max_wait=0.05) as w:
            with pytest.raises(WalletUnavailable, match="cannot connect"):
                await w.balance("alice", "MOP", request_id="b")

    run(go())


@pytest.mark.slow
def test_the_bench_script_runs_small():
    """``scripts/wallet_bench.py`` (a figure, not a timed test) runs and says what it measured."""
    import json
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "scripts/wallet_bench.py", "--debits", "20", "--clients", "2", "--json"],
                         capture_output=True, text=True, cwd=walletproc.ROOT, timeout=120,
                         env={**__import__("os").environ, "PYTHONPATH": str(walletproc.ROOT)})
    assert out.returncode == 0, out.stderr
    figures = json.loads(out.stdout)
    assert figures["debits"] == 20 and figures["debits_per_second"] > 0 and figures["p99_ms"] >= figures["p50_ms"]


def test_a_request_that_waited_past_the_window_is_signed_again(files):
    """A request held (queued) longer than the replay window is refused as
    stale; the wallet's clock agrees with ours, so the client sends it again,
    signed afresh, and it is debited once."""
    argv = walletproc.reference_argv(files["db"], files["secret"], files["players"])
    wallet = walletproc.Process([*argv, "--window", "5"], "wallet")
    wallet.secret = files["secret"]
    held = walletproc.proxy(wallet.url, "--hold", "7", "--only", "debit")
    try:
        async def go():
            async with client(held.url, wallet, timeout=20) as w:  # (the answer is waited for)
                out = await w.debit("late1", player="amy", currency="MOP", amount=D("5"), table="T1", round="RL")
                return out, w.attempts_made

        out, attempts = run(go())
        assert (out.status, out.balance, attempts) == (Status.OK, D("995.00"), 2)
    finally:
        held.stop()
        wallet.stop()
