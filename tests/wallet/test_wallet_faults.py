"""The reference wallet's fault modes (``tablesim wallet serve --fault``),
served as its own process: a temporary error does nothing and is signed
like any answer; a dropped answer leaves its write committed, and a retry
of the same id moves nothing more. Bad fault specs are one line."""

from __future__ import annotations

import asyncio
import json
import time
from decimal import Decimal

import httpx
import pytest

import walletproc
from tablesim.wallet import signing
from tablesim.wallet.client import WalletClient, WalletUnavailable
from tablesim.wallet.faults import Faults, parse
import webclient


def faulty(files, *faults: str) -> walletproc.Process:
    argv = walletproc.reference_argv(files["db"], files["secret"], files["players"])
    return walletproc.Process(argv + [x for f in faults for x in ("--fault", f)] + ["--fault-seed", "7"], "wallet")


def raw(url: str, secret: bytes, call: str, doc: dict) -> httpx.Response:
    body = json.dumps(doc).encode()
    path = f"/wallet/v1/{call}"
    headers = signing.request_headers(secret, path, body, timestamp=int(time.time()))
    return webclient.post(url.removesuffix("/wallet/v1") + path, content=body, timeout=10,
                          headers={**headers, "content-type": "application/json"})


def balance(url: str, secret: bytes, player: str) -> Decimal:
    async def ask() -> Decimal:
        async with WalletClient(url, secret) as wallet:
            return (await wallet.balance(player, "MOP", request_id="b-1")).balance
    return asyncio.run(ask())


DEBIT = {"transaction_id": "d-fault-1", "player": "ann", "currency": "MOP", "amount": "10.00", "table": "T1",
         "round": "R1"}


def test_a_dropped_answer_leaves_the_write_committed_and_a_retry_moves_nothing(files):
    wallet = faulty(files, "drop-after-commit:1")
    try:
        secret = signing.load_secret(files["secret"])
        for _ in range(2):  # the first attempt and its retry (same id): neither answer arrives
            with pytest.raises(httpx.HTTPError):
                raw(wallet.url, secret, "debit", DEBIT)
        assert balance(wallet.url, secret, "ann") == Decimal("990.00")  # (a read is never dropped)
    finally:
        assert wallet.stop()[0] == 0
    plain = walletproc.reference(files["db"], files["secret"], files["players"])
    try:  # the same wallet without faults answers the same id with the answer it kept
        answer = raw(plain.url, secret, "debit", DEBIT)
        assert answer.status_code == 200 and answer.json()["status"] == "ok"
        assert answer.json()["balance"] == "990.00"
    finally:
        plain.stop()


def test_a_temporary_error_is_signed_and_does_nothing(files):
    wallet = faulty(files, "error:1")
    try:
        secret = signing.load_secret(files["secret"])
        answer = raw(wallet.url, secret, "debit", DEBIT)
        assert answer.status_code == 503 and answer.json()["status"] == "temporary_error"

        async def debit() -> None:
            async with WalletClient(wallet.url, secret, attempts=2) as client:  # it checks every signature
                await client.debit("d-fault-2", player="ann", currency="MOP", amount=Decimal("5"), table="T1",
                                   round="R1")
        with pytest.raises(WalletUnavailable):
            asyncio.run(debit())
    finally:
        wallet.stop()
    plain = walletproc.reference(files["db"], files["secret"], files["players"])
    try:
        assert balance(plain.url, secret, "ann") == Decimal("1000.00")
    finally:
        plain.stop()


def test_fault_specs_are_read_exactly():
    assert parse(["slow:0.5", "error:0.1", "drop-after-commit:0.25"], seed=3) == Faults(0.5, 0.1, 0.25, 3)
    assert not parse([]).any


@pytest.mark.parametrize("spec, said", [
    ("late:1", "the fault modes are slow:VALUE, error:VALUE, drop-after-commit:VALUE"),
    ("error:2", "'2' is not a probability, 0 to 1"),
    ("error:nan", "is not a probability"),
    ("slow:-1", "'-1' is not seconds, 0 to 60"),
    ("drop-after-commit", "'' is not a probability"),
])
def test_a_bad_fault_is_one_line_and_nothing_is_served(files, spec, said):
    rc, out, err = walletproc.cli("wallet", "serve", "--db", files["db"], "--secret", files["secret"], "--players",
                                  files["players"], "--port", "0", "--fault", spec)
    assert rc == 2 and out == "", (out, err)
    assert err.splitlines() == [f"tablesim: error: --fault: {err.split('--fault: ', 1)[1].strip()}"]
    assert said in err and not files["db"].exists()
